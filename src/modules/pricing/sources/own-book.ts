// The gateway's own book as a price source (PRICE_BOOK: a file, a URL or `skinport:` lists; the
// sandbox platform's book by default, never on the steam platform), reloaded every PRICE_REFRESH_SECONDS. A book of 100 000 items per game
// is read and checked in a worker thread (book-off-thread.ts) and turned into readings, card fields
// and sandbox names a slice at a time as the worker hands it over, requests running in between.
import type { Logger } from 'pino';
import { isSandboxBook, type Config } from '../../../config.js';
import { GAMES, type Game } from '../../../domain/games.js';
import { unphasedName } from '../../../domain/phases.js';
import { SANDBOX_PRICEBOOK_DIR, type PriceBookEntry } from '../pricebook.js';
import { loadBook } from './book-off-thread.js';
import type { ItemMeta } from '../price-engine.js';
import type { PollResult, PriceSource, SourceReading } from './source.js';

/**
 * What the own book reads: PRICE_BOOK, else on the sandbox platform its shipped book; undefined (no
 * book source) on the steam platform without PRICE_BOOK, whose prices come from the other sources.
 */
export function bookSourceOf(config: Pick<Config, 'platform' | 'priceBookSource'>): string | undefined {
  return config.priceBookSource ?? (config.platform === 'sandbox' ? SANDBOX_PRICEBOOK_DIR : undefined);
}

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
  /** Per game, the names the book prices per phase (it has "<name> - <phase>" entries for them). */
  phased: Map<Game, Set<string>>;
  /** Per-phase entries are named "<name> - <phase>"; an inventory item carries the plain name and the phase. */
  names: Map<Game, SandboxItemName[]>;
}

/**
 * A refresh hands over the whole book (400 000 entries for 100 000 items a game) while requests run:
 * what outlives a slice is what the collector copies and pauses for, so nothing of an entry is kept
 * but its reading. The worker has checked the book (duplicates included); an unchanged item keeps
 * its card fields' object (the engine's setMeta) and its sandbox name's, and a game's name is the
 * constant, not the copy.
 */
export function ownBookSource(deps: { config: Config; log: Logger; offThreadBytes?: number; setMeta(game: Game, name: string, meta: ItemMeta): void; loaded(b: LoadedBook): void }): PriceSource {
  const { config, log } = deps;
  let last = new Map<Game, SandboxItemName[]>();
  return {
    id: 'book',
    role: 'market',
    intervalMs: config.priceRefreshSeconds * 1000,
    maxBackoffMs: config.priceRefreshSeconds * 1000, // our own book: retried on its interval, as before
    async poll(): Promise<PollResult> {
      const source = bookSourceOf(config);
      if (source === undefined) throw new Error('no price book configured (PRICE_BOOK)');
      // The settings refuse it at start; a configuration made another way must not price real items from it either.
      if (config.platform === 'steam' && isSandboxBook(source)) throw new Error('the sandbox book is never read on the steam platform');
      const at = Date.now();
      const readings: SourceReading[] = [];
      const names = new Map<Game, SandboxItemName[]>(GAMES.map((g) => [g, []]));
      const phased = new Map<Game, Set<string>>(GAMES.map((g) => [g, new Set()]));
      const total = await loadBook(source, (entries) => {
        for (const e of entries) {
          const game = GAMES.find((g) => g === e.game)!;
          deps.setMeta(game, e.market_hash_name, metaOf(e)); // unchanged fields keep their object (price-engine.ts)
          const base = unphasedName(e.market_hash_name, e.phase);
          if (base !== undefined) phased.get(game)!.add(base);
          if (e.price_mills <= 0) continue;
          readings.push({ game, name: e.market_hash_name, price: e.price_mills, asOf: at });
          const list = names.get(game)!;
          const was = last.get(game)?.[list.length]; // by position: a book's order usually holds from one load to the next (an insertion ends the reuse after it, nothing worse)
          const name = base ?? e.market_hash_name;
          const phase = base !== undefined ? e.phase : undefined;
          list.push(was?.name === name && was.phase === phase ? was : phase !== undefined ? { name, phase } : { name });
        }
      }, { offThreadBytes: deps.offThreadBytes });
      last = names;
      deps.loaded({ phased, names });
      log.info({ items: total, source: config.priceBookSource ?? 'sandbox' }, 'price book loaded');
      return { readings, complete: [...GAMES] };
    },
  };
}
