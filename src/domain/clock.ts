/** Services take "now" from a clock so tests can move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that runs with the system but can be moved forward (tests, sandbox). */
export class OffsetClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** Fixed-width UTC ISO 8601 with milliseconds (2026-10-06T10:00:12.512Z): sorts as it reads. */
export function isoUtc(d: Date | string | number): string {
  return new Date(d).toISOString();
}
