// Reconciliation's job: one keyed run for all instances, rescheduled by itself every RECONCILE_SECONDS.
import type { Db, Trx } from '../../db/database.js';
import { addJob } from '../../jobs/enqueue.js';

export const RECONCILE_TASKS = { run: 'reconcile_run' } as const;

declare global {
  namespace GraphileWorker {
    interface Tasks {
      reconcile_run: Record<string, never>;
    }
  }
}

/** The next run in `seconds`; preserve_run_at keeps an earlier waiting one. */
export function scheduleReconcile(db: Db | Trx, seconds: number): Promise<void> {
  return addJob(db, RECONCILE_TASKS.run, {}, { jobKey: RECONCILE_TASKS.run, jobKeyMode: 'preserve_run_at', runAt: new Date(Date.now() + seconds * 1000) });
}
