// Jobs are added with SQL inside the caller's transaction (graphile_worker.add_job), so a state
// change and the work it implies commit or roll back together: the transactional outbox.
// Task names and payload types are declared by each feature's `<feature>-jobs.ts` through
// graphile-worker's `GraphileWorker.Tasks` declaration merging, so a job is added only under a
// declared name with its payload's type.
import type {} from 'graphile-worker';
import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

export type TaskName = keyof GraphileWorker.Tasks;
export type PayloadOf<T extends TaskName> = GraphileWorker.Tasks[T];

export interface JobOptions {
  runAt?: Date;
  jobKey?: string;
  /** 'replace' (default) moves a pending keyed job; 'preserve_run_at' keeps its time. */
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe';
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
}

export async function addJob<T extends TaskName>(db: Trx | Db, task: T, payload: PayloadOf<T>, opts: JobOptions = {}): Promise<void> {
  await sql`select graphile_worker.add_job(
      identifier => ${task}::text,
      payload => ${JSON.stringify(payload ?? {})}::json,
      queue_name => ${opts.queueName ?? null}::text,
      run_at => ${opts.runAt ? opts.runAt.toISOString() : null}::timestamptz,
      max_attempts => ${opts.maxAttempts ?? null}::int,
      job_key => ${opts.jobKey ?? null}::text,
      priority => ${opts.priority ?? null}::int,
      job_key_mode => ${opts.jobKey ? (opts.jobKeyMode ?? 'replace') : null}::text
    )`.execute(db);
}

export type JobSpec = {
  [T in TaskName]: { task: T; payload: PayloadOf<T>; opts?: Omit<JobOptions, 'jobKeyMode'> };
}[TaskName];

/**
 * Several jobs in one round trip (graphile_worker.add_jobs), each exactly as addJob would add it
 * with the default job_key_mode 'replace': a pending job with the same key is replaced, a running
 * one keeps running and a new job is added. The jobs commit or roll back with `db`'s transaction.
 */
export async function addJobs(db: Trx | Db, jobs: JobSpec[]): Promise<void> {
  if (jobs.length === 0) return;
  const specs = jobs.map(
    ({ task, payload, opts = {} }) => sql`row(
      ${task}::text,
      ${JSON.stringify(payload ?? {})}::json,
      ${opts.queueName ?? null}::text,
      ${opts.runAt ? opts.runAt.toISOString() : null}::timestamptz,
      ${opts.maxAttempts ?? null}::smallint,
      ${opts.jobKey ?? null}::text,
      ${opts.priority ?? null}::smallint,
      null::text[]
    )::graphile_worker.job_spec`,
  );
  await sql`select 1 from graphile_worker.add_jobs(array[${sql.join(specs)}], false)`.execute(db);
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
