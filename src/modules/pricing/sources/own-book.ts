// The gateway's own book as a price source (PRICE_BOOK: a file, a URL or `skinport:` lists; the
// sandbox book by default), reloaded every PRICE_REFRESH_SECONDS. A book of 100 000 items per game
// is read and checked in a worker thread (book-off-thread.ts) and turned into readings, card fields
// and sandbox names a slice at a time as the worker hands it over, requests running in between.
import type { Logger } from 'pino';
import type { Config } from '../../../config.js';
import { GAMES, type Game } from '../../../domain/games.js';
import { unphasedName } from '../../../domain/phases.js';
import { PriceBook, SANDBOX_PRICEBOOK_DIR, type PriceBookEntry } from '../pricebook.js';
import { loadBook } from './book-off-thread.js';
import type { ItemMeta } from '../price-engine.js';
import type { PollResult, PriceSource, SourceReading } from './source.js';

/** An item the sandbox may put into an inventory: the market hash name, and the phase of phased items. */
export interface SandboxItemName {
  name: string;
  phase?: string;
}

function metaOf(e: PriceBookEntry): ItemMeta {
  const m: ItemMeta = {};
  if (e.exterior) m.exterior = e.exterior;
  if (e.rarity) m.rarity = e.rarity;
  if (e.rarity_color) m.rarity_color = e.rarity_color;
  if (e.phase) m.phase = e.phase;
  return m;
}

export interface LoadedBook {
  book: PriceBook;
  /** Per-phase entries are named "<name> - <phase>"; an inventory item carries the plain name and the phase. */
  names: Map<Game, SandboxItemName[]>;
}

export function ownBookSource(deps: { config: Config; log: Logger; offThreadBytes?: number; setMeta(game: Game, name: string, meta: ItemMeta): void; loaded(b: LoadedBook): void }): PriceSource {
  const { config, log } = deps;
  return {
    id: 'book',
    role: 'market',
    intervalMs: config.priceRefreshSeconds * 1000,
    maxBackoffMs: config.priceRefreshSeconds * 1000, // our own book: retried on its interval, as before
    async poll(): Promise<PollResult> {
      const source = config.priceBookSource ?? SANDBOX_PRICEBOOK_DIR;
      const next = new PriceBook();
      const at = Date.now();
      const readings: SourceReading[] = [];
      const names = new Map<Game, SandboxItemName[]>(GAMES.map((g) => [g, []]));
      await loadBook(source, (entries) => {
        next.addAll(entries);
        for (const e of entries) {
          deps.setMeta(e.game, e.market_hash_name, metaOf(e));
          if (e.price_mills <= 0) continue;
          readings.push({ game: e.game, name: e.market_hash_name, price: e.price_mills, asOf: at });
          const base = unphasedName(e.market_hash_name, e.phase);
          names.get(e.game)!.push(base !== undefined ? { name: base, phase: e.phase } : { name: e.market_hash_name });
        }
      }, { offThreadBytes: deps.offThreadBytes });
      deps.loaded({ book: next, names });
      log.info({ items: next.totalSize, source: config.priceBookSource ?? 'sandbox' }, 'price book loaded');
      return { readings, complete: [...GAMES] };
    },
  };
}
