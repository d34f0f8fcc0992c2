// The pacing of the batched prunes (pacing.ts): the pause a batch earns, and a stop between batches.
import { describe, expect, it } from 'vitest';
import { pacer, type PacingClock } from './pacing.js';

/** A clock that moves only when told, and records the pauses asked of it. */
function fakeClock() {
  let t = 0;
  const pauses: number[] = [];
  const clock: PacingClock = {
    now: () => t,
    sleep: async (ms) => {
      pauses.push(ms);
      t += ms;
    },
  };
  return { clock, pauses, spend: (ms: number) => void (t += ms) };
}

describe('pacer', () => {
  it('waits after each batch so that the loop is busy at most its percent of the time', async () => {
    const { clock, pauses, spend } = fakeClock();
    const pace = pacer(25, undefined, clock);
    spend(30);
    expect(await pace.next()).toBe(true);
    spend(10);
    expect(await pace.next()).toBe(true);
    // 25 %: a 30 ms batch earns 90 ms, a 10 ms batch 30 ms (the pause itself is not busy time).
    expect(pauses).toEqual([90, 30]);
  });

  it('at 100 % never waits, and clamps a percent outside 1–100', async () => {
    const full = fakeClock();
    const pace = pacer(100, undefined, full.clock);
    full.spend(50);
    expect(await pace.next()).toBe(true);
    expect(full.pauses).toEqual([]);

    const over = fakeClock();
    const clamped = pacer(250, undefined, over.clock);
    over.spend(50);
    await clamped.next();
    expect(over.pauses).toEqual([]);

    const under = fakeClock();
    const least = pacer(0, undefined, under.clock); // 1 %: 99 ms a busy ms
    under.spend(2);
    await least.next();
    expect(under.pauses).toEqual([198]);
  });

  it('restart() leaves out what ran before it', async () => {
    const { clock, pauses, spend } = fakeClock();
    const pace = pacer(50, undefined, clock);
    spend(1000); // not a batch (a count of pages, say)
    pace.restart();
    spend(20);
    await pace.next();
    expect(pauses).toEqual([20]);
  });

  it('says stop once its signal aborted, before or during the pause', async () => {
    const before = new AbortController();
    const a = fakeClock();
    const pace = pacer(25, before.signal, a.clock);
    before.abort();
    a.spend(10);
    expect(await pace.next()).toBe(false);
    expect(a.pauses).toEqual([]); // no pause when already stopping

    const during = new AbortController();
    const b = fakeClock();
    const stopsInPause: PacingClock = { now: b.clock.now, sleep: async (ms, signal) => { await b.clock.sleep(ms, signal); during.abort(); } };
    const paced = pacer(25, during.signal, stopsInPause);
    b.spend(10);
    expect(await paced.next()).toBe(false);
  });

  it("the real clock's pause ends when the signal aborts", async () => {
    const stop = new AbortController();
    const pace = pacer(1, stop.signal); // a pause 99 times the batch
    const busyUntil = performance.now() + 20;
    while (performance.now() < busyUntil); // a 20 ms batch: about 2 s of pause earned
    const next = pace.next();
    stop.abort();
    // The abort resolves the pause in this turn; a timer of half the pause can only win without it.
    const late = new Promise<'late'>((r) => setTimeout(() => r('late'), 1000).unref());
    await expect(Promise.race([next, late])).resolves.toBe(false);
  });
});
