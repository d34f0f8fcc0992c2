import { describe, expect, it } from 'vitest';
import { median, ratioBetween, referencePrice, type PriceRules, type Reading } from './reference-price.js';

const NOW = 1_800_000_000_000;
const rules: PriceRules = { maxAgeMs: 3_600_000, minLiquidity: 5, minSources: 2, outlierRatio: 1.5, jumpRatio: 1.5 };
const r = (source: string, price: number, over: Partial<Reading> = {}): Reading => ({ source, role: 'market', price, asOf: NOW - 60_000, liquidity: 50, ...over });
const three = (a: number, b: number, c: number) => [r('book', a), r('skinport', b), r('csfloat', c)];

describe('reference price: median and outliers', () => {
  it('median of three fresh, liquid sources', () => {
    const b = referencePrice(three(10_000, 11_000, 10_500), rules, {}, NOW);
    expect(b).toMatchObject({ reference: 10_500, deposit: 10_500, sale: 10_500, flags: [], used: ['book', 'skinport', 'csfloat'] });
  });

  it('one source at 10× the others is left out and flagged; the others price the item', () => {
    const b = referencePrice(three(10_000, 100_000, 10_200), rules, {}, NOW);
    expect(b.outliers).toEqual(['skinport']);
    expect(b.flags).toContain('outlier');
    expect(b.reference).toBe(10_100);
    expect(b.deposit).toBe(10_100);
  });

  it('a source exactly at the outlier ratio is kept; one mill past it is an outlier', () => {
    expect(referencePrice(three(10_000, 15_000, 10_000), rules, {}, NOW).outliers).toEqual([]);
    const past = referencePrice(three(10_000, 15_001, 10_000), rules, {}, NOW);
    expect(past.outliers).toEqual(['skinport']);
    expect(past.reference).toBe(10_000);
  });

  it('two sources that disagree past the ratio: both out, too few, not accepted', () => {
    const b = referencePrice([r('book', 10_000), r('skinport', 100_000)], rules, {}, NOW);
    expect(b.outliers.sort()).toEqual(['book', 'skinport']);
    expect(b.flags).toEqual(expect.arrayContaining(['outlier', 'too_few_sources']));
    expect(b.deposit).toBeUndefined();
  });
});

describe('reference price: freshness and liquidity', () => {
  it('two of three sources stale: too few fresh sources, not accepted, sold no lower than the last good price', () => {
    const old = NOW - rules.maxAgeMs - 1;
    const b = referencePrice([r('book', 10_000, { asOf: old }), r('skinport', 9_000, { asOf: old }), r('csfloat', 8_000)], rules, { lastGood: 10_000 }, NOW);
    expect(b.stale.sort()).toEqual(['book', 'skinport']);
    expect(b.flags).toEqual(expect.arrayContaining(['stale', 'too_few_sources']));
    expect(b.deposit).toBeUndefined();
    expect(b.sale).toBe(10_000);
  });

  it('a reading exactly at the age limit is fresh; one ms older is stale', () => {
    const edge = referencePrice([r('book', 10_000, { asOf: NOW - rules.maxAgeMs }), r('skinport', 10_000)], rules, {}, NOW);
    expect(edge.deposit).toBe(10_000);
    expect(edge.expiresAt).toBe(NOW + 1);
    const past = referencePrice([r('book', 10_000, { asOf: NOW - rules.maxAgeMs - 1 }), r('skinport', 10_000)], rules, {}, NOW);
    expect(past.deposit).toBeUndefined();
  });

  it('an item below the liquidity floor is not counted; at the floor it is', () => {
    const at = referencePrice([r('skinport', 10_000, { liquidity: 5 }), r('csfloat', 10_000, { liquidity: 5 })], rules, {}, NOW);
    expect(at.deposit).toBe(10_000);
    const below = referencePrice([r('skinport', 10_000, { liquidity: 4 }), r('csfloat', 10_000, { liquidity: 5 })], rules, {}, NOW);
    expect(below.illiquid).toEqual(['skinport']);
    expect(below.flags).toEqual(expect.arrayContaining(['illiquid', 'too_few_sources']));
    expect(below.deposit).toBeUndefined();
  });

  it('every source failing (all stale): no price at all', () => {
    const old = NOW - rules.maxAgeMs - 1;
    const b = referencePrice(three(1, 2, 3).map((x) => ({ ...x, asOf: old })), rules, {}, NOW);
    expect([b.deposit, b.sale]).toEqual([undefined, undefined]);
  });
});

describe('reference price: jumps', () => {
  it('a 60 % rise is held at the old price for deposits; sales do not go below the new one', () => {
    const b = referencePrice(three(16_000, 16_000, 16_000), rules, { lastGood: 10_000 }, NOW);
    expect(b.flags).toContain('jump');
    expect(b.deposit).toBe(10_000);
    expect(b.sale).toBe(16_000);
    expect(b.next.pending).toEqual({ price: 16_000, asOf: NOW - 60_000 });
  });

  it('a 50 % rise (the ratio) is taken at once', () => {
    const b = referencePrice(three(15_000, 15_000, 15_000), rules, { lastGood: 10_000 }, NOW);
    expect(b.flags).toEqual([]);
    expect(b.deposit).toBe(15_000);
  });

  it('a 60 % fall is credited at the new, lower price and flagged', () => {
    const b = referencePrice(three(4_000, 4_000, 4_000), rules, { lastGood: 10_000 }, NOW);
    expect(b.flags).toContain('jump');
    expect(b.deposit).toBe(4_000);
    expect(b.sale).toBe(10_000);
  });

  it('the same readings again do not confirm a jump; a newer reading does', () => {
    const first = referencePrice(three(16_000, 16_000, 16_000), rules, { lastGood: 10_000 }, NOW);
    const again = referencePrice(three(16_000, 16_000, 16_000), rules, first.next, NOW + 1000);
    expect(again.deposit).toBe(10_000);
    const newer = three(16_100, 16_000, 16_000).map((x) => ({ ...x, asOf: NOW }));
    const confirmed = referencePrice(newer, rules, first.next, NOW + 1000);
    expect(confirmed.flags).toEqual([]);
    expect(confirmed.deposit).toBe(16_000);
    expect(confirmed.next).toEqual({ lastGood: 16_000 });
  });
});

describe('reference price: guard and operator', () => {
  it('a reference above the Steam guard by more than the ratio is not accepted; at the ratio it is', () => {
    const guard = (p: number) => r('steam', p, { role: 'guard' });
    expect(referencePrice([...three(15_000, 15_000, 15_000), guard(10_000)], rules, {}, NOW).deposit).toBe(15_000);
    const b = referencePrice([...three(15_001, 15_001, 15_001), guard(10_000)], rules, {}, NOW);
    expect(b.flags).toContain('guard');
    expect(b.deposit).toBeUndefined();
    expect(b.used).not.toContain('steam');
  });

  it('a pin prices the item whatever the sources say; a block refuses it', () => {
    expect(referencePrice(three(1, 100, 10_000), rules, { lastGood: 9_000 }, NOW, { action: 'pin', price: 7_000 })).toMatchObject({ deposit: 7_000, sale: 7_000, flags: ['pinned'], next: { lastGood: 9_000 } });
    const blocked = referencePrice(three(10_000, 10_000, 10_000), rules, {}, NOW, { action: 'block' });
    expect([blocked.deposit, blocked.sale, blocked.flags]).toEqual([undefined, undefined, ['blocked']]);
  });

  it('one source and a minimum of one: the source prices the item', () => {
    expect(referencePrice([r('book', 5_000, { liquidity: undefined })], { ...rules, minSources: 1 }, {}, NOW).deposit).toBe(5_000);
  });
});

describe('helpers', () => {
  it('median and ratio', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(3); // the middle two, 2 and 3, rounded mean
    expect(median([5, 1, 5])).toBe(5);
    const owned = [9, 7, 8];
    expect(median(owned)).toBe(8);
    expect(owned).toEqual([9, 7, 8]); // the caller's array is not sorted
    expect(ratioBetween(0, 5)).toBe(Infinity);
    expect(ratioBetween(10, 15)).toBe(1.5);
  });
});
