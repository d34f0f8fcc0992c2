// Pacing of the maintenance loops that delete in batches (retention, the webhook and request-log
// prunes). Unpaced, a loop with a large backlog — a first start on an old database, a retention
// setting lowered — runs its statements back to back for as long as the backlog lasts: on the
// 2-core bench machine a backlog of 28 M webhook events took one core for half an hour, with
// autovacuum and the WAL behind it, and every request path ran at half its rate meanwhile
// (bench/RESULTS.md). Paced, a loop is busy at most `percent` of its wall time (the idea
// of PostgreSQL's vacuum_cost_delay, by time rather than by page cost): after a batch that took
// t ms it waits t × (100 − percent) / percent ms. It stops between batches once `signal` aborts (a
// stop); the deletes are idempotent, so the next run carries on where this one ended.

export interface PacingClock {
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: PacingClock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface Pacer {
  /**
   * Call after each batch: waits the pause the batch earned, then says whether to run the next
   * (false: the signal aborted, stop now).
   */
  next(): Promise<boolean>;
  /** Starts the clock of the next batch anew (after work that is not a batch, e.g. a count). */
  restart(): void;
  /** How long the current batch has run so far, ms (from the last next() or restart()). */
  elapsed(): number;
}

/** A pacer that keeps its loop busy at most `percent` (1–100) of the time; 100 never waits. */
export function pacer(percent: number, signal?: AbortSignal, clock: PacingClock = realClock): Pacer {
  const share = Math.min(100, Math.max(1, percent)) / 100;
  let started = clock.now();
  const elapsed = () => clock.now() - started;
  return {
    async next() {
      if (signal?.aborted) return false;
      const busy = elapsed();
      if (share < 1 && busy > 0) await clock.sleep((busy * (1 - share)) / share, signal);
      started = clock.now();
      return !signal?.aborted;
    },
    restart() {
      started = clock.now();
    },
    elapsed,
  };
}
