// Retry timing. Pure: randomness and "now" are parameters.
//
// WEBHOOK_RETRY_SCHEDULE lists the seconds before each attempt: entry 0 before the first (the
// outbox queues it at once; a non-zero entry 0 is not waited for), entry k before attempt k+1.
// So the number of attempts is the length of the schedule.

/** Retry-After is honoured up to a day: a receiver must not park an event for a week. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** ±10% jitter so that a receiver coming back is not hit by every queued event at once; never negative. */
export function withJitter(seconds: number, random: () => number = Math.random): number {
  const ms = seconds * 1000;
  const factor = 1 + (random() * 2 - 1) * 0.1;
  return Math.max(0, Math.round(ms * factor));
}

/** Retry-After as seconds or an HTTP date → milliseconds from now (capped), or undefined when absent/invalid. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const s = raw.trim();
  if (s === '') return undefined;
  let ms: number;
  if (/^\d+$/.test(s)) {
    ms = Number(s) * 1000;
  } else {
    const at = Date.parse(s);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_SECONDS * 1000);
}

export interface RetryDecisionInput {
  schedule: number[];
  /** Attempts made so far, the failed one included. */
  attemptsDone: number;
  /** null: as many attempts as the schedule has entries. */
  maxAttempts: number | null;
  statusCode: number | null;
  retryAfterHeader?: string | string[];
  nowMs: number;
  random?: () => number;
}

export type RetryDecision = { exhausted: true } | { exhausted: false; delayMs: number };

/** After a failed attempt: exhausted, or the delay before the next one. */
export function nextRetry(input: RetryDecisionInput): RetryDecision {
  const max = input.maxAttempts ?? input.schedule.length;
  if (input.attemptsDone >= max) return { exhausted: true };
  const idx = Math.min(input.attemptsDone, input.schedule.length - 1);
  let delayMs = withJitter(input.schedule[idx] ?? 0, input.random);
  // 429 / 503: the receiver says when it can take more; never earlier than that, never later than the cap.
  if (input.statusCode === 429 || input.statusCode === 503) {
    const ra = parseRetryAfter(input.retryAfterHeader, input.nowMs);
    if (ra !== undefined) delayMs = Math.max(delayMs, ra); // ra is already capped
  }
  return { exhausted: false, delayMs };
}

/** Only 2xx acknowledges a webhook; 3xx (redirects are not followed) and everything else is a failure. */
export function isAcknowledged(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}
