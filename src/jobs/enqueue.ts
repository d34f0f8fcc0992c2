// Jobs are added with SQL inside the caller's transaction (graphile_worker.add_job), so a state
// change and the work it implies commit or roll back together: the transactional outbox.
import { sql } from 'kysely';
import type { Trx } from '../modules/ledger/ledger-repo.js';
import type { Db } from '../db/database.js';

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
