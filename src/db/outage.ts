// The database being away (restarting, failing over, unreachable), as one state per pool: the
// first error that says so (isDatabaseUnavailable) logs one warning and starts a probe; the probe
// logs one line when the database answers writes again. Everything that meets such an error
// (requests, the dispatchers, the relay, the job worker, the listeners) notes it here instead of
// logging a line of its own, so an outage is two lines in the log, not one per failed request.
import pg from 'pg';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './database.js';

const PROBE_EVERY_MS = 500;

export interface DatabaseOutage {
  /** Whether the database is known to be away (from the first error until the probe succeeds). */
  readonly down: boolean;
  /** Notes `err` when it says the database is away; returns whether it did (then do not log it). */
  note(err: unknown): boolean;
  /** Stops the probe (the gateway is stopping). */
  stop(): void;
}

const byOwner = new WeakMap<object, DatabaseOutage>();

/**
 * Watches `pool`'s database: idle connections it loses and the errors noted by its users. `owners`
 * (the pool's Kysely instance, …) find it again through noteDatabaseError.
 */
export function watchDatabase(pool: pg.Pool, log: Logger, owners: object[] = []): DatabaseOutage {
  let down = false;
  let since = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  // A fresh connection each time (not the pool's: it may be full of requests waiting), that must
  // be able to write: a standby answering at the address is still "away".
  async function probe(): Promise<void> {
    if (stopped) return;
    const client = new pg.Client({ ...pool.options, connectionTimeoutMillis: 5_000 });
    client.on('error', () => {});
    let back = false;
    try {
      await client.connect();
      const { rows } = await client.query<{ recovery: boolean }>('select pg_is_in_recovery() as recovery');
      back = rows[0]?.recovery === false;
    } catch {
      /* still away */
    } finally {
      await client.end().catch(() => {});
    }
    if (stopped) return;
    if (back) {
      down = false;
      log.warn({ downMs: Date.now() - since }, 'database is back: requests are served again');
      return;
    }
    timer = setTimeout(() => void probe(), PROBE_EVERY_MS);
    timer.unref();
  }

  const outage: DatabaseOutage = {
    get down() {
      return down;
    },
    note(err) {
      if (!isDatabaseUnavailable(err)) return false;
      if (!down && !stopped) {
        down = true;
        since = Date.now();
        const e = err as { code?: string; message?: string };
        log.warn({ code: e.code, reason: e.message }, 'database unavailable: requests answer 503 with Retry-After until it is back');
        timer = setTimeout(() => void probe(), PROBE_EVERY_MS);
        timer.unref();
      }
      return true;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
  // An idle connection ended by the server (a restart's admin shutdown) is the first sign.
  pool.on('error', (err) => void outage.note(err));
  for (const o of [pool, ...owners]) byOwner.set(o, outage);
  return outage;
}

/**
 * Notes `err` on the outage watching `owner` (a pool or its Kysely instance) when it says the
 * database is away; returns whether it does, watched or not (the caller then logs nothing).
 */
export function noteDatabaseError(owner: object | undefined, err: unknown): boolean {
  const outage = owner ? byOwner.get(owner) : undefined;
  return outage ? outage.note(err) : isDatabaseUnavailable(err);
}

/** Whether the database watched for `owner` is known to be away now. */
export function databaseIsDown(owner: object | undefined): boolean {
  return Boolean(owner && byOwner.get(owner)?.down);
}
