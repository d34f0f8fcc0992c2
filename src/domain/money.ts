// Money is an integer number of mills (1/1000 USD) everywhere inside the service.
// Floats appear only at the wire edge, converted here and nowhere else.

export const MILLS_PER_USD = 1000;

export class MoneyError extends Error {}

/**
 * USD number from the wire → mills. Rejects NaN, infinities, more than 3 decimals and unsafe sizes.
 * Decided exactly on the number's decimal text (JavaScript's shortest round-trip form, the digits
 * the client sent): 1000000.0006 and 1e-10 have more than 3 decimals, whatever float error says.
 */
export function usdToMills(usd: number): number {
  return scaledInteger(usd, 3, 'amount');
}

/** n × 10^places as an exact integer, refusing a number with more than `places` decimals. */
export function scaledInteger(usd: number, places: number, what = 'value'): number {
  if (typeof usd !== 'number' || !Number.isFinite(usd)) throw new MoneyError(`${what} must be a finite number`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(usd));
  if (!m) throw new MoneyError(`${what} must be a finite number`);
  const [, sign, intPart, fracPart = '', expPart = '0'] = m;
  // value = digits × 10^(exp − fraction length); scaled, the exponent grows by `places`.
  const digits = (intPart + fracPart).replace(/^0+(?=\d)/, '');
  const shift = Number(expPart) - fracPart.length + places;
  let mills: bigint;
  if (shift >= 0) {
    if (shift > 30) throw new MoneyError(`${what} is too large`);
    mills = BigInt(digits) * 10n ** BigInt(shift);
  } else {
    const cut = -shift;
    const kept = digits.length > cut ? digits.slice(0, digits.length - cut) : '0';
    const dropped = digits.slice(Math.max(0, digits.length - cut));
    if (/[1-9]/.test(dropped)) throw new MoneyError(`${what} has more than ${places} decimals`);
    mills = BigInt(kept);
  }
  if (mills > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyError(`${what} is too large`);
  const n = Number(mills);
  return sign === '-' && n !== 0 ? -n : n;
}

/** mills → USD number for JSON. x/1000 is the nearest double, which JSON prints shortest (0.3, not 0.30000000000000004). */
export function millsToUsd(mills: number | bigint | string): number {
  const n = typeof mills === 'number' ? mills : Number(mills);
  if (!Number.isSafeInteger(n)) throw new MoneyError(`not an integer amount of mills: ${mills}`);
  return n / MILLS_PER_USD;
}

/** Applies a multiplier (deposit multiplier, purchase markup) and rounds half away from zero to whole mills. */
export function applyRate(mills: number, rate: number): number {
  const v = mills * rate;
  return Math.sign(v) * Math.round(Math.abs(v) + 1e-9);
}

export function sumMills(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  if (!Number.isSafeInteger(total)) throw new MoneyError('sum overflow');
  return total;
}
