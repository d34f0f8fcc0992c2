// The one retry rule of platform calls made for a record (a deposit's send, a purchase's dispatch
// attempt): which errors end the record at once (refusals) and which are worth another attempt
// within the record's deadline (a rate limit, a hang-up, a 5xx), and the jittered backoff between
// attempts. Deposits retry inside their create-deposit call (retryWithin); purchases across their
// dispatcher's attempts (retryDelayMs) — both through the rule below.
import { PlatformTimeoutError } from './offers.js';
import { PlatformOfferUncertainError, PlatformUnavailableError, PlatformUserError } from './port.js';

/**
 * A platform error that ends the record at once: `user` (the user's trade link or account refuses
 * the trade), `unavailable` (the platform said no and retrying will not help: no bot for the game,
 * a bot that cannot trade). Anything else — a transient unavailability, a timeout, an offer that
 * may still appear, an error on our side — is worth another attempt while the deadline allows.
 */
export function refusalOf(err: unknown): 'user' | 'unavailable' | undefined {
  if (err instanceof PlatformUserError) return 'user';
  if (err instanceof PlatformUnavailableError && !err.transient) return 'unavailable';
  return undefined;
}

/** The platform said "not now" (a rate limit, a hang-up, a 5xx): another attempt may go through. */
export function isTransient(err: unknown): boolean {
  return err instanceof PlatformUnavailableError && err.transient;
}

/** Whether the platform was asked and did not answer (in time, or at all) — not an error on our side. */
export function platformSilent(err: unknown): boolean {
  return err instanceof PlatformTimeoutError || err instanceof PlatformOfferUncertainError || (err instanceof PlatformUnavailableError && err.transient);
}

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed: "equal jitter"
 * — between half and all of min(capMs, baseMs × 2^(attempt−1)) — so retries of many records spread
 * out instead of hitting the platform together, and never wait longer than the cap.
 */
export function retryDelayMs(attempt: number, opts: { baseMs: number; capMs: number }, random: () => number = Math.random): number {
  return jittered(Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30)), random);
}

/** A wait between half and all of `ceilingMs` (equal jitter). */
export function jittered(ceilingMs: number, random: () => number = Math.random): number {
  return Math.max(1, Math.round(ceilingMs / 2 + (random() * ceilingMs) / 2));
}

/** The real cause of a failure after retries, as stored beside the spec's fail_reason (fail_cause). */
export function causeOf(err: unknown, attempts?: number): string {
  if (err instanceof RetriesExhaustedError) return causeOf(err.last, err.attempts);
  const name = (err as Error)?.constructor?.name ?? 'Error';
  const text = `${name}: ${(err as Error)?.message ?? String(err)}`;
  return (attempts ? `${text} (${attempts} attempt${attempts === 1 ? '' : 's'})` : text).slice(0, 500);
}

export interface RetryWithinOptions {
  /** The record's deadline (ms since the epoch): no attempt starts after it, no wait runs past it. */
  deadline: number;
  baseMs: number;
  capMs: number;
  /** Whether `err` is worth another attempt (default: not a refusal, refusalOf). */
  retryable?: (err: unknown) => boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (err: unknown, attempt: number, waitMs: number) => void;
}

/** The attempts made and the last error, when retryWithin gives up. */
export class RetriesExhaustedError extends Error {
  constructor(readonly last: unknown, readonly attempts: number) {
    super(`${attempts} attempt(s) within the deadline; the last: ${(last as Error)?.message ?? String(last)}`);
  }
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs `fn(remainingMs)` until it answers, throws an error that is not retryable (thrown as is),
 * or the deadline leaves no room for another attempt after the jittered wait: then
 * RetriesExhaustedError with the last error (its real cause) and the count.
 */
export async function retryWithin<T>(fn: (remainingMs: number) => Promise<T>, opts: RetryWithinOptions): Promise<T> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const retryable = opts.retryable ?? ((err: unknown) => refusalOf(err) === undefined);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(Math.max(1, opts.deadline - now()));
    } catch (err) {
      if (!retryable(err)) throw err;
      const wait = retryDelayMs(attempt, opts, opts.random);
      // Another attempt needs the wait and some time of its own (at least one more wait's worth).
      if (now() + 2 * wait >= opts.deadline) throw new RetriesExhaustedError(err, attempt);
      opts.onRetry?.(err, attempt, wait);
      await sleep(wait);
    }
  }
}
