// Jobs are added to the job outbox (job_outbox) in the caller's transaction, so a state change
// and the work it implies commit or roll back together: the transactional outbox. No
// graphile_worker.add_job here: its NOTIFY would take PostgreSQL's cluster-wide commit lock in every
// business transaction. The relay (relay.ts) moves committed rows into graphile-worker in id order,
// woken right after the commit (an after-commit tap on `job_outbox`, see src/db/commit-taps.ts)
// and by a short poll; given the Db rather than a transaction, the row commits at once.
//
// Keyed jobs: rows are moved in id order, and ids are given at insert, not at commit. Two
// transactions writing the same job key in 'replace' mode must therefore be ordered by a lock they
// share (every keyed job of a deposit or purchase is written under that record's row lock), else
// the older spec may land last; add_job used to make the second writer wait on the key instead.
// Task names and payload types are declared by each feature's `<feature>-jobs.ts` through
// graphile-worker's `GraphileWorker.Tasks` declaration merging, so a job is added only under a
// declared name with its payload's type.
import type {} from 'graphile-worker';
import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

/**
 * Every statement that writes the outbox carries this comment; the relay's after-commit tap looks
 * for it (the relay's own statements name the table, not this, so they do not wake it again).
 */
export const JOB_OUTBOX = '/* job_outbox:write */';

export type TaskName = keyof GraphileWorker.Tasks;
export type PayloadOf<T extends TaskName> = GraphileWorker.Tasks[T];

export interface JobOptions {
  runAt?: Date;
  jobKey?: string;
  /** 'replace' (default) moves a pending keyed job; 'preserve_run_at' keeps its time. */
  jobKeyMode?: 'replace' | 'preserve_run_at';
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
}

export type JobSpec = {
  [T in TaskName]: { task: T; payload: PayloadOf<T>; opts?: JobOptions };
}[TaskName];

/** One outbox row's values, in the column order of the inserts below. */
export function outboxValues({ task, payload, opts = {} }: JobSpec) {
  return sql`(
      ${task}::text,
      ${JSON.stringify(payload ?? {})}::json,
      ${opts.queueName ?? null}::text,
      ${opts.runAt ? opts.runAt.toISOString() : null}::timestamptz,
      ${opts.maxAttempts ?? null}::smallint,
      ${opts.jobKey ?? null}::text,
      ${opts.priority ?? null}::smallint,
      ${opts.jobKey !== undefined && opts.jobKeyMode === 'preserve_run_at'}::boolean
    )`;
}

export const OUTBOX_COLUMNS = sql.raw('job_outbox (task, payload, queue_name, run_at, max_attempts, job_key, priority, preserve_run_at)');

/**
 * Adds a job as graphile_worker.add_job would (a keyed job: 'replace' moves a waiting job with the
 * same key, a running one keeps running and a new one is added), through the outbox: it reaches
 * graphile-worker after `db`'s transaction commits.
 */
export async function addJob<T extends TaskName>(db: Trx | Db, task: T, payload: PayloadOf<T>, opts: JobOptions = {}): Promise<void> {
  await addJobs(db, [{ task, payload, opts } as JobSpec]);
}

/**
 * The outbox rows of `jobs` as plain records, for SQL functions that insert them from JSON
 * (jsonb_to_recordset: src/db/functions/deposit_transition_batch.sql).
 */
export function outboxRecords(jobs: JobSpec[]) {
  return jobs.map(({ task, payload, opts = {} }) => ({
    task,
    payload: payload ?? {},
    queue_name: opts.queueName ?? null,
    run_at: opts.runAt ? opts.runAt.toISOString() : null,
    max_attempts: opts.maxAttempts ?? null,
    job_key: opts.jobKey ?? null,
    priority: opts.priority ?? null,
    preserve_run_at: opts.jobKey !== undefined && opts.jobKeyMode === 'preserve_run_at',
  }));
}

/** Several jobs in one round trip, in order, each exactly as addJob would add it. */
export async function addJobs(db: Trx | Db, jobs: JobSpec[]): Promise<void> {
  if (jobs.length === 0) return;
  await sql`${sql.raw(JOB_OUTBOX)} insert into ${OUTBOX_COLUMNS} values ${sql.join(jobs.map(outboxValues))}`.execute(db);
}

/**
 * A positive integer id field of a stored payload, or undefined. Payloads are read back from the
 * database, so a handler checks them rather than trusting the declared type.
 */
export function idField(payload: unknown, field: string): number | undefined {
  const v = (payload as Record<string, unknown> | null)?.[field];
  const id = typeof v === 'string' && v !== '' ? Number(v) : v;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** A non-empty string field of a stored payload, or undefined. */
export function stringField(payload: unknown, field: string): string | undefined {
  const v = (payload as Record<string, unknown> | null)?.[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
