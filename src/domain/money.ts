// Money is an integer number of mills (1/1000 USD) everywhere inside the service.
// Floats appear only at the wire edge, converted here and nowhere else.

export const MILLS_PER_USD = 1000;

/**
 * The largest amount the gateway holds: 2^43 USD (8 796 093 022 208.000 USD, 8 796 093 022 208 000
 * mills). Amounts leave as JSON numbers (millsToUsd: mills / 1000 as a double, printed shortest by
 * JSON.stringify, fast-json-stringify, the CSV and the CLI), and a double prints every amount of at
 * most 3 decimals exactly only while the doubles around it are closer than 0.001 USD: below 2^43
 * they are at most 2^-10 apart, from 2^43 on 2^-9 (8796093022208.001 prints …208.002;
 * 9000000000301.501 prints …301.502). So no entry amount and no balance (available + hold, migration
 * 082) may pass it; test/foundation/amount-limits.test.ts checks the edge and one past it.
 */
export const MAX_AMOUNT_MILLS = 8_796_093_022_208_000;
/** MAX_AMOUNT_MILLS in USD, as the limit's messages name it. */
export const MAX_AMOUNT_USD = '8796093022208';

/** A money rule broken; `code` the validation code callers answer it with (`numeric`, or `max` for the limit). */
export class MoneyError extends Error {
  constructor(message: string, readonly code: 'numeric' | 'max' = 'numeric') {
    super(message);
  }
}

/** Refuses an amount past MAX_AMOUNT_MILLS (either sign), naming the limit. */
export function withinAmountLimit(mills: number, what = 'amount'): number {
  if (Math.abs(mills) > MAX_AMOUNT_MILLS) throw new MoneyError(`${what} is too large: at most ${MAX_AMOUNT_USD} USD`, 'max');
  return mills;
}

/**
 * USD number from the wire → mills. Rejects NaN, infinities, more than 3 decimals and amounts past
 * MAX_AMOUNT_MILLS.
 * Decided exactly on the number's decimal text (JavaScript's shortest round-trip form, the digits
 * the client sent): 1000000.0006 and 1e-10 have more than 3 decimals, whatever float error says.
 */
export function usdToMills(usd: number): number {
  return withinAmountLimit(scaledInteger(usd, 3, 'amount'));
}

/** n × 10^places as an exact integer, refusing a number with more than `places` decimals. */
export function scaledInteger(usd: number, places: number, what = 'value'): number {
  if (typeof usd !== 'number' || !Number.isFinite(usd)) throw new MoneyError(`${what} must be a finite number`);
  return scaledIntegerOfText(String(usd), places, what);
}

/**
 * A USD amount as typed in a form or on the command line (plain decimal text, no sign, no
 * exponent) → mills, decided on the text itself: `1.0000000000000001` has more than 3 decimals.
 */
export function usdTextToMills(text: string, what = 'amount'): number {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) throw new MoneyError(`${what} must be a positive number of USD like 12.345`);
  return withinAmountLimit(scaledIntegerOfText(t, 3, what), what);
}

/**
 * The double of a decimal number text, only when it holds the number exactly as written (its
 * shortest form is the same decimal): `1.0000000000000001` or `0.0009999999999999999999` would be
 * rounded (to 1 and 0.001) before any decimal rule could see them, so they answer undefined.
 */
export function exactNumber(text: string): number | undefined {
  const n = Number(text);
  if (!Number.isFinite(n) || text.trim() === '') return undefined;
  const a = decimalKey(text.trim());
  return a !== undefined && a === decimalKey(String(n)) ? n : undefined;
}

/** A decimal text's value as "sign digits e exponent" with no leading or trailing zeros (1.50 and 15e-1 agree). */
function decimalKey(text: string): string | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const [, sign, intPart, fracPart = '', expPart = '0'] = m;
  let digits = (intPart + fracPart).replace(/^0+/, '');
  let exp = Number(expPart) - fracPart.length;
  if (digits === '') return '0';
  const trailing = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trailing);
  exp += trailing;
  return `${sign === '-' ? '-' : ''}${digits}e${exp}`;
}

function scaledIntegerOfText(text: string, places: number, what: string): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(text);
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

/**
 * mills → USD number for JSON. x/1000 is the nearest double, which JSON prints shortest (0.3, not
 * 0.30000000000000004): the exact amount for every amount up to MAX_AMOUNT_MILLS.
 */
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
