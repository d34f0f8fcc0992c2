// Webhook bodies and signatures. Pure functions: no I/O, no clock (the timestamp is passed in).
//
// Two schemes are sent on every request (docs/webhooks.md):
//  1. the spec's `sign` field: base64(sha256(String(id) + secret)), id = trade_id / purchase_id,
//     secret = the whole webhook_secret string (with its `whsec_` prefix), UTF-8;
//  2. Standard Webhooks headers: webhook-signature = "v1," + base64(HMAC-SHA256(key,
//     "<webhook-id>.<webhook-timestamp>.<body>")), where key = the bytes encoded after `whsec_`
//     (secrets are whsec_ + standard base64 of 32 random bytes, what the official Standard
//     Webhooks libraries decode; secrets issued earlier were base64url and still verify).
import crypto from 'node:crypto';
import { AppError } from '../../domain/errors.js';

/** Bodies must stay under 4 KiB (DESIGN 8): clients buffer them into fixed-size slots. */
export const MAX_WEBHOOK_BODY_BYTES = 4096;

export const SECRET_PREFIX = 'whsec_';

export type WebhookKind = 'deposit' | 'purchase';

/** A payload that cannot become a webhook body (not an object, no id, over 4 KiB): the event fails for good. */
const payloadError = (message: string) => new AppError('validation', message);

/**
 * A new webhook secret: `whsec_` + standard base64 (RFC 4648 §4, padded) of 32 random bytes, so
 * `new Webhook(secret)` of the official Standard Webhooks libraries accepts it as it is.
 */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

/** The spec signature (6.1 / 6.2): base64(sha256(String(id) + secret)). */
export function legacySign(id: number | string, secret: string): string {
  return crypto.createHash('sha256').update(String(id) + secret, 'utf8').digest('base64');
}

/**
 * The HMAC key of the Standard Webhooks signature: the bytes after `whsec_`, decoded as base64
 * (standard base64, today's secrets, and base64url, the secrets issued before, both accepted, as
 * Node's decoder does). A secret without the
 * prefix, or one that decodes to nothing, is used as its UTF-8 bytes.
 */
export function standardWebhookKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const encoded = secret.slice(SECRET_PREFIX.length);
    if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
      const key = Buffer.from(encoded, 'base64url');
      if (key.length > 0) return key;
    }
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (Standard Webhooks). */
export function standardSignature(secret: string, webhookId: string, timestampSec: number, body: string): string {
  const mac = crypto.createHmac('sha256', standardWebhookKey(secret)).update(`${webhookId}.${timestampSec}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The stable idempotency id of an event across retries and redeliveries. */
export function webhookId(eventId: number): string {
  return `evt_${eventId}`;
}

/** The id field that `sign` covers and that tells the two kinds apart. */
export function idFieldOf(kind: WebhookKind): 'trade_id' | 'purchase_id' {
  return kind === 'deposit' ? 'trade_id' : 'purchase_id';
}

function asIntegerId(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^[1-9]\d{0,15}$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return undefined;
}

export interface BuiltBody {
  id: number;
  body: string;
  bytes: number;
}

/**
 * The wire body: the stored payload plus `sign`, with the guarantees clients rely on (DESIGN 8):
 * the id is a JSON integer (the record id when the payload lacks one), a deposit body has no
 * `purchase_id` key at all, and the body fits in 4 KiB (else a 'validation' AppError: better no body
 * than a truncated one).
 */
export function buildWebhookBody(kind: WebhookKind, recordId: number, payload: unknown, secret: string): BuiltBody {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw payloadError('payload is not a JSON object');
  }
  const field = idFieldOf(kind);
  const { sign: _ignored, ...rest } = payload as Record<string, unknown>;
  void _ignored;
  const id = asIntegerId(rest[field]) ?? asIntegerId(recordId);
  if (id === undefined) throw payloadError(`${field} is not a positive integer`);
  if (kind === 'deposit') delete rest.purchase_id;
  const fields: Record<string, unknown> = { sign: legacySign(id, secret), ...rest, [field]: id };
  const body = JSON.stringify(fields);
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_WEBHOOK_BODY_BYTES) {
    throw payloadError(`body of ${bytes} bytes exceeds the ${MAX_WEBHOOK_BODY_BYTES}-byte limit`);
  }
  return { id, body, bytes };
}
