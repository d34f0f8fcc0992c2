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

/**
 * Characters that are blank to a reader though they are not always "whitespace" to a regex: JS
 * `\s` (ASCII and Unicode spaces, line and paragraph separators, U+FEFF) plus the zero-width ones.
 */
const BLANK = /^[\s\u180e\u200b-\u200d\u2060]*$/;

/** A credential that can never be valid: none, empty, or made only of whitespace or zero-width characters. */
export function isBlankCredential(s: string | null | undefined): boolean {
  return typeof s !== 'string' || BLANK.test(s);
}

/**
 * Whether the presented credential is exactly the expected one: the same characters, with no
 * trimming, case folding or Unicode normalisation (a header's text is its bytes, one character a
 * byte). A blank value on either side is refused before anything is compared, so an unset or empty
 * secret never matches an empty or whitespace-only one. Constant time (safeEqual).
 */
export function credentialMatches(presented: string | null | undefined, expected: string | null | undefined): boolean {
  if (isBlankCredential(expected) || isBlankCredential(presented)) return false;
  return safeEqual(presented!, expected!);
}
