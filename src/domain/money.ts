// Money is an integer number of mills (1/1000 USD) everywhere inside the service.
// Floats appear only at the wire edge, converted here and nowhere else.

export const MILLS_PER_USD = 1000;

export class MoneyError extends Error {}

/** USD number from the wire → mills. Rejects NaN, infinities, more than 3 decimals and unsafe sizes. */
export function usdToMills(usd: number): number {
  if (typeof usd !== 'number' || !Number.isFinite(usd)) throw new MoneyError('amount must be a finite number');
  const mills = Math.round(usd * MILLS_PER_USD);
  if (Math.abs(mills / MILLS_PER_USD - usd) > 1e-9 * Math.max(1, Math.abs(usd))) {
    throw new MoneyError('amount has more than 3 decimals');
  }
  if (!Number.isSafeInteger(mills)) throw new MoneyError('amount is too large');
  return mills;
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
