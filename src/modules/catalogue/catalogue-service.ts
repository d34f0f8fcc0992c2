// The catalogue feature (spec 2.6, 4.11, 4.12; DESIGN 7, 8), wired from its parts:
//   pages.ts    one of 16 stable pages (ETag, page cache), the grouped view, purchase/search
//   page-state.ts  page versions in memory (LISTEN catalogue_changed) and the event stamper
//   stream.ts   the whole catalogue of a game, streamed in keyset batches
//   events.ts   the /purchase/events change feed
//   writes.ts   the rebuild window, the sandbox seed, the items of completed deposits
//   catalogue-views.ts  wire shapes and the merchant's price (pure)
//
// Price: listings store a base price (mills). What a merchant sees and pays is
// applyRate(base_price, merchant.purchase_markup), applied at read and at purchase time, so one
// catalogue serves every merchant and a markup change takes effect at once. For deposit items the
// base is the book price the item was quoted at (deposit_items.original_price, else price). The
// markup is monotonic, so "cheapest by name" and grouped minimum prices can be computed on base
// prices. Pages: page = (first byte of md5(id)) % 16 + 1, a generated column (003_purchases.sql).
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { createCatalogueEvents } from './events.js';
import { createPageState } from './page-state.js';
import { createCataloguePages } from './pages.js';
import { createCatalogueStream } from './stream.js';
import { createCatalogueWrites } from './writes.js';

export interface CatalogueDeps {
  config: Pick<Config, 'publicUrl' | 'catalogueStreamConcurrency'>;
  db: Db;
  log: Logger;
}

export function createCatalogueService(deps: CatalogueDeps) {
  // Page versions in memory (started by app.ts with the listener connection; unstarted = database path).
  const pageState = createPageState(deps);
  const writes = createCatalogueWrites({ ...deps, state: pageState });
  const pages = createCataloguePages({ ...deps, writes, state: pageState });
  const stream = createCatalogueStream({ ...deps, writes });
  const events = createCatalogueEvents(deps);
  return { ...writes, ...pages, ...stream, ...events, pageState, noteLocalWrite: pageState.noteLocalWrite };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
