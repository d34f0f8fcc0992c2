// The one deadline helper: a promise answers within its time, or fails with the caller's error
// (PlatformTimeoutError, DriverTimeoutError, TargetLookupTimeoutError). The timer never outlives
// the race; the late promise is abandoned, not cancelled.

/** Resolves or rejects like `p`, or rejects with `onTimeout()` after `ms`. */
export function withDeadline<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
