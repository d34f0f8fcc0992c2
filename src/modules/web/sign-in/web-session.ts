// The web side of accounts, shared by the merchant dashboard and the operator console: cookies,
// form bodies, security headers (strict CSP, same origin only), CSRF, and the signed-in user.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialMatches, isBlankCredential } from '../../../domain/secrets.js';
import { AppError, forbidden } from '../../../http/errors.js';
import { clientIp } from '../../../http/client-ip.js';
import type { Actor, SessionUser } from '../../accounts/accounts-service.js';
import type { Role } from '../../accounts/accounts-types.js';
import { stringFields } from '../../../http/typed-routes.js';

export const SESSION_COOKIE = 'sgw_session';
/** Pre-sign-in CSRF token (double submit): the sign-in and invitation forms carry its value. */
export const PRE_COOKIE = 'sgw_pre';

const CSRF_REFUSED = 'the form has expired or did not come from this site (CSRF token missing or wrong): reload the page and try again';

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

declare module 'fastify' {
  interface FastifyRequest {
    user?: SessionUser;
    form: Record<string, string>;
  }
}

/**
 * The cookies of a Cookie header (`name=value` pairs joined by `; `, RFC 6265 5.4), each value
 * exactly as sent: not trimmed, not percent-decoded. The gateway's own cookies are credentials in
 * base64url (the session id, the signed pre-sign-in value), which needs no encoding, so a value with
 * anything added around it (a space, a no-break space, a tab) or spelled another way (%41 for A) is
 * another value, never the same one. Only the separator's spaces before a name are skipped.
 */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).replace(/^[ \t]+/, '');
    if (!k || Object.hasOwn(out, k)) continue; // the first (most specific) cookie wins
    out[k] = part.slice(i + 1);
  }
  return out;
}

export function isSecure(req: FastifyRequest, publicUrl: string): boolean {
  return req.protocol === 'https' || publicUrl.startsWith('https:');
}

export function setCookie(reply: FastifyReply, req: FastifyRequest, publicUrl: string, name: string, value: string, maxAgeSeconds?: number): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (isSecure(req, publicUrl)) parts.push('Secure');
  const prev = reply.getHeader('set-cookie');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}

export function actorOf(req: FastifyRequest): Actor {
  return { userId: req.user?.id ?? null, actor: req.user?.email ?? 'anonymous', ip: clientIp(req) };
}

/**
 * Registers, in the calling plugin's scope: urlencoded form bodies, security headers on every
 * answer, same-origin checks on every POST, and `req.user` from the session cookie.
 */
export function installWebBasics(app: FastifyInstance, opts: { publicUrl: string; authenticate: (cookie: string | undefined) => Promise<SessionUser | undefined> }): void {
  app.decorateRequest('user', undefined);
  app.decorateRequest('form', null as never);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    const form: Record<string, string> = Object.create(null);
    for (const [k, v] of new URLSearchParams(String(body))) form[k] = v;
    done(null, form);
  });
  app.addHook('onRequest', async (req, reply) => {
    reply
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('cross-origin-opener-policy', 'same-origin')
      .header('cross-origin-resource-policy', 'same-origin')
      .header('cache-control', 'no-store');
    const session = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    req.user = session === undefined || isBlankCredential(session) ? undefined : await opts.authenticate(session);
  });
  app.addHook('preHandler', async (req) => {
    // Only string fields count (a JSON body's numbers or objects never reach a form handler).
    req.form = stringFields(req.body);
    if (req.method !== 'GET' && req.method !== 'HEAD') checkOrigin(req, opts.publicUrl);
  });
}

/** A POST must come from our own pages: Origin (or Referer) is this host or PUBLIC_URL. */
function checkOrigin(req: FastifyRequest, publicUrl: string): void {
  const origin = req.headers.origin ?? (req.headers.referer ? safeOrigin(req.headers.referer) : undefined);
  if (origin === undefined) return; // non-browser clients; the CSRF token still applies
  const own = [new URL(publicUrl).origin, `${req.protocol}://${req.host}`];
  if (!own.includes(origin)) throw forbidden('cross-origin request refused');
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/** The CSRF token of a signed-in form post (field _csrf or header x-csrf-token). */
export function checkCsrf(req: FastifyRequest): void {
  const header = req.headers['x-csrf-token'];
  const given = req.form?._csrf ?? (typeof header === 'string' ? header : undefined);
  if (!credentialMatches(given, req.user?.csrf)) throw forbidden(CSRF_REFUSED);
}

/**
 * Pre-sign-in double submit, bound to the gateway: the cookie is a random value signed with a server
 * key (web_keys, shared by every instance), and the form token is an HMAC of that cookie and the
 * time it was issued. So a pair the gateway never issued (a cookie planted by another site with a
 * matching form field) is refused, a token belongs to one cookie, and it expires.
 */
export const PRE_TOKEN_TTL_SECONDS = 3600;
const PRE_COOKIE_FORM = /^([\w-]{43})\.([\w-]{43})$/;

const mac = (key: Buffer, text: string) => crypto.createHmac('sha256', key).update(text).digest('base64url');

/** The random part of a cookie the gateway signed, else undefined. */
function issuedPreCookie(key: Buffer, cookie: string | undefined): string | undefined {
  const m = cookie ? PRE_COOKIE_FORM.exec(cookie) : null;
  return m && credentialMatches(m[2], mac(key, `sgw_pre cookie:${m[1]}`)) ? m[1] : undefined;
}

const preFormToken = (key: Buffer, nonce: string, issuedAt: number) => `${issuedAt}.${mac(key, `sgw_pre form:${nonce}:${issuedAt}`)}`;

/** The pre-sign-in token: the form field must be a live token of the cookie, both issued here. */
export function checkPreCsrf(req: FastifyRequest, key: Buffer, nowMs = Date.now()): void {
  const nonce = issuedPreCookie(key, parseCookies(req.headers.cookie)[PRE_COOKIE]);
  const given = req.form?._csrf ?? '';
  const issuedAt = Number(/^(\d{1,12})\./.exec(given)?.[1]);
  const age = Math.floor(nowMs / 1000) - issuedAt;
  if (!nonce || !(age >= 0 && age <= PRE_TOKEN_TTL_SECONDS) || !credentialMatches(given, preFormToken(key, nonce, issuedAt))) throw forbidden(CSRF_REFUSED);
}

/** A fresh pre-sign-in form token for this browser; its cookie is (re)issued unless it has one of ours. */
export function preToken(req: FastifyRequest, reply: FastifyReply, publicUrl: string, key: Buffer, nowMs = Date.now()): string {
  let nonce = issuedPreCookie(key, parseCookies(req.headers.cookie)[PRE_COOKIE]);
  if (!nonce) {
    nonce = crypto.randomBytes(32).toString('base64url');
    setCookie(reply, req, publicUrl, PRE_COOKIE, `${nonce}.${mac(key, `sgw_pre cookie:${nonce}`)}`);
  }
  return preFormToken(key, nonce, Math.floor(nowMs / 1000));
}

/** No session: the web app's error handler answers it with a redirect to the sign-in page. */
export const signInRequired = () => new AppError('unauthenticated', 'sign in required');

/** The signed-in user with one of the roles, else a redirect to sign-in (or 403 for a wrong role). */
export function requireRole(req: FastifyRequest, roles: readonly Role[]): SessionUser {
  const u = req.user;
  if (!u) throw signInRequired();
  if (!roles.includes(u.role)) throw forbidden(`your role (${u.role}) cannot do this`);
  return u;
}
