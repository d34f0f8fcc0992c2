// Merchant authentication (spec 5) and operator authentication (DESIGN 5): the hooks the
// assembly puts on the merchant and operator APIs, and merchantRefusal for the 304 lane.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialMatches, digestsEqual, isBlankCredential, sha256Hex } from '../../domain/secrets.js';
import { bearerCredential } from '../../http/bearer.js';
import { AppError } from '../../http/errors.js';
import { normaliseIp } from '../../http/client-ip.js';
import type { MerchantRow } from './merchant-repo.js';
import type { KeyCache } from './key-cache.js';
import { disabledRefusal } from './disabled.js';

declare module 'fastify' {
  interface FastifyRequest {
    merchant: MerchantRow;
  }
}

/** Why `merchant` may not use the key hashed as `hash` from `ip` (undefined: it may). */
export function merchantRefusal(merchant: MerchantRow | undefined, hash: string, ip: () => string): AppError | undefined {
  if (!merchant || !digestsEqual(merchant.api_key_hash, hash)) return new AppError('unauthenticated', 'invalid API key');
  const disabled = disabledRefusal(merchant);
  if (disabled) return disabled;
  if (merchant.ip_whitelist.length > 0) {
    const from = normaliseIp(ip());
    if (!merchant.ip_whitelist.some((allowed) => normaliseIp(allowed) === from)) return new AppError('forbidden', `IP not whitelisted: ${from}`);
  }
  return undefined;
}

/**
 * `beforeLookup`: asked before a key the cache does not know is looked up in the database (an
 * unknown key, or a known one after a flush); its refusal answers instead (the address limit of
 * http/rate-limit.ts), so guessing keys cannot make every request a database round trip.
 */
export function merchantAuth(keys: KeyCache, beforeLookup?: (request: FastifyRequest, reply: FastifyReply) => AppError | undefined) {
  function check(request: FastifyRequest, hash: string, merchant: MerchantRow | undefined): void {
    const refusal = merchantRefusal(merchant, hash, () => request.ip);
    if (refusal) throw refusal;
    request.merchant = merchant!;
  }
  // With `done`, so a key found in memory (the hot path) costs no promise.
  return function authenticate(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) return done(new AppError('unauthenticated', 'missing authorization header'));
    // The key is hashed as sent (no trimming): a blank one is never looked up.
    if (key.length > 200 || isBlankCredential(key)) return done(new AppError('unauthenticated', 'invalid API key'));
    // Lookup by hash (from memory, see key-cache.ts): the key is never kept or sent in clear, and
    // the final comparison is constant-time. The key is hashed once per request.
    const hash = sha256Hex(key);
    const hit = keys.cached(hash);
    if (hit) {
      try {
        check(request, hash, hit);
      } catch (err) {
        return done(err as Error);
      }
      return done();
    }
    const refused = beforeLookup?.(request, reply);
    if (refused) return done(refused);
    keys.lookup(hash).then(
      (merchant) => {
        try {
          check(request, hash, merchant);
        } catch (err) {
          return done(err as Error);
        }
        done();
      },
      (err: Error) => done(err),
    );
  };
}

/**
 * The operator API's hook. Without a configured token every request is refused before its header
 * is read, so no presented value (empty, blank, anything) can match an unset one; with one, the
 * bearer credential must be exactly the token, byte for byte (no trimming).
 */
export function adminAuth(adminToken: string | undefined) {
  if (isBlankCredential(adminToken)) {
    return async function operatorApiClosed(): Promise<void> {
      throw new AppError('unauthenticated', 'the operator API is closed: no ADMIN_TOKEN is configured');
    };
  }
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    if (!header) throw new AppError('unauthenticated', 'missing authorization header');
    if (!credentialMatches(bearerCredential(header), adminToken)) throw new AppError('unauthenticated', 'invalid admin token');
  };
}
