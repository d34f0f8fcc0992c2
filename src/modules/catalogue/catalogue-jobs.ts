// The catalogue feature's jobs: listing the items of completed deposits, and pruning the change
// feed. Task names, payload types, job keys and schedule…() functions; handlers: catalogue-tasks.ts.
import type { Db, Trx } from '../../db/database.js';
import { addJob } from '../../jobs/enqueue.js';

export const CATALOGUE_TASKS = {
  /**
   * Lists the items of a completed deposit. No longer enqueued (the completing transaction lists
   * them: SQL catalogue_add_deposit_items); run for the jobs an older version queued.
   */
  addDepositItems: 'catalogue_add_deposit_items',
  /** Prunes the change feed; one keyed job for all instances, rescheduled by itself. */
  eventsPrune: 'catalogue_events_prune',
  /** Lists the bots' stock (bot-stock.ts); one keyed job for all instances, rescheduled by itself every BOT_SYNC_SECONDS. */
  botStockSync: 'catalogue_bot_stock_sync',
} as const;

const PRUNE_EVERY_SECONDS = 3600;

declare global {
  namespace GraphileWorker {
    interface Tasks {
      catalogue_add_deposit_items: { deposit_id: number };
      catalogue_events_prune: Record<string, never>;
      catalogue_bot_stock_sync: Record<string, never>;
    }
  }
}

export const catalogueJobKey = {
  eventsPrune: () => CATALOGUE_TASKS.eventsPrune,
  botStockSync: () => CATALOGUE_TASKS.botStockSync,
};


/** The next prune in an hour; preserve_run_at keeps an earlier waiting one. */
export function scheduleEventsPrune(db: Db | Trx): Promise<void> {
  return addJob(db, CATALOGUE_TASKS.eventsPrune, {}, {
    jobKey: catalogueJobKey.eventsPrune(),
    jobKeyMode: 'preserve_run_at',
    runAt: new Date(Date.now() + PRUNE_EVERY_SECONDS * 1000),
  });
}

/** The next bot stock sync in `seconds`; preserve_run_at keeps an earlier waiting one. */
export function scheduleBotStockSync(db: Db | Trx, seconds: number): Promise<void> {
  return addJob(db, CATALOGUE_TASKS.botStockSync, {}, {
    jobKey: catalogueJobKey.botStockSync(),
    jobKeyMode: 'preserve_run_at',
    runAt: new Date(Date.now() + seconds * 1000),
  });
}
