// The retention job's handler and start-up: rescheduled first (a failing run does not end the
// chain), then one pruning run (retention-service.ts).
import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { RETENTION_TASKS, scheduleRetention } from './retention-jobs.js';
import { foldAllPurchaseCounts, pruneAll, type RetentionConfig } from './retention-service.js';

export interface RetentionTaskDeps {
  db: Db;
  log: Logger;
  config: RetentionConfig;
}

export function retentionTasks(ctx: RetentionTaskDeps): TaskList {
  return {
    [RETENTION_TASKS.prune]: async (_payload, helpers) => {
      const every = ctx.config.retention.intervalSeconds;
      if (every > 0) await scheduleRetention(ctx.db, every);
      // Paced (RETENTION_BUSY_PERCENT); a stop ends it between batches, the next run carries on.
      const run = await pruneAll(ctx.db, ctx.config, undefined, helpers.abortSignal);
      const total = Object.values(run.deleted).reduce((a, b) => a + (b ?? 0), 0);
      if (total > 0 || run.stopped) ctx.log.info({ deleted: run.deleted, batches: run.batches, ms: run.ms, stopped: run.stopped }, 'retention: old rows pruned');
    },
    // GET /purchase's `total` sums the deltas not folded yet: folded often, they stay few.
    [RETENTION_TASKS.fold]: async () => {
      await scheduleRetention(ctx.db, ctx.config.retention.countFoldSeconds, RETENTION_TASKS.fold);
      await foldAllPurchaseCounts(ctx.db, ctx.config.retention.batchSize);
    },
  };
}

/** Start-up: the first run soon after start (a waiting one keeps its time). */
export async function retentionStartup(ctx: RetentionTaskDeps): Promise<void> {
  if (ctx.config.retention.intervalSeconds > 0) await scheduleRetention(ctx.db, 60);
  await scheduleRetention(ctx.db, ctx.config.retention.countFoldSeconds, RETENTION_TASKS.fold);
}
