// Polls one price source on its own timer: the source's interval after a success; after a failure
// the longer of what the source asked for (429 Retry-After) and an exponential backoff (interval ×
// 2^failures, at most maxBackoffMs). A partial answer is applied before backing off. Never throws.
import type { Logger } from 'pino';
import { SourceError, type PollResult, type PriceSource } from './source.js';

export interface PollerState {
  id: string;
  lastSuccessAt?: number;
  lastError?: string;
  failures: number;
  nextPollAt?: number;
  /** set while a poll runs (fetch, parse, readings taken): the admin API's refresh state */
  busySince?: number;
}

export function backoffMs(intervalMs: number, failures: number, maxBackoffMs: number, asked?: number): number {
  const exp = Math.min(maxBackoffMs, intervalMs * 2 ** Math.min(failures, 20));
  return Math.max(asked ?? 0, exp);
}

/** onResult is awaited (the next poll waits for the readings to be taken); it must not throw. */
export function createPoller(source: PriceSource, onResult: (r: PollResult, ok: boolean) => void | Promise<void>, log: Logger, opts: { maxBackoffMs: number }) {
  const state: PollerState = { id: source.id, failures: 0 };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  let current: Promise<number> | undefined;
  /** One poll at a time: asked for while one runs (the timer's, or an operator's), the running one answers. */
  function once(): Promise<number> {
    current ??= poll().finally(() => {
      current = undefined;
      state.busySince = undefined;
    });
    return current;
  }

  async function poll(): Promise<number> {
    const started = Date.now();
    state.busySince = started;
    let r: PollResult;
    try {
      r = await source.poll();
    } catch (err) {
      const e = err instanceof SourceError ? err : new SourceError((err as Error).message);
      if (e.partial && e.partial.readings.length > 0) await onResult(e.partial, false);
      state.failures++;
      state.lastError = e.message;
      const wait = backoffMs(source.intervalMs, state.failures, source.maxBackoffMs ?? opts.maxBackoffMs, e.retryAfterMs);
      log.warn({ source: source.id, failures: state.failures, retryInMs: wait, err: e.message }, 'price source poll failed; backing off');
      return wait;
    }
    state.failures = 0;
    state.lastSuccessAt = Date.now();
    state.lastError = undefined;
    await onResult(r, true);
    return Math.max(0, source.intervalMs - (Date.now() - started)); // the interval is poll to poll
  }

  function schedule(ms: number) {
    if (stopped) return;
    state.nextPollAt = Date.now() + ms;
    timer = setTimeout(() => {
      running = once().then(schedule);
    }, ms);
    timer.unref();
  }

  return {
    state,
    /** First poll at once, in the background (start-up never waits for a source). */
    start(): void {
      this.startAfter(0);
    },
    /** First poll after ms (a source just read at start-up). */
    startAfter(ms: number): void {
      if (!stopped) return;
      stopped = false;
      schedule(ms);
    },
    /** One poll now (tests, operator refresh); the timer goes on. */
    pollNow: once,
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export type Poller = ReturnType<typeof createPoller>;
