// Catalogue jobs: listing the items of completed deposits, and pruning the change feed.
import type { TaskList } from 'graphile-worker';
import type { AppContext } from '../../context.js';
import { addJob } from '../../jobs/enqueue.js';
import { EVENTS_RETENTION_SECONDS } from './catalogue-service.js';
import { GAMES } from '../../domain/games.js';
import type { SeedBookEntry } from './catalogue-seed.js';

export const CATALOGUE_ADD_DEPOSIT_ITEMS_TASK = 'catalogue_add_deposit_items';
export const CATALOGUE_EVENTS_PRUNE_TASK = 'catalogue_events_prune';
const PRUNE_EVERY_SECONDS = 3600;

async function schedulePrune(ctx: AppContext): Promise<void> {
  // One keyed job for all instances; preserve_run_at keeps the earliest time.
  await addJob(ctx.db, CATALOGUE_EVENTS_PRUNE_TASK, {}, {
    jobKey: CATALOGUE_EVENTS_PRUNE_TASK,
    jobKeyMode: 'preserve_run_at',
    runAt: new Date(Date.now() + PRUNE_EVERY_SECONDS * 1000),
  });
}

export function catalogueTasks(ctx: AppContext): TaskList {
  return {
    /** payload {deposit_id}: enqueued by the deposits feature when a deposit completes. */
    [CATALOGUE_ADD_DEPOSIT_ITEMS_TASK]: async (payload) => {
      const depositId = Number((payload as { deposit_id?: unknown })?.deposit_id);
      if (!Number.isSafeInteger(depositId) || depositId <= 0) {
        ctx.log.warn({ payload }, `${CATALOGUE_ADD_DEPOSIT_ITEMS_TASK}: bad payload, dropped`);
        return;
      }
      await ctx.catalogue.addDepositItems(depositId);
    },
    [CATALOGUE_EVENTS_PRUNE_TASK]: async () => {
      const n = await ctx.catalogue.pruneEvents(EVENTS_RETENTION_SECONDS);
      if (n > 0) ctx.log.info({ pruned: n }, 'catalogue events pruned');
      await schedulePrune(ctx);
    },
  };
}

/** Start-up: seed the sandbox catalogue from the sandbox price book, and keep the pruning job scheduled. */
export async function catalogueStartup(ctx: AppContext): Promise<void> {
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
  await schedulePrune(ctx);
}
