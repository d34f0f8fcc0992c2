// The catalogue feature (spec 2.6, 4.11, 4.12; DESIGN 7, 8), wired from its parts:
//   pages.ts    one of 16 stable pages (ETag, page cache) and purchase/search
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
import { createCataloguePages } from './pages.js';
import { createCatalogueStream } from './stream.js';
import { createCatalogueWrites } from './writes.js';

export interface CatalogueDeps {
  config: Pick<Config, 'publicUrl' | 'catalogueStreamConcurrency'>;
  db: Db;
  log: Logger;
}

export function createCatalogueService(deps: CatalogueDeps) {
  const writes = createCatalogueWrites(deps);
  const pages = createCataloguePages({ ...deps, writes });
  const stream = createCatalogueStream({ ...deps, writes });
  const events = createCatalogueEvents(deps);
  return { ...writes, ...pages, ...stream, ...events };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
