import { describe, expect, it } from 'vitest';
import { CommitTaps } from '../db/commit-taps.js';
import { coalesced, InFlight, wakeUps } from './passes.js';

/** A pass that waits until released, counting how many started. */
function gatedPass() {
  let started = 0;
  const gates: Array<() => void> = [];
  return {
    pass: () => {
      started++;
      return new Promise<void>((r) => gates.push(r));
    },
    started: () => started,
    release: async () => {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('coalesced passes', () => {
  it('one pass at a time; any number of calls during a pass make exactly one more', async () => {
    const g = gatedPass();
    const c = coalesced(g.pass, () => {});
    const first = c.run();
    await new Promise((r) => setImmediate(r));
    expect(g.started()).toBe(1);
    const more = [c.run(), c.run(), c.run()];
    expect(g.started()).toBe(1);
    await g.release();
    expect(g.started()).toBe(2);
    await g.release();
    await Promise.all([first, ...more]);
    expect(g.started()).toBe(2);
    // idle again: the next call starts a pass at once
    void c.run();
    await new Promise((r) => setImmediate(r));
    expect(g.started()).toBe(3);
    await g.release();
    await c.idle();
  });

  it('a failed pass goes to onError, the call resolves, and the next call runs again', async () => {
    const errors: unknown[] = [];
    let n = 0;
    const c = coalesced(async () => {
      n++;
      if (n === 1) throw new Error('database gone');
    }, (e) => errors.push(e));
    await expect(c.run()).resolves.toBeUndefined();
    expect(errors.map((e) => (e as Error).message)).toEqual(['database gone']);
    await c.run();
    expect(n).toBe(2);
  });

  it('a pass with nothing to await still clears, so the next call runs', async () => {
    let n = 0;
    const c = coalesced(async () => void n++, () => {});
    await c.run();
    await c.run();
    await c.idle();
    expect(n).toBe(2);
  });

  it('idle waits for the passes asked for meanwhile', async () => {
    const g = gatedPass();
    const c = coalesced(g.pass, () => {});
    void c.run();
    void c.run();
    let idle = false;
    const waiting = c.idle().then(() => (idle = true));
    await g.release();
    expect(idle).toBe(false);
    await g.release();
    await waiting;
    expect(g.started()).toBe(2);
  });
});

describe('wake-ups', () => {
  it('wakes after a commit naming the marker and on the poll, counting each; stopped, neither', async () => {
    const taps = new CommitTaps();
    const counts = { commitWakes: 0, pollWakes: 0 };
    let wakes = 0;
    let polls = 0;
    const stop = wakeUps({ taps, marker: 'outbox_marker', pollMs: 20, wake: () => wakes++, counts, onPoll: () => polls++ });
    CommitTaps.fire(taps.matching('insert into t /* outbox_marker */') ?? []);
    CommitTaps.fire(taps.matching('insert into other') ?? []);
    expect(counts.commitWakes).toBe(1);
    await new Promise((r) => setTimeout(r, 70));
    expect(counts.pollWakes).toBeGreaterThanOrEqual(1);
    expect(polls).toBe(counts.pollWakes);
    expect(wakes).toBe(counts.commitWakes + counts.pollWakes);
    stop();
    const before = wakes;
    CommitTaps.fire(taps.matching('/* outbox_marker */') ?? []);
    await new Promise((r) => setTimeout(r, 50));
    expect(wakes).toBe(before);
  });
});

describe('in flight', () => {
  it('untilNone resolves at once when nothing is in flight, else when the last finishes', async () => {
    const f = new InFlight();
    await f.untilNone();
    f.add(3);
    let none = false;
    const waiting = f.untilNone().then(() => (none = true));
    f.done(2);
    await new Promise((r) => setImmediate(r));
    expect(none).toBe(false);
    f.done(1);
    await waiting;
    expect(f.count).toBe(0);
  });

  it('with a bound, gives up waiting after it', async () => {
    const f = new InFlight();
    f.add(1);
    const t0 = Date.now();
    await f.untilNone(50);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(f.count).toBe(1);
  });
});
