import crypto from 'node:crypto';

/** A random secret of 32 bytes, base64url, with a readable prefix (`sk_`, `whsec_`). */
export function randomSecret(prefix: string): string {
  return prefix + crypto.randomBytes(32).toString('base64url');
}

// crypto.hash (Node ≥ 20.12): a one-shot digest without a Hash object, for the per-request key hash.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function sha256Hex(s: string): string {
  return oneShot ? oneShot('sha256', s, 'hex') : crypto.createHash('sha256').update(s, 'utf8').digest('hex');
}

// Two scratch buffers for digestsEqual (synchronous, so never shared by two calls at once): the
// digests' hex text is compared as bytes, without decoding it into two new Buffers per request.
const leftText = Buffer.alloc(64);
const rightText = Buffer.alloc(64);

/** Constant-time comparison of two SHA-256 hex digests (no further hashing: both are digests already). */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== 64 || b.length !== 64) return false;
  // Both are hex text (sha256Hex's, or the stored hash it made): ASCII, one byte a character in latin1.
  leftText.write(a, 0, 64, 'latin1');
  rightText.write(b, 0, 64, 'latin1');
  return crypto.timingSafeEqual(leftText, rightText);
}

/** Constant-time comparison of two strings of any length (compares their digests). */
export function safeEqual(a: string, b: string): boolean {
  const da = crypto.createHash('sha256').update(a, 'utf8').digest();
  const db = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(da, db);
}
