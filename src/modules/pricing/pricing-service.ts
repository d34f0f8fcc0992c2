// Deposit pricing (spec 2.3, 2.4, 4.2–4.6): the price engine's reference prices (the
// own book reloaded every PRICE_REFRESH_SECONDS, and Skinport, CSFloat, the Steam Market guard and
// the operator's overrides as configured), and the merchant's deposit multiplier applied to them.
// When no source has answered for PRICE_MAX_AGE_SECONDS, quotes are refused, not made on old prices.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import { GAMES, isGame, type Game } from '../../domain/games.js';
import { AppError } from '../../domain/errors.js';
import { applyRate } from '../../domain/money.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import { createPriceEngine, type ItemPrice } from './price-engine.js';
import type { Basis, Flag, PriceRules } from './reference-price.js';
import * as repo from './price-repo.js';
import { basisRow } from './price-basis-view.js';
import { createBaseStore } from './base-store.js';
import { createPoller, type Poller } from './sources/poller.js';
import { skinportSource } from './sources/skinport.js';
import { csfloatSource } from './sources/csfloat.js';
import { steamMarketSource } from './sources/steam-market.js';
import { bookSourceOf, ownBookSource, type SandboxItemName } from './sources/own-book.js';
import { sandboxCaseReadings, SANDBOX_CASE_SOURCES } from './sandbox-cases.js';
import type { PollResult, PriceSource } from './sources/source.js';

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
  /** mills, the reference (deposit base) price. */
  originalPrice: number;
  card: ItemCard;
  /** price_bases row the price came from: which sources priced it, and when */
  basisId?: number;
}

/** An item's entry at a price (the sale floor for the catalogue, the deposit base for quotes). */
function view(it: ItemPrice, price: number): BookEntry {
  const out: BookEntry = { game: it.game, name: it.name, price };
  const m = it.meta;
  if (m?.exterior) out.exterior = m.exterior;
  if (m?.rarity) out.rarity = m.rarity;
  if (m?.rarity_color) out.rarity_color = m.rarity_color;
  if (m?.phase) out.phase = m.phase;
  return out;
}

/** The basis of one item as the admin API and the console show it. */
export interface ItemBasisView {
  game: Game;
  market_hash_name: string;
  basis_id: number | null;
  computed_at: string | null;
  reference: number | null;
  deposit_price: number | null;
  sale_price: number | null;
  flags: Flag[];
  pending_jump: number | null;
  readings: ReturnType<typeof basisRow>['readings'];
}

/** Safe file part of an image URL: the name, URL-encoded, with a .svg suffix. */
export function imageFileOf(name: string): string {
  return `${encodeURIComponent(name)}.svg`;
}

function basisView(it: ItemPrice): ItemBasisView {
  const b = it.basis!;
  return {
    game: it.game,
    market_hash_name: it.name,
    basis_id: it.basisId ?? null,
    computed_at: it.computedAt !== undefined ? new Date(it.computedAt).toISOString() : null,
    reference: b.reference ?? null,
    deposit_price: b.deposit ?? null,
    sale_price: b.sale ?? null,
    flags: b.flags,
    pending_jump: it.prior.pending?.price ?? null,
    readings: basisRow(it.game, it.name, b, it.readings.values()).readings,
  };
}

/** Flags the admin API lists items by (outlier, jump, too few sources, stale …). */
/** What a caller may read of a name's price entry: its published basis's deposit price. */
export interface PricedItem {
  readonly basis?: { readonly deposit?: number };
}

export const LISTED_FLAGS: readonly Flag[] = ['outlier', 'jump', 'too_few_sources', 'stale', 'illiquid', 'guard', 'pinned', 'blocked'];

export function createPricingService(deps: { config: Config; log: Logger; db?: Db; /** tests: the book's size from which it is parsed off-thread */ bookOffThreadBytes?: number }) {
  const { config, log, db } = deps;
  const pc = config.pricing;
  const rules: PriceRules = {
    maxAgeMs: pc.itemMaxAgeSeconds * 1000,
    minLiquidity: pc.minLiquidity,
    minSources: pc.minSources,
    outlierRatio: pc.outlierRatio,
    jumpRatio: pc.jumpRatio,
  };
  const store = db ? createBaseStore(db, log) : undefined;
  const engine = createPriceEngine({ rules, store, rowOf: (c) => basisRow(c.it.game, c.it.name, c.basis, c.it.readings.values()) });
  /** Per game, the names the own book (as last loaded) prices per phase: it has "<name> - <phase>" entries. */
  let phased = new Map<Game, Set<string>>();
  let names = new Map<Game, SandboxItemName[]>();
  /** when a market source last answered (every source failing for PRICE_MAX_AGE_SECONDS: prices_stale) */
  let answeredAt = 0;

  // The steam platform without PRICE_BOOK has no book: its prices come from the market sources alone.
  const book = bookSourceOf(config) === undefined ? undefined : ownBookSource({
    config,
    log,
    offThreadBytes: deps.bookOffThreadBytes,
    setMeta: (g, name, meta) => engine.setMeta(g, name, meta),
    loaded: (b) => {
      phased = b.phased;
      names = b.names;
    },
  });

  // Steam's guard asks one name at a time: round-robin over the items that have a reference.
  let steamQueue: { game: Game; name: string }[] = [];
  const nextForSteam = () => {
    if (steamQueue.length === 0) {
      for (const g of GAMES) for (const it of engine.items(g)) if (it.basis?.reference !== undefined) steamQueue.push({ game: g, name: it.name });
      steamQueue.reverse();
    }
    return steamQueue.pop();
  };

  const sources: PriceSource[] = book ? [book] : [];
  if (pc.skinportUrls.length > 0) sources.push(skinportSource(pc.skinportUrls));
  if (pc.csfloatApiKey) {
    sources.push(csfloatSource({ url: pc.csfloatUrl, apiKey: pc.csfloatApiKey, maxPages: pc.csfloatMaxPages, pageDelayMs: 1000, intervalMs: pc.csfloatIntervalSeconds * 1000 }));
  }
  if (pc.steamMarketUrl) sources.push(steamMarketSource({ url: pc.steamMarketUrl, next: nextForSteam }));

  /** Readings in, bases computed and published (errors logged: the old prices stay). */
  async function take(source: PriceSource, r: PollResult, ok: boolean): Promise<void> {
    const now = Date.now();
    if (ok && source.role === 'market') answeredAt = now;
    await engine.apply(source, r);
    await engine.recompute(now);
    if (source === book && pc.sandboxCases) await playSandboxCases();
  }

  async function playSandboxCases(): Promise<void> {
    const { rounds, overrides } = sandboxCaseReadings(GAMES, pc, Date.now());
    for (const o of overrides) engine.setOverride(o.game, o.name, o.override);
    for (const round of rounds) {
      for (const s of SANDBOX_CASE_SOURCES) {
        const r = round.get(s.id);
        if (r) await engine.apply(s, r);
      }
      await engine.recompute(Date.now());
    }
  }

  const pollers: Poller[] = sources.map((s) =>
    createPoller(s, (r, ok) => take(s, r, ok).catch((err) => {
      if (!noteDatabaseError(db, err)) log.error({ err, source: s.id }, 'price bases not stored; keeping the previous prices');
    }), log, {
      maxBackoffMs: pc.maxBackoffSeconds * 1000,
    }),
  );

  /**
   * Loads the book now (start-up, tests, the CLI); a failure throws and keeps the previous prices.
   * Without a book the market sources are polled once instead (a failing one is logged, as on its timer).
   */
  async function reload(): Promise<void> {
    if (book) await take(book, await book.poll(), true);
    else {
      for (const p of pollers) await p.pollNow();
      await engine.recompute(Date.now());
    }
  }

  /** The item of a name, the per-phase one ("<name> - <phase>") first when it is priced at all. */
  function lookup(game: Game, name: string, phase?: string): ItemPrice | undefined {
    if (phase) {
      const hit = engine.get(game, `${name} - ${phase}`);
      if (hit?.basis) return hit;
    }
    return engine.get(game, name);
  }

  /** The entry at the price sales may not go under; undefined when unpriced. */
  function entry(game: Game, name: string, phase?: string): BookEntry | undefined {
    const it = lookup(game, name, phase);
    const p = it?.basis?.sale;
    return it && p !== undefined && p > 0 ? view(it, p) : undefined;
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
    if (phased.get(game)?.has(item.marketHashName) && !(item.phase && engine.get(game, `${item.marketHashName} - ${item.phase}`)?.basis)) return undefined;
    return entry(game, item.marketHashName, item.phase);
  }

  /** Deposit price for a merchant: base × deposit_multiplier rounded to mills, with its card and basis; undefined = not accepted. */
  function quote(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, name: string, phase?: string): Quote | undefined {
    const it = lookup(game, name, phase);
    const d = it?.basis?.deposit;
    if (!it || d === undefined || !(d > 0)) return undefined;
    const q: Quote = { name, price: applyRate(d, Number(merchant.deposit_multiplier)), originalPrice: d, card: card(game, view(it, d)) };
    if (it.basisId !== undefined) q.basisId = it.basisId;
    return q;
  }


  return {
    /** Loads the book if there is one (start-up fails if it cannot), the operator's overrides, then polls every source on its timer in the background. */
    async start(): Promise<void> {
      if (db) for (const o of await repo.listOverrides(db)) if (isGame(o.game)) engine.setOverride(o.game, o.market_hash_name, { action: o.action, ...(o.price !== null ? { price: o.price } : {}) });
      if (book) await reload(); // the market sources are polled in the background: a start never waits for them
      pollers.forEach((p, i) => (book && i === 0 ? p.startAfter(book.intervalMs) : p.start()));
    },
    async stop(): Promise<void> {
      await Promise.all(pollers.map((p) => p.stop()));
      await engine.idle();
      if (store?.pending()) log.info({ rows: store.pending() }, 'writing the price bases left before stopping');
      await store?.flush(); // a clean stop leaves every published basis written
    },
    reload,
    /** Polls every source once now and publishes what came (tests, operator refresh). */
    async refresh(): Promise<void> {
      for (const p of pollers) await p.pollNow();
      await engine.recompute(Date.now());
    },
    /** When the published prices last changed (caches of answers key on it). */
    loadedAt: () => engine.publishedAt(),

    /**
     * Throws 500 `integration service error` (retry, like any failing upstream) when no price source
     * has answered for PRICE_MAX_AGE_SECONDS; every deposit quote and commit calls it first.
     */
    assertFresh(now: Date = new Date()): void {
      const limit = config.priceMaxAgeSeconds;
      if (limit <= 0) return;
      const age = Math.floor((now.getTime() - answeredAt) / 1000);
      if (age <= limit) return;
      log.warn({ ageSeconds: age, limitSeconds: limit }, 'price sources silent too long; quotes refused');
      throw new AppError('integration', 'integration service error', [
        { field: 'prices', code: 'prices_stale', message: `prices are ${age} s old (limit ${limit} s); retry later` },
      ]);
    },

    /** Priced names (with phases) of the book: sandbox inventories are drawn from them. */
    sandboxItems: (game: Game): readonly SandboxItemName[] => names.get(game) ?? [],

    /** Priced market hash names of a game (no per-phase entries, no sandbox cases). */
    namesFor(game: Game): string[] {
      const out: string[] = [];
      for (const it of engine.items(game)) {
        if (it.meta?.phase || it.name.startsWith('Sandbox Price | ')) continue;
        if ((it.basis?.sale ?? 0) > 0) out.push(it.name);
      }
      return out;
    },

    /** The entry (sale price in mills: never below the last good price, and card fields), or undefined when unpriced. */
    entry,

    /** A name's price entry, whose basis each publish replaces (get-prices keeps it beside its answer fragment); undefined = unknown name. */
    pricedItem: (game: Game, name: string): PricedItem | undefined => engine.get(game, name),

    /** The deposit price alone (get-prices: up to 2 000 names per call, no card shown); undefined = not accepted. */
    price(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, name: string): Omit<Quote, 'card'> | undefined {
      const d = engine.get(game, name)?.basis?.deposit;
      if (d === undefined || !(d > 0)) return undefined;
      return { name, price: applyRate(d, Number(merchant.deposit_multiplier)), originalPrice: d };
    },

    quote,

    /** The highest price basis published: a get-prices quote stores it. */
    version: () => engine.version(),

    /** The bases a quote made at `version` priced these names at (name → price_bases id). */
    async basesAt(game: Game, names: readonly string[], version: number): Promise<Map<string, number>> {
      if (!db) return new Map();
      // The rows may still be queued (base-store.ts): the current basis of each name when the quote
      // saw it, else (changed since) every queued row up to the quote's version, written first.
      const ids: number[] = [];
      let older = false;
      for (const n of names) {
        const id = engine.get(game, n)?.basisId;
        if (id !== undefined && id <= version) ids.push(id);
        else older = true;
      }
      await store?.ensure(ids);
      if (older) await store?.ensureUpTo(version);
      return repo.basesAt(db, game, names, version);
    },

    /** Resolves once the rows of these bases are written: a deposit item names one only then. */
    ensureBases: async (ids: Iterable<number>): Promise<void> => store?.ensure(ids),

    /** An item's basis now (admin API, console). */
    basis(game: Game, name: string): ItemBasisView | undefined {
      const it = engine.get(game, name);
      return it?.basis ? basisView(it) : undefined;
    },

    /** Items whose basis carries a flag (one, or any listed flag), by game and name. */
    flagged(opts: { flag?: Flag; game?: Game; limit: number; offset: number }): ItemBasisView[] {
      const out: ItemBasisView[] = [];
      let skip = opts.offset;
      for (const g of opts.game ? [opts.game] : GAMES) {
        for (const it of engine.items(g)) {
          const f = it.basis?.flags;
          if (!f || f.length === 0 || (opts.flag ? !f.includes(opts.flag) : !f.some((x) => LISTED_FLAGS.includes(x)))) continue;
          if (skip > 0) {
            skip--;
            continue;
          }
          out.push(basisView(it));
          if (out.length >= opts.limit) return out;
        }
      }
      return out;
    },

    /** Applies an operator override (stored by the caller) and publishes the item's new basis. */
    async override(game: Game, name: string, o: { action: 'pin' | 'block'; price?: number } | undefined): Promise<void> {
      engine.setOverride(game, name, o);
      await engine.recompute(Date.now());
    },

    /** The operator confirms a held jump; false when the item holds none. */
    async confirmJump(game: Game, name: string): Promise<boolean> {
      if (!engine.confirm(game, name)) return false;
      await engine.recompute(Date.now());
      return true;
    },

    /** Each source's poll state (no secrets). */
    sources: () => pollers.map((p) => ({ ...p.state })),

    /**
     * Whether a refresh runs (a market source's poll, its readings taken, or bases still to be
     * written): the admin API's refresh state.
     */
    refreshState: () => {
      const polling = pollers.filter((p, i) => sources[i]!.role === 'market' && p.state.busySince !== undefined).map((p) => p.state.id);
      const pending = store?.pending() ?? 0;
      return { running: polling.length > 0 || pending > 0, polling, basesPending: pending };
    },

    /** Polls every market source once now, in the background (operator refresh); a poll already running is not doubled. */
    refreshInBackground(): void {
      void Promise.all(pollers.filter((_, i) => sources[i]!.role === 'market').map((p) => p.pollNow())).catch((err) => log.error({ err }, 'price refresh failed'));
    },

    /** The deposit price of a platform item (itemEntry's rule), with its card; undefined = unpriced. */
    quoteItem(merchant: Pick<MerchantRow, 'deposit_multiplier'>, game: Game, item: { marketHashName: string; phase?: string }): Quote | undefined {
      return itemEntry(game, item) && quote(merchant, game, item.marketHashName, item.phase);
    },

    itemEntry,

  };
}

export type PricingService = ReturnType<typeof createPricingService>;
export type { Basis, SandboxItemName };
