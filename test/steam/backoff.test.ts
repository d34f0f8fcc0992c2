import { describe, expect, it } from 'vitest';
import { createBackoff, RateLimitedError } from '../../src/platform/steam/backoff.js';

const limited = Object.assign(new Error('HTTP error 429'), { code: 429 });
const is429 = (e: unknown) => (e as { code?: number }).code === 429;

describe('backoff per bot and endpoint', () => {
  it('waits exponentially growing, jittered windows and succeeds after the 429s', async () => {
    const waits: number[] = [];
    const b = createBackoff({ baseMs: 100, maxMs: 1000, attempts: 6, random: () => 0.5, sleep: async (ms) => void waits.push(ms) });
    let calls = 0;
    const out = await b.run('bot1:inventory', async () => {
      if (++calls <= 4) throw limited;
      return 'ok';
    }, is429);
    expect(out).toBe('ok');
    expect(calls).toBe(5);
    // Full jitter at 0.5 of 100, 200, 400, 800 (capped at 1000) — within a few ms of real time passing.
    expect(waits.length).toBe(4);
    [50, 100, 200, 400].forEach((w, i) => expect(waits[i]).toBeGreaterThan(w - 20));
    [50, 100, 200, 400].forEach((w, i) => expect(waits[i]).toBeLessThanOrEqual(w));
    expect(b.waitOf('bot1:inventory')).toBe(0);
  });

  it('caps the window at maxMs and gives up after the last attempt with RateLimitedError', async () => {
    const b = createBackoff({ baseMs: 1000, maxMs: 1500, attempts: 3, random: () => 1, sleep: async () => {} });
    await expect(b.run('bot1:send', async () => { throw limited; }, is429)).rejects.toBeInstanceOf(RateLimitedError);
    expect(b.waitOf('bot1:send')).toBeLessThanOrEqual(1500);
    expect(b.waitOf('bot1:send')).toBeGreaterThan(1000);
  });

  it('a 429 on one endpoint of one bot holds back that key only; other errors pass through at once', async () => {
    const b = createBackoff({ baseMs: 10_000, maxMs: 10_000, attempts: 1, random: () => 1, sleep: async () => {} });
    await expect(b.run('bot1:details', async () => { throw limited; }, is429)).rejects.toBeInstanceOf(RateLimitedError);
    expect(b.waitOf('bot1:details')).toBeGreaterThan(9000);
    expect(b.waitOf('bot2:details')).toBe(0);
    expect(b.waitOf('bot1:inventory')).toBe(0);
    let calls = 0;
    await expect(b.run('bot2:details', async () => { calls++; throw new Error('boom'); }, is429)).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});
