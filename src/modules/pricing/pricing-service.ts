// Deposit pricing (spec 2.3, 2.4, 4.2–4.6): the price book in memory, reloaded every
// PRICE_REFRESH_SECONDS, and the merchant's deposit multiplier applied to its base prices. A book
// older than PRICE_MAX_AGE_SECONDS (its reloads keep failing) makes quotes refused, not made on old prices.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { GAMES, type Game } from '../../domain/games.js';
import { AppError } from '../../domain/errors.js';
import { applyRate } from '../../domain/money.js';
import { unphasedName } from '../../domain/phases.js';
import type { MerchantRow } from '../merchants/merchant-repo.js';
import { PriceBook, SANDBOX_PRICEBOOK_DIR, type PriceBookEntry } from './pricebook.js';
import { isSourceList, loadSourceList } from './price-sources.js';

/** A price book entry as pricing shows it: base price in mills. */
export interface BookEntry {
  game: Game;
  name: string;
  price: number;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  phase?: string;
}

/** An item the sandbox may put into an inventory: the market hash name, and the phase of phased items. */
export interface SandboxItemName {
  name: string;
  phase?: string;
}

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

function view(e: PriceBookEntry): BookEntry {
  const out: BookEntry = { game: e.game, name: e.market_hash_name, price: e.price_mills };
  if (e.exterior) out.exterior = e.exterior;
  if (e.rarity) out.rarity = e.rarity;
  if (e.rarity_color) out.rarity_color = e.rarity_color;
  if (e.phase) out.phase = e.phase;
  return out;
}

/** Per-phase entries are named "<name> - <phase>"; an inventory item carries the plain name and the phase. */
function sandboxNames(book: PriceBook): Map<Game, SandboxItemName[]> {
  const out = new Map<Game, SandboxItemName[]>();
  for (const g of GAMES) {
    const list: SandboxItemName[] = [];
    for (const e of book.list(g)) {
      if (e.price_mills <= 0) continue;
      const base = unphasedName(e.market_hash_name, e.phase);
      if (base !== undefined) list.push({ name: base, phase: e.phase });
      else list.push({ name: e.market_hash_name });
    }
    out.set(g, list);
  }
  return out;
}

/** Safe file part of an image URL: the name, URL-encoded, with a .svg suffix. */
export function imageFileOf(name: string): string {
  return `${encodeURIComponent(name)}.svg`;
}

export function createPricingService(deps: { config: Config; log: Logger }) {
  const { config, log } = deps;
  let book = new PriceBook();
  let names = sandboxNames(book);
  let loadedAt = new Date(0);
  let timer: NodeJS.Timeout | undefined;

  async function load(): Promise<void> {
    const source = config.priceBookSource ?? SANDBOX_PRICEBOOK_DIR;
    const next = isSourceList(source) ? new PriceBook(await loadSourceList(source)) : await PriceBook.load(source);
    book = next;
    names = sandboxNames(next);
    loadedAt = new Date();
    log.info({ items: next.totalSize, source: config.priceBookSource ?? 'sandbox' }, 'price book loaded');
  }

  /** The book entry (base price in mills); a zero price counts as unpriced. */
  function entry(game: Game, name: string, phase?: string): BookEntry | undefined {
    const e = book.get(game, name, phase);
    return e && e.price_mills > 0 ? view(e) : undefined;
  }

  /** Images are ours (the book carries none): built at call time, as PUBLIC_URL is known only then in tests. */
  function imageUrl(game: Game, e: BookEntry): string {
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

  /**
   * The book entry of an item as the platform describes it (an inventory's items, a bot's stock):
   * a name the book prices per phase is priced only by the item's own phase (domain/phases.ts),
   * never by the plain name's price, which would under-credit a Ruby and over-credit a Phase 1.
   */
  function itemEntry(game: Game, item: { marketHashName: string; phase?: string }): BookEntry | undefined {
    if (book.pricedByPhase(game, item.marketHashName) && !(item.phase && book.get(game, item.marketHashName, item.phase)?.phase)) return undefined;
    return entry(game, item.marketHashName, item.phase);
  }

  /** Deposit price for a merchant: base × deposit_multiplier rounded to mills, with its card; undefined = unpriced. */
  function quote(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, name: string, phase?: string): Quote | undefined {
    const e = entry(game, name, phase);
    if (!e) return undefined;
    return { name, price: applyRate(e.price, Number(merchant.deposit_multiplier)), originalPrice: e.price, card: card(game, e) };
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
    loadedAt: () => loadedAt,

    /**
     * Throws 500 `integration service error` (retry, like any failing upstream) when the book is
     * older than PRICE_MAX_AGE_SECONDS; every deposit quote and commit calls it first.
     */
    assertFresh(now: Date = new Date()): void {
      const limit = config.priceMaxAgeSeconds;
      if (limit <= 0) return;
      const age = Math.floor((now.getTime() - loadedAt.getTime()) / 1000);
      if (age <= limit) return;
      log.warn({ ageSeconds: age, limitSeconds: limit }, 'price book too old; quotes refused');
      throw new AppError('integration', 'integration service error', [
        { field: 'prices', code: 'prices_stale', message: `prices are ${age} s old (limit ${limit} s); retry later` },
      ]);
    },

    /** Priced names (with phases) of a game: sandbox inventories are drawn from them. */
    sandboxItems: (game: Game): readonly SandboxItemName[] => names.get(game) ?? [],

    /** Priced market hash names of a game. */
    namesFor: (game: Game): string[] => (names.get(game) ?? []).filter((n) => !n.phase).map((n) => n.name),

    /** The book entry (base price in mills and card fields), or undefined when unpriced. */
    entry,

    /** The price alone (get-prices: up to 2 000 names per call, no card shown); undefined = unpriced. */
    price(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, name: string): Omit<Quote, 'card'> | undefined {
      const e = book.get(game, name);
      if (!e || !(e.price_mills > 0)) return undefined;
      return { name, price: applyRate(e.price_mills, Number(merchant.deposit_multiplier)), originalPrice: e.price_mills };
    },

    /** The deposit price of a platform item (itemEntry's rule), with its card; undefined = unpriced. */
    quoteItem(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, item: { marketHashName: string; phase?: string }): Quote | undefined {
      return itemEntry(game, item) && quote(merchant, game, item.marketHashName, item.phase);
    },

    itemEntry,

    quote,
  };
}

export type PricingService = ReturnType<typeof createPricingService>;
