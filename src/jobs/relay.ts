// The job relay: moves committed job_outbox rows into graphile-worker (job_outbox_relay, migration
// 012: one transaction per batch, in id order, the rows deleted with the add_jobs that adds them).
// Woken in-process right after a transaction of this instance that wrote the outbox commits
// (poke(); coalesced: while a pass runs, any number of pokes make one more pass), and every
// JOB_RELAY_POLL_MS for rows written by other instances, the CLI, or before a crash. Relays of
// several instances serialise in the database (an advisory lock only they take).
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { noteDatabaseError } from '../db/outage.js';
import { coalesced } from './passes.js';

/** Rows per relay transaction. */
export const RELAY_BATCH = 500;

export interface JobRelay {
  /** Wake the relay: a transaction that wrote outbox rows has committed. */
  poke(): void;
  /** Resolves once every outbox row committed before the call has been moved (tests, shutdown). */
  flush(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export function createJobRelay(deps: { db: Db; log: Pick<Logger, 'warn'>; pollMs: number }): JobRelay {
  const { db, log, pollMs } = deps;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  let stopped = false;

  async function pass(): Promise<number> {
    const r = await sql<{ n: number }>`select job_outbox_relay(${RELAY_BATCH}::int) as n`.execute(db);
    return Number(r.rows[0].n);
  }

  const passes = coalesced(
    async () => {
      while ((await pass()) >= RELAY_BATCH);
      failing = false;
    },
    (err) => {
      // The rows stay in the outbox; the next poke or poll tries again. Log a run of failures once.
      if (!failing && !noteDatabaseError(db, err)) log.warn({ err }, 'job relay: moving outbox rows into the job queue failed; retrying');
      failing = true;
    },
  );

  const run = (): Promise<void> => (stopped ? Promise.resolve() : passes.run());

  return {
    poke() {
      void run();
    },
    async flush() {
      // A pass already running may have read the outbox before the caller's rows committed.
      await passes.idle();
      await run();
    },
    start() {
      if (timer) return;
      timer = setInterval(() => void run(), pollMs);
      timer.unref();
      void run();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await passes.idle();
    },
  };
}
