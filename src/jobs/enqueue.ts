// Jobs are added with SQL inside the caller's transaction (graphile_worker.add_job), so a state
// change and the work it implies commit or roll back together: the transactional outbox.
import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

export interface JobOptions {
  runAt?: Date;
  jobKey?: string;
  /** 'replace' (default) moves a pending keyed job; 'preserve_run_at' keeps its time. */
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe';
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
}

export async function addJob(db: Trx | Db, task: string, payload: unknown, opts: JobOptions = {}): Promise<void> {
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

export interface JobSpec {
  task: string;
  payload: unknown;
  opts?: Omit<JobOptions, 'jobKeyMode'>;
}

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
