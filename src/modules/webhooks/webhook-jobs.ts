// Webhook maintenance jobs, each one keyed job for all instances that reschedules itself:
// `webhook_sweep` (attempts lost with their instance) and `webhook_prune` (retention).
// Delivery is not a job: the per-instance dispatcher sends (dispatcher.ts).
import type { Db, Trx } from '../../db/database.js';
import { addJob } from '../../jobs/enqueue.js';

export const WEBHOOK_SWEEP_TASK = 'webhook_sweep';
export const WEBHOOK_PRUNE_TASK = 'webhook_prune';
export const WEBHOOK_PRUNE_EVERY_MS = 3_600_000;

declare global {
  namespace GraphileWorker {
    interface Tasks {
      webhook_sweep: Record<string, never>;
      webhook_prune: Record<string, never>;
    }
  }
}

/**
 * Keeps one maintenance job of `task` waiting at `runAt` (an earlier waiting one is kept), in a
 * queue of its own: a run due while the last still runs (a paced prune of a backlog) waits for it.
 */
export async function scheduleMaintenance(db: Db | Trx, task: typeof WEBHOOK_SWEEP_TASK | typeof WEBHOOK_PRUNE_TASK, runAt: Date): Promise<void> {
  await addJob(db, task, {}, { jobKey: task, jobKeyMode: 'preserve_run_at', runAt, queueName: task });
}
