// The prices in memory: per game and item, the latest reading of each source and the
// basis computed from them (reference-price.ts). Readings arrive from the pollers (apply); the
// bases are computed again for the items they touched and for those whose readings went stale
// (recompute, in slices that let requests run), given price_bases ids and published; their rows
// (one per changed basis, so each credit can be explained) are written in the background
// (base-store.ts: a credit first makes sure the rows it names are written). A lookup is two Map gets.
import type { Game } from '../../domain/games.js';
import { GAMES } from '../../domain/games.js';
import { referencePrice, type Basis, type Override, type PriceRules, type Prior, type Reading, type SourceRole } from './reference-price.js';
import type { PollResult } from './sources/source.js';
import type { NewBasis } from './price-repo.js';

export interface ItemMeta {
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  phase?: string;
}

export interface ItemPrice {
  game: Game;
  name: string;
  readings: Map<string, Reading>;
  basis?: Basis;
  prior: Prior;
  override?: Override;
  /** price_bases row of the published basis (when persisted) */
  basisId?: number;
  meta?: ItemMeta;
  computedAt?: number;
  /** bumped when a reading's price or liquidity changes, or a reading comes or goes */
  rev: number;
  /** rev of the readings the published basis was stored with */
  storedRev?: number;
}

/** A basis computed and not yet published: given its id (store.reserve), its row queued, then published. */
export interface StagedBasis {
  it: ItemPrice;
  basis: Basis;
  rev: number;
}

/** Where bases go: ids first (a failure keeps the old bases published), rows queued to be written. */
export interface BasisStore {
  reserve(n: number): Promise<number[]>;
  stage(ids: number[], rows: NewBasis[], computedAt: Date): void;
}

const ROWS = 1000; // rows per written batch
const yieldToRequests = () => new Promise<void>((r) => setImmediate(r));

/**
 * Long loops (a poll of 100 000 readings a game, 400 000 items to compute) run in slices of time,
 * not of items: a request waits about SLICE_MS behind them, whatever an item costs (a basis row
 * costs ten times a reading, so fixed slices of 500 items ran 2–10 ms). `due` reads the clock every
 * CHECK_EVERY calls only.
 */
const SLICE_MS = 2;
const CHECK_EVERY = 32;
function timeSlices() {
  let since = performance.now();
  let n = 0;
  return {
    due: (): boolean => ++n % CHECK_EVERY === 0 && performance.now() - since >= SLICE_MS,
    async next(): Promise<void> {
      await yieldToRequests();
      since = performance.now();
    },
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether a new basis says what the published one says (prices, flags, sources left out): no new row then. */
function sameBasis(a: Basis, b: Basis): boolean {
  return a.deposit === b.deposit && a.sale === b.sale && sameList(a.flags, b.flags) && sameList(a.outliers, b.outliers) && sameList(a.stale, b.stale) && sameList(a.illiquid, b.illiquid);
}

const sameMeta = (a: ItemMeta, b: ItemMeta) => a.exterior === b.exterior && a.rarity === b.rarity && a.rarity_color === b.rarity_color && a.phase === b.phase;

/**
 * Basis lists are mostly empty: one shared empty list instead of four new ones per item keeps the
 * heap (400 000 items and more) small, and with it the collector's pauses.
 */
const NONE: string[] = Object.freeze([]) as unknown as string[];
function compact(b: Basis): Basis {
  if (b.used.length === 0) b.used = NONE;
  if (b.outliers.length === 0) b.outliers = NONE;
  if (b.stale.length === 0) b.stale = NONE;
  if (b.illiquid.length === 0) b.illiquid = NONE;
  if (b.flags.length === 0) b.flags = NONE as Basis['flags'];
  return b;
}

export function createPriceEngine(opts: { rules: PriceRules; store?: BasisStore; rowOf?: (c: StagedBasis) => NewBasis }) {
  const items = new Map<Game, Map<string, ItemPrice>>(GAMES.map((g) => [g, new Map()]));
  let dirty = new Set<ItemPrice>();
  let chain: Promise<unknown> = Promise.resolve();
  let publishedAt = new Date(0);
  /** highest price_bases id published: a quote stores it (its items' bases are the newest at or below it) */
  let version = 0;

  function item(game: Game, name: string): ItemPrice {
    const m = items.get(game)!;
    let it = m.get(name);
    if (!it) {
      // Every field from the start: one object shape for all items, so a publish (which sets basis,
      // basisId, computedAt, storedRev) changes no shape and readers' property loads stay monomorphic.
      it = { game, name, readings: new Map(), basis: undefined, prior: {}, override: undefined, basisId: undefined, meta: undefined, computedAt: undefined, rev: 0, storedRev: undefined };
      m.set(name, it);
    }
    return it;
  }

  /**
   * A source's poll: its readings replace its earlier ones; of a game listed in full, the missing
   * ones go. In slices (a poll may bring 100 000 readings a game): requests run in between.
   */
  async function apply(source: { id: string; role: SourceRole }, result: PollResult): Promise<void> {
    const listed = new Map<Game, Set<string>>();
    const slice = timeSlices();
    for (const r of result.readings) {
      if (slice.due()) await slice.next();
      const it = item(r.game, r.name);
      const prev = it.readings.get(source.id);
      listed.get(r.game)?.add(r.name) ?? listed.set(r.game, new Set([r.name]));
      if (prev && prev.price === r.price && prev.asOf === r.asOf && prev.liquidity === r.liquidity) continue;
      if (prev) {
        // Updated in place: a refresh allocates (and the collector moves) nothing per known item.
        if (prev.price !== r.price || prev.liquidity !== r.liquidity) it.rev++;
        prev.price = r.price;
        prev.asOf = r.asOf;
        prev.liquidity = r.liquidity;
      } else {
        it.readings.set(source.id, { source: source.id, role: source.role, price: r.price, asOf: r.asOf, liquidity: r.liquidity });
        it.rev++;
      }
      dirty.add(it);
    }
    for (const g of result.complete) {
      const seen = listed.get(g) ?? new Set();
      for (const it of items.get(g)!.values()) {
        if (slice.due()) await slice.next();
        if (!seen.has(it.name) && it.readings.delete(source.id)) {
          it.rev++;
          dirty.add(it);
        }
      }
    }
  }

  /** Card fields; an item whose fields are already these keeps its object (a book reload sets 400 000 and changes few). */
  function setMeta(game: Game, name: string, meta: ItemMeta | undefined): void {
    const it = item(game, name);
    if (!(meta && it.meta && sameMeta(it.meta, meta))) it.meta = meta;
  }

  function setOverride(game: Game, name: string, override: Override | undefined): void {
    const it = item(game, name);
    it.override = override;
    dirty.add(it);
  }

  /** The operator confirms a held jump: the pending price becomes the last good one. */
  function confirm(game: Game, name: string): boolean {
    const it = items.get(game)!.get(name);
    const p = it?.prior.pending;
    if (!it || !p) return false;
    it.prior = { lastGood: p.price };
    dirty.add(it);
    return true;
  }

  async function run(now: number): Promise<number> {
    // Taken whole, not copied: a poll marks up to 100 000 items a game, and copying them was one
    // uninterrupted 20–25 ms on the event loop.
    const todo = dirty;
    dirty = new Set();
    const slice = timeSlices();
    for (const m of items.values()) {
      for (const it of m.values()) {
        if (it.basis && it.basis.expiresAt <= now) todo.add(it);
        if (slice.due()) await slice.next();
      }
    }
    const changed: StagedBasis[] = [];
    for (const it of todo) {
      const basis = referencePrice(it.readings.values(), opts.rules, it.prior, now, it.override);
      if (!it.basis || it.rev !== it.storedRev || !sameBasis(basis, it.basis)) changed.push({ it, basis: compact(basis), rev: it.rev });
      else it.basis.expiresAt = basis.expiresAt;
      if (slice.due()) await slice.next();
    }
    if (changed.length === 0) return 0;
    // Ids first, published after: a quote never names a basis that has no id; the rows follow in
    // the background, built now (the readings change in place later).
    let ids: (number | undefined)[] = [];
    try {
      if (opts.store) ids = await opts.store.reserve(changed.length);
    } catch (err) {
      for (const c of changed) dirty.add(c.it); // tried again on the next run; the old bases stay published
      throw err;
    }
    if (opts.store && opts.rowOf) {
      const at = new Date(now);
      for (let i = 0; i < changed.length; i += ROWS) {
        const rows: NewBasis[] = [];
        for (let j = i; j < Math.min(i + ROWS, changed.length); j++) {
          rows.push(opts.rowOf(changed[j]));
          if (slice.due()) await slice.next();
        }
        opts.store.stage(ids.slice(i, i + ROWS) as number[], rows, at);
      }
    }
    // Published in slices too (50 000 bases took 50–70 ms at once): each slice is a publish of its
    // own, with a new publishedAt, so a cache keyed on it never keeps a basis a slice replaced. The
    // ids ascend in this order, so between two slices every item's basis is still the newest at or
    // below `version`, as a quote's price version says.
    for (let i = 0; i < changed.length; i++) {
      const c = changed[i];
      c.it.basis = c.basis;
      c.it.prior = c.basis.next;
      c.it.storedRev = c.rev;
      c.it.computedAt = now;
      const id = ids[i];
      if (id !== undefined) {
        c.it.basisId = id;
        if (id > version) version = id;
      }
      if (i + 1 < changed.length && slice.due()) {
        publishedAt = new Date(now);
        await slice.next();
      }
    }
    publishedAt = new Date(now);
    return changed.length;
  }

  return {
    apply,
    setMeta,
    setOverride,
    confirm,
    /** Computes what changed and publishes it; calls run one after another. Resolves to the number of changed items. */
    recompute(now = Date.now()): Promise<number> {
      const next = chain.then(() => run(now));
      chain = next.catch(() => undefined);
      return next;
    },
    /** Resolves once no computation runs. */
    idle: (): Promise<unknown> => chain,
    get: (game: Game, name: string): ItemPrice | undefined => items.get(game)?.get(name),
    items: (game: Game): IterableIterator<ItemPrice> => items.get(game)!.values(),
    count: (): number => GAMES.reduce((n, g) => n + items.get(g)!.size, 0),
    /** When the published prices last changed (a new Date each time: caches key on it). */
    publishedAt: () => publishedAt,
    version: () => version,
  };
}

export type PriceEngine = ReturnType<typeof createPriceEngine>;
