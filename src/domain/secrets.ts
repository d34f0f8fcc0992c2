import crypto from 'node:crypto';

/** A random secret of 32 bytes, base64url, with a readable prefix (`sk_`, `whsec_`). */
export function randomSecret(prefix: string): string {
  return prefix + crypto.randomBytes(32).toString('base64url');
}

export function sha256Hex(s: string): string {
  return crypto.createHash('sha256').update(s, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings of any length (compares their digests). */
export function safeEqual(a: string, b: string): boolean {
  const da = crypto.createHash('sha256').update(a, 'utf8').digest();
  const db = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(da, db);
}
