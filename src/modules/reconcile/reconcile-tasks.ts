// Reconciliation's job handler and start-up (the daily schedule).
import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { ReconcileService } from './reconcile-service.js';
import { RECONCILE_TASKS, scheduleReconcile } from './reconcile-jobs.js';

export interface ReconcileTaskDeps {
  db: Db;
  log: Logger;
  config: Pick<Config, 'reconcile'>;
  reconcile: ReconcileService;
}

export function reconcileTasks(ctx: ReconcileTaskDeps): TaskList {
  return {
    [RECONCILE_TASKS.run]: async () => {
      try {
        const r = await ctx.reconcile.run();
        if (r.total > 0 || r.read_errors.length > 0) {
          ctx.log.warn({ runId: r.run_id, discrepancies: r.total, readErrors: r.read_errors }, 'reconciliation: the records and the platform disagree; see GET /api/admin/reconciliation or the console');
        }
      } finally {
        if (ctx.config.reconcile.intervalSeconds > 0) await scheduleReconcile(ctx.db, ctx.config.reconcile.intervalSeconds);
      }
    },
  };
}

export async function reconcileStartup(ctx: ReconcileTaskDeps): Promise<void> {
  if (ctx.config.reconcile.intervalSeconds > 0) await scheduleReconcile(ctx.db, ctx.config.reconcile.intervalSeconds);
}
