// The 3-decimal rule is decided on the number's decimal text with integer arithmetic, not by a
// relative float error (one took 1000000.0006 as 1000000.001, 1e-10 reached the database).
import { describe, expect, it } from 'vitest';
import { MoneyError, millsToUsd, scaledInteger, usdToMills } from './money.js';

describe('usdToMills', () => {
  it.each([
    [0, 0],
    [0.001, 1],
    [0.3, 300],
    [1.005, 1005],
    [968.17, 968_170],
    [1_000_000.001, 1_000_000_001],
    [123_456_789.123, 123_456_789_123],
    [1e3, 1_000_000],
    [5e-3, 5],
    [-1.5, -1500],
    [1_000_000_000, 1_000_000_000_000],
  ])('%s → %s mills', (usd, mills) => {
    expect(usdToMills(usd)).toBe(mills);
    expect(millsToUsd(mills)).toBe(usd === 0 ? 0 : usd);
  });

  it.each([1e-10, 0.0005, 1_000_000.0006, 12.3456, 0.1 + 0.2, 1.0070000000000001, 5e-324])('%s has more than 3 decimals', (usd) => {
    expect(() => usdToMills(usd)).toThrow(new MoneyError('amount has more than 3 decimals'));
  });

  it.each([1e21, 1e308, 2 ** 53 + 1, 9_007_199_254_741])('%s is too large', (usd) => {
    expect(() => usdToMills(usd)).toThrow(new MoneyError('amount is too large'));
  });

  it.each([NaN, Infinity, -Infinity, '1' as unknown as number])('%s is not a finite number', (usd) => {
    expect(() => usdToMills(usd)).toThrow(new MoneyError('amount must be a finite number'));
  });
});

describe('scaledInteger', () => {
  it('scales by any number of places, naming the value in errors', () => {
    expect(scaledInteger(1.000001, 6)).toBe(1_000_001);
    expect(scaledInteger(10, 6)).toBe(10_000_000);
    expect(() => scaledInteger(1e-10, 6, 'purchase_markup')).toThrow('purchase_markup has more than 6 decimals');
    expect(() => scaledInteger(1.0000001, 6)).toThrow('value has more than 6 decimals');
  });
});

describe('exactNumber (decimal text a double holds exactly)', () => {
  it('answers the double when its shortest form is the same decimal, else undefined', async () => {
    const { exactNumber } = await import('./money.js');
    for (const [t, n] of [['1', 1], ['1.000', 1], ['1.5e0', 1.5], ['0.1', 0.1], ['-0.25', -0.25], ['123456789012345', 123456789012345], ['9007199254740991', 9007199254740991]] as const) {
      expect(exactNumber(t), t).toBe(n);
    }
    for (const t of ['1.0000000000000001', '0.0009999999999999999999', '9007199254740993', '1e400', '', 'abc', '0x10']) {
      expect(exactNumber(t), t).toBeUndefined();
    }
  });
});
