// The retention job: one keyed job for all instances, rescheduled by itself every
// RETENTION_INTERVAL_SECONDS; handler in retention-tasks.ts, SQL in retention-repo.ts.
import type { Db, Trx } from '../../db/database.js';
import { addJob } from '../../jobs/enqueue.js';

export const RETENTION_TASKS = {
  prune: 'retention_prune',
  fold: 'purchase_counts_fold',
} as const;

declare global {
  namespace GraphileWorker {
    interface Tasks {
      retention_prune: Record<string, never>;
      purchase_counts_fold: Record<string, never>;
    }
  }
}

/**
 * The next run in `seconds`; preserve_run_at keeps an earlier waiting one. A queue of its own: a
 * run that comes due while the last still runs (a paced prune of a backlog can outlast the
 * interval) waits for it, rather than pruning beside it at twice the pace.
 */
export function scheduleRetention(db: Db | Trx, seconds: number, task: (typeof RETENTION_TASKS)[keyof typeof RETENTION_TASKS] = RETENTION_TASKS.prune): Promise<void> {
  return addJob(db, task, {}, {
    jobKey: task,
    queueName: task,
    jobKeyMode: 'preserve_run_at',
    runAt: new Date(Date.now() + seconds * 1000),
  });
}
