// Job handlers: `webhook_sweep` (every WEBHOOK_SWEEP_INTERVAL_MS) records attempts lost with their
// instance as interrupted and schedules their retries; `webhook_prune` (hourly) deletes delivered events past WEBHOOK_RETENTION_DAYS.
// The two maintenance jobs are one keyed job each for all instances, rescheduled by themselves
// (first thing, so a failing run does not end the chain) and by every instance's start-up.
import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { WebhookService } from './webhook-service.js';
import { scheduleMaintenance, WEBHOOK_PRUNE_EVERY_MS, WEBHOOK_PRUNE_TASK, WEBHOOK_SWEEP_TASK } from './webhook-jobs.js';

/** What the webhook jobs use. */
export interface WebhookTaskDeps {
  db: Db;
  log: Logger;
  config: Pick<Config, 'webhookSweepIntervalMs' | 'webhookRetentionDays'>;
  webhooks: WebhookService;
}

const nextSweep = (ctx: WebhookTaskDeps) => new Date(Date.now() + ctx.config.webhookSweepIntervalMs);
const nextPrune = () => new Date(Date.now() + WEBHOOK_PRUNE_EVERY_MS);

export const webhookTasks = (ctx: WebhookTaskDeps): TaskList => ({
  [WEBHOOK_SWEEP_TASK]: async () => {
    await scheduleMaintenance(ctx.db, WEBHOOK_SWEEP_TASK, nextSweep(ctx));
    await ctx.webhooks.sweep();
  },
  [WEBHOOK_PRUNE_TASK]: async (_payload, helpers) => {
    await scheduleMaintenance(ctx.db, WEBHOOK_PRUNE_TASK, nextPrune());
    // Paced (RETENTION_BUSY_PERCENT); a stop ends it between batches, the next run carries on.
    const n = await ctx.webhooks.prune(undefined, helpers.abortSignal);
    if (n > 0) ctx.log.info({ pruned: n, retentionDays: ctx.config.webhookRetentionDays }, 'delivered webhook events pruned');
  },
});

/** Start-up: make sure both maintenance jobs are scheduled (a waiting one keeps its time). */
export async function webhookStartup(ctx: WebhookTaskDeps): Promise<void> {
  await scheduleMaintenance(ctx.db, WEBHOOK_SWEEP_TASK, new Date());
  await scheduleMaintenance(ctx.db, WEBHOOK_PRUNE_TASK, new Date());
}
