// The one retry rule of platform calls made for a record (src/platform/retry.ts).
import { describe, expect, it } from 'vitest';
import { PlatformTimeoutError } from '../../src/platform/offers.js';
import { PlatformOfferUncertainError, PlatformUnavailableError, PlatformUserError } from '../../src/platform/port.js';
import { causeOf, isTransient, jittered, refusalOf, RetriesExhaustedError, retryDelayMs, retryWithin } from '../../src/platform/retry.js';

describe('the retry rule', () => {
  it('refusals end the record at once; everything else may be retried; only a transient unavailability is "not now"', () => {
    expect(refusalOf(new PlatformUserError('trade_link_invalid'))).toBe('user');
    expect(refusalOf(new PlatformUnavailableError('no bot'))).toBe('unavailable');
    for (const e of [new PlatformUnavailableError('429', true), new PlatformTimeoutError('slow'), new PlatformOfferUncertainError(), new Error('db')]) expect(refusalOf(e)).toBeUndefined();
    expect(isTransient(new PlatformUnavailableError('429', true))).toBe(true);
    expect(isTransient(new PlatformUnavailableError('no bot'))).toBe(false);
    expect(isTransient(new PlatformTimeoutError('slow'))).toBe(false);
  });

  it('waits are jittered between half and all of a doubling ceiling, never past the cap', () => {
    expect(jittered(1000, () => 0)).toBe(500);
    expect(jittered(1000, () => 1)).toBe(1000);
    expect(retryDelayMs(1, { baseMs: 100, capMs: 1000 }, () => 1)).toBe(100);
    expect(retryDelayMs(3, { baseMs: 100, capMs: 1000 }, () => 1)).toBe(400);
    expect(retryDelayMs(10, { baseMs: 100, capMs: 1000 }, () => 1)).toBe(1000);
    expect(retryDelayMs(10, { baseMs: 100, capMs: 1000 }, () => 0)).toBe(500);
  });

  it('retryWithin: retries transient errors until an answer; a refusal is thrown at once; the deadline ends it with the last error and the count', async () => {
    let t = 0;
    const clock = { now: () => t, sleep: async (ms: number) => void (t += ms), random: () => 0.5 };
    let calls = 0;
    const ok = await retryWithin(async () => (++calls < 3 ? Promise.reject(new PlatformUnavailableError('429', true)) : 'sent'), { deadline: 10_000, baseMs: 100, capMs: 1000, ...clock });
    expect([ok, calls]).toEqual(['sent', 3]);
    await expect(retryWithin(async () => { throw new PlatformUserError('trade_banned'); }, { deadline: 10_000, baseMs: 100, capMs: 1000, ...clock })).rejects.toBeInstanceOf(PlatformUserError);
    t = 0;
    const seen: number[] = [];
    const err = await retryWithin(async (remaining) => { seen.push(remaining); throw new PlatformUnavailableError('eresult 20', true); }, { deadline: 5_000, baseMs: 100, capMs: 1000, ...clock }).catch((e) => e);
    expect(err).toBeInstanceOf(RetriesExhaustedError);
    expect(err.attempts).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.every((r, i) => i === 0 || r < seen[i - 1])).toBe(true); // each attempt gets what is left
    expect(t).toBeLessThan(5_000); // no wait runs past the deadline
    expect(causeOf(err)).toBe(`PlatformUnavailableError: eresult 20 (${seen.length} attempts)`);
  });
});
