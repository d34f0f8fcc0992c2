// Rate limits (429, no Retry-After) per bot and endpoint: exponential backoff with full jitter.
// A 429 on one endpoint of one bot makes every later call to that endpoint of that bot wait out
// the same window, so a burst of requests does not keep hammering the platform.

export class RateLimitedError extends Error {
  constructor(readonly endpoint: string) {
    super(`rate limited by the platform (${endpoint})`);
  }
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Attempts per call, the first included. */
  attempts: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export function createBackoff(opts: BackoffOptions) {
  const random = opts.random ?? Math.random;
  const sleep = opts.sleep ?? realSleep;
  /** endpoint key → { blocked until (ms epoch), consecutive 429s } */
  const state = new Map<string, { until: number; streak: number }>();

  function delayFor(streak: number): number {
    const cap = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(streak, 30));
    return Math.max(1, Math.round(random() * cap));
  }

  return {
    /** The wait (ms) the next call to `key` would have: 0 when not backing off. */
    waitOf(key: string): number {
      const s = state.get(key);
      return s ? Math.max(0, s.until - Date.now()) : 0;
    },
    /**
     * Runs `fn` for `key`, waiting out the key's window first; when `isRateLimited(err)`, backs off
     * and tries again, up to `attempts` in all, then throws RateLimitedError. Other errors pass through.
     */
    async run<T>(key: string, fn: () => Promise<T>, isRateLimited: (err: unknown) => boolean): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const wait = this.waitOf(key);
        if (wait > 0) await sleep(wait);
        try {
          const out = await fn();
          state.delete(key);
          return out;
        } catch (err) {
          if (!isRateLimited(err)) throw err;
          const s = state.get(key) ?? { until: 0, streak: 0 };
          s.until = Date.now() + delayFor(s.streak);
          s.streak += 1;
          state.set(key, s);
          if (attempt >= opts.attempts) throw new RateLimitedError(key);
        }
      }
    },
  };
}

export type Backoff = ReturnType<typeof createBackoff>;
