// Background passes over the database (the job relay, the purchase and webhook dispatchers): one
// pass at a time per instance, woken after the commits that give it work and by a poll.
import type { CommitTaps } from '../db/commit-taps.js';

export interface Coalesced {
  /**
   * Runs a pass now, or — while one runs — one more after it: any number of calls meanwhile make
   * one more pass, so a wake-up that arrives after the running pass has read is never lost.
   * Resolves when the passes are done (never rejects: a failed pass goes to `onError`).
   */
  run(): Promise<void>;
  /** Resolves once no pass runs (including the passes asked for meanwhile). */
  idle(): Promise<void>;
}

export function coalesced(pass: () => Promise<void>, onError: (err: unknown) => void): Coalesced {
  let running: Promise<void> | undefined;
  let again = false;

  async function passes(): Promise<void> {
    try {
      do {
        again = false;
        await pass();
      } while (again);
    } catch (err) {
      onError(err);
    }
  }

  return {
    run() {
      if (running) {
        again = true;
        return running;
      }
      // Set before the first pass starts and cleared only after the last ends (an async function
      // with nothing to await would otherwise finish before the assignment, leaving it set).
      let finish!: () => void;
      running = new Promise<void>((r) => (finish = r));
      void passes().finally(() => {
        running = undefined;
        finish();
      });
      return running;
    },
    async idle() {
      while (running) await running;
    },
  };
}

/** Work a pass handed out and not yet finished (a dispatcher's claimed rows), and who waits for none. */
export class InFlight {
  count = 0;
  private readonly waiters = new Set<() => void>();

  add(n: number): void {
    this.count += n;
  }

  done(n: number): void {
    this.count -= n;
    if (this.count === 0) for (const w of [...this.waiters]) w();
  }

  /** Resolves when nothing is in flight (at once if nothing is), or after `maxMs` when given. */
  untilNone(maxMs?: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const w = () => {
        this.waiters.delete(w);
        clearTimeout(timer);
        resolve();
      };
      this.waiters.add(w);
      if (maxMs !== undefined) timer = setTimeout(w, maxMs).unref();
    });
  }
}

/** How often each wake-up fired (tests assert the commit, not the poll, woke a consumer). */
export interface WakeCounts {
  commitWakes: number;
  pollWakes: number;
}

/**
 * Calls `wake` after each commit of this instance whose SQL named `marker`, and every `pollMs`
 * (what other instances wrote, retries come due; `onPoll` first), counting each in `counts`.
 * Returns the function that stops both.
 */
export function wakeUps(o: { taps: CommitTaps; marker: string; pollMs: number; wake: () => void; counts: WakeCounts; onPoll?: () => void }): () => void {
  const untap = o.taps.on(o.marker, () => {
    o.counts.commitWakes++;
    o.wake();
  });
  const timer = setInterval(() => {
    o.counts.pollWakes++;
    o.onPoll?.();
    o.wake();
  }, o.pollMs);
  timer.unref();
  return () => {
    untap();
    clearInterval(timer);
  };
}
