// Deposit pricing (spec 2.3, 2.4, 4.2–4.6): the price book in memory, reloaded every
// PRICE_REFRESH_SECONDS, and the merchant's deposit multiplier applied to its base prices.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { GAMES, type Game } from '../../domain/games.js';
import { applyRate } from '../../domain/money.js';
import type { MerchantRow } from '../merchants/merchant-repo.js';
import { loadBookEntries, type BookEntry } from './book-source.js';

export type { BookEntry };

export interface ItemCard {
  image_url: string;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  phase?: string;
}

export interface Quote {
  name: string;
  /** mills, after the merchant's deposit multiplier: what the merchant is credited. */
  price: number;
  /** mills, the book's base price. */
  originalPrice: number;
  card: ItemCard;
}

interface Book {
  byGame: Map<Game, Map<string, BookEntry>>;
  names: Map<Game, string[]>;
  loadedAt: Date;
}

function index(entries: BookEntry[]): Book {
  const byGame = new Map<Game, Map<string, BookEntry>>(GAMES.map((g) => [g, new Map()]));
  for (const e of entries) byGame.get(e.game)?.set(e.name, e);
  const names = new Map<Game, string[]>(GAMES.map((g) => [g, [...byGame.get(g)!.keys()]]));
  return { byGame, names, loadedAt: new Date() };
}

/** Safe file part of an image URL: the name, URL-encoded, with a .svg suffix. */
export function imageFileOf(name: string): string {
  return `${encodeURIComponent(name)}.svg`;
}

export function createPricingService(deps: { config: Config; log: Logger }) {
  const { config, log } = deps;
  let book: Book = index([]);
  let timer: NodeJS.Timeout | undefined;

  async function load(): Promise<void> {
    const entries = await loadBookEntries(config.priceBookSource);
    book = index(entries);
    log.info({ items: entries.length, source: config.priceBookSource ?? 'sandbox' }, 'price book loaded');
  }

  function entry(game: Game, name: string): BookEntry | undefined {
    return book.byGame.get(game)?.get(name);
  }

  /** Sandbox items show our own generated image; a real book's image is used when it has one. */
  function imageUrl(game: Game, e: BookEntry): string {
    if (config.platform !== 'sandbox' && e.image_url) return e.image_url;
    return `${config.publicUrl}/static/item-image/${game}/${imageFileOf(e.name)}`;
  }

  function card(game: Game, e: BookEntry): ItemCard {
    const c: ItemCard = { image_url: imageUrl(game, e) };
    if (e.exterior) c.exterior = e.exterior;
    if (e.rarity) c.rarity = e.rarity;
    if (e.rarity_color) c.rarity_color = e.rarity_color;
    if (e.phase) c.phase = e.phase;
    return c;
  }

  return {
    /** Loads the book (start-up) and reloads it on a timer; a failed reload keeps the old book. */
    async start(): Promise<void> {
      await load();
      if (timer) return;
      timer = setInterval(() => {
        load().catch((err) => log.error({ err }, 'price book reload failed; keeping the previous book'));
      }, config.priceRefreshSeconds * 1000);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    reload: load,
    loadedAt: () => book.loadedAt,

    /** The book's names for a game (sandbox inventories are drawn from them). */
    namesFor: (game: Game): readonly string[] => book.names.get(game) ?? [],

    /** The book entry (base price in mills and card fields), or undefined when unpriced. */
    entry,

    /** Deposit price for a merchant: base × deposit_multiplier rounded to mills; undefined = unpriced. */
    quote(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, name: string): Quote | undefined {
      const e = entry(game, name);
      if (!e) return undefined;
      return { name, price: applyRate(e.price, Number(merchant.deposit_multiplier)), originalPrice: e.price, card: card(game, e) };
    },
  };
}

export type PricingService = ReturnType<typeof createPricingService>;
