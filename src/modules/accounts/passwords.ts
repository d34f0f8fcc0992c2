// Password hashing with scrypt (memory-hard, node:crypto): "scrypt$N$r$p$salt$hash" so the cost can
// rise later while old hashes still verify.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

const N = 16384; // 2^14 × r 8 × 128 B = 16 MiB per hash
const R = 8;
const P = 1;
const KEY_LEN = 32;

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  // Without a stored hash, spend the same work anyway: timing does not tell which accounts exist.
  const parts = (stored ?? `scrypt$${N}$${R}$${P}$${'A'.repeat(22)}$${'A'.repeat(43)}`).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  const key = await scrypt(password, salt, expected.length, { N: n, r, p, maxmem: 64 * 1024 * 1024 });
  return stored !== null && crypto.timingSafeEqual(key, expected);
}

/** A reason the password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `the password needs at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `the password may have at most ${PASSWORD_MAX} characters`;
  if (password.toLowerCase() === email.toLowerCase()) return 'the password must not be the e-mail address';
  return undefined;
}
