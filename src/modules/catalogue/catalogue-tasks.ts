// Catalogue jobs: listing the items of completed deposits, and pruning the change feed.
import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { PricingService } from '../pricing/pricing-service.js';
import type { CatalogueService } from './catalogue-service.js';
import { idField } from '../../jobs/enqueue.js';
import { EVENTS_RETENTION_SECONDS } from './events.js';
import { GAMES } from '../../domain/games.js';
import type { SeedBookEntry } from './catalogue-seed.js';
import { CATALOGUE_TASKS, scheduleBotStockSync, scheduleEventsPrune } from './catalogue-jobs.js';
import type { BotStockSync } from './bot-stock.js';

/** What the catalogue jobs and start-up use. */
export interface CatalogueTaskDeps {
  db: Db;
  log: Logger;
  config: Pick<Config, 'platform' | 'sandboxCatalogueSize' | 'botSync'>;
  catalogue: CatalogueService;
  botStock: BotStockSync;
  pricing: Pick<PricingService, 'namesFor' | 'entry'>;
}

export function catalogueTasks(ctx: CatalogueTaskDeps): TaskList {
  return {
    /** payload {deposit_id}: enqueued by the deposits feature when a deposit completes. */
    [CATALOGUE_TASKS.addDepositItems]: async (payload) => {
      const depositId = idField(payload, 'deposit_id');
      if (depositId === undefined) {
        ctx.log.warn({ payload }, `${CATALOGUE_TASKS.addDepositItems}: bad payload, dropped`);
        return;
      }
      await ctx.catalogue.addDepositItems(depositId);
    },
    [CATALOGUE_TASKS.eventsPrune]: async () => {
      const n = await ctx.catalogue.pruneEvents(EVENTS_RETENTION_SECONDS);
      if (n > 0) ctx.log.info({ pruned: n }, 'catalogue events pruned');
      await scheduleEventsPrune(ctx.db);
    },
    [CATALOGUE_TASKS.botStockSync]: async () => {
      const every = ctx.config.botSync.intervalSeconds;
      try {
        await ctx.botStock.sync();
      } finally {
        // The next run, whatever this one did (a failed bot is reported in its own entry).
        if (every > 0) await scheduleBotStockSync(ctx.db, every);
      }
    },
  };
}

/** Start-up: seed the sandbox catalogue from the sandbox price book, and keep the pruning job scheduled. */
export async function catalogueStartup(ctx: CatalogueTaskDeps): Promise<void> {
  if (ctx.config.platform === 'sandbox' && ctx.config.sandboxCatalogueSize > 0) {
    // The loaded price book (the sandbox one in sandbox mode), read through the pricing service.
    const entries: SeedBookEntry[] = [];
    for (const game of GAMES) {
      for (const name of ctx.pricing.namesFor(game)) {
        const e = ctx.pricing.entry(game, name);
        if (e) entries.push({ game, name, price: e.price, exterior: e.exterior, rarity: e.rarity, rarity_color: e.rarity_color, phase: e.phase });
      }
    }
    await ctx.catalogue.seedSandbox(ctx.config.sandboxCatalogueSize, entries);
  }
  await scheduleEventsPrune(ctx.db);
  if (ctx.config.botSync.intervalSeconds > 0) await scheduleBotStockSync(ctx.db, ctx.config.botSync.intervalSeconds);
}
