// Catalogue rules (spec 2.6, 4.11, 4.12; DESIGN 7, 8) and the /purchase/events change feed.
//
// Design decisions:
// - Price: listings store a base price (mills). What a merchant sees and pays is
//   applyRate(base_price, merchant.purchase_markup), applied at read and at purchase time, so one
//   catalogue serves every merchant and a markup change takes effect at once. For deposit items
//   the base is the book price the item was quoted at (deposit_items.original_price, else price).
//   The markup is monotonic, so "cheapest by name" and grouped minimum prices can be computed on
//   base prices.
// - Pages: page = (first byte of md5(id)) % 16 + 1, a generated column (see 003_purchases.sql).
// - ETag: derived from the (game, page) content version kept by the listings triggers, plus
//   everything else that shapes the body (markup, full, extended); 304 on If-None-Match.
// - last_update_at: the page's last change, millisecond UTC ISO; usable as `since` of
//   /purchase/events (the feed's `since` is inclusive, so nothing of that millisecond is missed).
// - Events: `since` is an inclusive millisecond cursor; `next` = last returned millisecond + 1 ms;
//   a response never ends in the middle of a millisecond. History is kept EVENTS_RETENTION_SECONDS;
//   an older `since` answers reset: true.
// - Page cache: serialised items (bytes) keyed by what shapes them — (game, page, full, extended,
//   markup) at one content version — and capped by total bytes (PAGE_CACHE_MAX_BYTES, LRU). The
//   request's own query string never reaches the key: next/previous, total and the envelope are
//   written around the cached bytes per request, so `&x=1`, `&x=2`, … cannot multiply a 16 MB page.
// - Whole catalogue (no page), streamed: see stream(). Each batch is its own short keyset query on
//   the shared pool (no connection or transaction is held while the client reads), at most
//   CATALOGUE_STREAM_CONCURRENCY downloads per instance (more → 503 + Retry-After), and a reader
//   that takes nothing for STREAM_WRITE_TIMEOUT_MS is dropped.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { Readable } from 'node:stream';
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import { isoUtc, type Clock } from '../../domain/clock.js';
import { applyRate, millsToUsd } from '../../domain/money.js';
import { AppError } from '../../http/errors.js';
import {
  clearRebuildLease,
  countBySource,
  eventsExistFrom,
  eventsRestOfMillisecond,
  eventsSince,
  countLiveNames,
  gameMeta,
  groupedListings,
  insertListingsIgnore,
  listingsByIds,
  liveListingsAfter,
  pageListings,
  pageMeta,
  pruneEvents,
  readClock,
  stampEvents,
  rebuildSecondsLeft,
  searchByNames,
  setRebuildLease,
  type GroupRow,
  type ListingInput,
  type ListingView,
} from './catalogue-repo.js';
import { indexBook, seedListing, type SeedBookEntry } from './catalogue-seed.js';
import type { Logger } from 'pino';

export const TOTAL_PAGES = 16;
export const EVENTS_RETENTION_SECONDS = 7 * 24 * 3600;
export const EVENTS_MAX_LIMIT = 10_000;
export const EVENTS_DEFAULT_LIMIT = 1000;
/** Rows per INSERT for seeds and imports. */
export const BATCH_SIZE = 1000;
/** Rebuild lease length; refreshed while a long seed/import runs. */
export const REBUILD_LEASE_SECONDS = 60;
/** Rows (or names) per keyset query of a whole-catalogue download. */
export const STREAM_BATCH = 2000;
/** A whole-catalogue download whose reader takes nothing for this long is cut off (socket destroyed). */
export const STREAM_WRITE_TIMEOUT_MS = 30_000;
/** Retry-After (seconds) when every whole-catalogue download slot of the instance is taken. */
export const STREAM_BUSY_RETRY_AFTER_SECONDS = 5;
/** Page cache budget: total bytes of serialised page items kept per instance. */
export const PAGE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

export interface MerchantPricing {
  purchase_markup: number | string;
}

export interface ListingWire {
  id: string;
  name: string;
  price: number;
  image_url: string;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  class_id?: number;
  instance_id?: number;
  asset_id?: string;
  float?: number;
  paint_seed?: number;
  inspect_url?: string;
  phase?: string;
}

export interface GroupWire {
  name: string;
  count: number;
  price: number;
  game: Game;
  image_url: string;
}

export interface AvailableQuery {
  game: Game;
  full: boolean;
  extended: boolean;
  page?: number;
}

/** A page answer: `body` is the complete JSON envelope, ready to send. */
export type PageResult =
  | { kind: 'not-modified'; etag: string }
  | { kind: 'page'; etag: string; body: Buffer };

/** Knobs of whole-catalogue downloads; tests shorten them. `beforeBatch` is a test hook (fault injection). */
export interface StreamTuning {
  batchSize: number;
  writeTimeoutMs: number;
  beforeBatch?: (batchIndex: number) => void | Promise<void>;
}

interface CachedPage {
  version: number;
  /** The serialised `items` array. */
  items: Buffer;
  count: number;
}

export function markupOf(m: MerchantPricing): number {
  const n = Number(m.purchase_markup);
  return Number.isFinite(n) && n > 0 ? n : 1;
}

/** The price a merchant sees and pays for a listing (mills). */
export function salePrice(baseMills: number, merchant: MerchantPricing): number {
  return applyRate(baseMills, markupOf(merchant));
}

export function absoluteUrl(publicUrl: string, url: string | null | undefined): string {
  if (!url) return '';
  return url.startsWith('/') ? publicUrl + url : url;
}

/** Full form (2.6): optional fields omitted when unavailable; extended ones only on request. */
export function listingWire(l: ListingView, markup: number, extended: boolean, publicUrl: string): ListingWire {
  const out: ListingWire = { id: l.id, name: l.name, price: millsToUsd(applyRate(l.base_price, markup)), image_url: absoluteUrl(publicUrl, l.image_url) };
  if (l.exterior) out.exterior = l.exterior;
  if (l.rarity) out.rarity = l.rarity;
  if (l.rarity_color) out.rarity_color = l.rarity_color;
  if (extended) {
    if (l.class_id !== null) out.class_id = l.class_id;
    if (l.instance_id !== null) out.instance_id = l.instance_id;
    if (l.asset_id) out.asset_id = l.asset_id;
    if (l.float !== null) out.float = l.float;
    if (l.paint_seed !== null) out.paint_seed = l.paint_seed;
    if (l.inspect_url) out.inspect_url = l.inspect_url;
    if (l.phase) out.phase = l.phase;
  }
  return out;
}

export function groupWire(g: GroupRow, game: Game, markup: number, publicUrl: string): GroupWire {
  return { name: g.name, count: g.count, price: millsToUsd(applyRate(g.min_price, markup)), game, image_url: absoluteUrl(publicUrl, g.image_url) };
}

/** Weak comparison of an If-None-Match header against our ETag (lists and W/ allowed). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === bare;
  });
}

/** Fixed-width UTC ISO cursor (millisecond) ↔ epoch milliseconds. */
const CURSOR_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;
export function parseCursor(s: string): number | undefined {
  const m = CURSOR_RE.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${(m[7] ?? '0').padEnd(3, '0').slice(0, 3)}Z`);
  return Number.isFinite(ms) ? ms : undefined;
}

interface CatalogueDeps {
  config: Config;
  db: Db;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
}

export function createCatalogueService(deps: CatalogueDeps) {
  const { config, db, log } = deps;

  // ---- page cache: (game, page, full, extended, markup) → items bytes at one version; LRU by bytes.
  const pageCache = new Map<string, CachedPage>();
  let pageCacheBytes = 0;

  function cacheGet(key: string, version: number): CachedPage | undefined {
    const hit = pageCache.get(key);
    if (!hit || hit.version !== version) return undefined;
    // Map order is the LRU order: a hit moves to the back.
    pageCache.delete(key);
    pageCache.set(key, hit);
    return hit;
  }

  function cachePut(key: string, entry: CachedPage): void {
    const old = pageCache.get(key);
    // Concurrent requests can build from different snapshots: never replace a newer version.
    if (old && old.version > entry.version) return;
    if (old) {
      pageCache.delete(key);
      pageCacheBytes -= old.items.length;
    }
    if (entry.items.length > PAGE_CACHE_MAX_BYTES) return;
    while (pageCacheBytes + entry.items.length > PAGE_CACHE_MAX_BYTES && pageCache.size > 0) {
      const [k, v] = pageCache.entries().next().value as [string, CachedPage];
      pageCache.delete(k);
      pageCacheBytes -= v.items.length;
    }
    pageCache.set(key, entry);
    pageCacheBytes += entry.items.length;
  }

  // ---- whole-catalogue downloads in flight on this instance
  let activeStreams = 0;
  const streamTuning: StreamTuning = { batchSize: STREAM_BATCH, writeTimeoutMs: STREAM_WRITE_TIMEOUT_MS };

  async function assertNotRebuilding(): Promise<void> {
    const left = await rebuildSecondsLeft(db);
    if (left > 0) {
      const wait = Math.max(1, Math.min(5, Math.ceil(left)));
      throw new AppError(503, 'catalogue is being rebuilt, retry shortly', undefined, { 'retry-after': String(wait) });
    }
  }

  function pageUrl(queryString: string, page: number): string {
    const params = new URLSearchParams(queryString);
    params.set('page', String(page));
    return `${config.publicUrl}/api/v1/merchant/purchase/available?${params.toString()}`;
  }

  function etagOf(parts: (string | number | boolean)[]): string {
    return `"${crypto.createHash('sha1').update(parts.join('|')).digest('base64url')}"`;
  }

  /** Rebuild lease around `work`, refreshed by `touch()` from long loops. */
  async function withRebuild<T>(reason: string, work: (touch: () => Promise<void>) => Promise<T>): Promise<T> {
    let lastTouch = Date.now();
    await setRebuildLease(db, REBUILD_LEASE_SECONDS, reason);
    const touch = async () => {
      if (Date.now() - lastTouch > 10_000) {
        lastTouch = Date.now();
        await setRebuildLease(db, REBUILD_LEASE_SECONDS, reason);
      }
    };
    try {
      return await work(touch);
    } finally {
      await clearRebuildLease(db, reason).catch((err) => log.error({ err }, 'could not clear the catalogue rebuild lease'));
    }
  }

  const service = {
    assertNotRebuilding,
    withRebuild,

    /** Test/operator hook: open or close the rebuild window by hand. */
    async setRebuilding(on: boolean, seconds = REBUILD_LEASE_SECONDS): Promise<void> {
      if (on) await setRebuildLease(db, seconds, 'manual');
      else await clearRebuildLease(db);
    },

    /** Page cache size (tests and metrics). */
    pageCacheStats(): { entries: number; bytes: number } {
      return { entries: pageCache.size, bytes: pageCacheBytes };
    },

    /** Whole-catalogue downloads streaming now on this instance. */
    activeStreams(): number {
      return activeStreams;
    },

    /** Whole-catalogue download knobs (tests shorten them). */
    streamTuning,

    /**
     * One page (4.11). Full form: the listings whose page column is `page`. Grouped form: page 1
     * of 1 holding every name; pages after the last are empty, never an error.
     *
     * The items bytes come from the page cache when the content version matches; total,
     * next/previous (from this request's query string) and the envelope are written per request.
     */
    async page(merchant: MerchantPricing, q: AvailableQuery & { page: number }, queryString: string, ifNoneMatch?: string): Promise<PageResult> {
      await assertNotRebuilding();
      const markup = markupOf(merchant);
      const totalPages = q.full ? TOTAL_PAGES : 1;
      const past = q.page > totalPages;
      // Version, content and totals from one snapshot: an ETag never labels newer content than it has.
      const built = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          const meta = q.full && !past ? await pageMeta(trx, q.game, q.page) : await gameMeta(trx, q.game);
          const etag = etagOf([q.game, q.full ? q.page : Math.min(q.page, 2), meta.version, markup, q.full, q.extended, past]);
          if (etagMatches(ifNoneMatch, etag)) return { kind: 'not-modified', etag } as const;

          let page: CachedPage;
          let total: number;
          if (past) {
            // Empty, cheap to build: never cached (page=17…2^53 would be as many cache keys).
            page = { version: meta.version, items: Buffer.from('[]'), count: 0 };
            total = q.full ? meta.live_count : await countLiveNames(trx, q.game);
          } else {
            const key = `${q.game}|${q.full ? 'full' : 'grouped'}|${q.page}|${q.extended ? 'ext' : 'std'}|${markup}`;
            const cached = cacheGet(key, meta.version);
            if (cached) {
              page = cached;
            } else if (q.full) {
              const items = (await pageListings(trx, q.game, q.page)).map((l) => listingWire(l, markup, q.extended, config.publicUrl));
              page = { version: meta.version, items: Buffer.from(JSON.stringify(items)), count: items.length };
              cachePut(key, page);
            } else {
              const groups = await groupedListings(trx, q.game, null, 1_000_000);
              const items = groups.map((g) => groupWire(g, q.game, markup, config.publicUrl));
              page = { version: meta.version, items: Buffer.from(JSON.stringify(items)), count: items.length };
              cachePut(key, page);
            }
            total = q.full ? (await gameMeta(trx, q.game)).live_count : page.count;
          }
          return { kind: 'page', etag, page, total, lastUpdateAt: isoUtc(meta.updated_at) } as const;
        });
      if (built.kind === 'not-modified') return built;
      const head =
        `{"success":true,"message":"catalogue page listed","data":{"game":${JSON.stringify(q.game)},"total":${Number(built.total)},"items":`;
      const tail =
        `,"page":${q.page},"total_pages":${totalPages},"count":${built.page.count},` +
        `"next":${JSON.stringify(q.page < totalPages ? pageUrl(queryString, q.page + 1) : null)},` +
        `"previous":${JSON.stringify(q.page > 1 ? pageUrl(queryString, Math.min(q.page - 1, totalPages)) : null)},` +
        `"last_update_at":${JSON.stringify(built.lastUpdateAt)}}}`;
      return { kind: 'page', etag: built.etag, body: Buffer.concat([Buffer.from(head), built.page.items, Buffer.from(tail)]) };
    },

    /**
     * The whole catalogue of a game in one response, streamed in keyset batches (by listing ID,
     * or by name for the grouped form), so memory stays flat however large the catalogue is.
     *
     * Connections: every batch is its own short query on the shared pool; nothing is held while
     * the client reads, so slow clients cannot starve the API or the job worker.
     * Consistency: point-in-time per batch, not per response. Each listing (name) appears at most
     * once (the keyset only moves forward); a listing sold after its batch was read is still in
     * the body, one added behind the cursor is not. Prices are re-checked at purchase anyway (4.11);
     * the pages (ETags) and /purchase/events are the way to keep an exact copy. `total` is the
     * number of items written (counted on the way, written after them; JSON objects are unordered).
     * Limits: CATALOGUE_STREAM_CONCURRENCY downloads per instance, beyond → 503 + Retry-After; a
     * reader that takes nothing for writeTimeoutMs is dropped.
     * Errors: the 200 and the envelope's opening go out only with the first batch, so a failure
     * before it is a clean 503 envelope. A failure after it destroys the socket: the chunked body
     * ends without its terminating chunk, which every HTTP client reports as an error — a cut-off
     * body means "retry", never "this is the catalogue".
     */
    async stream(merchant: MerchantPricing, q: AvailableQuery): Promise<Readable> {
      await assertNotRebuilding();
      if (activeStreams >= config.catalogueStreamConcurrency) {
        throw new AppError(
          503,
          'internal error',
          [{ field: 'page', code: 'busy', message: 'too many whole-catalogue downloads at once; retry after Retry-After seconds, or read pages 1 to 16' }],
          { 'retry-after': String(STREAM_BUSY_RETRY_AFTER_SECONDS) },
        );
      }
      activeStreams++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        activeStreams--;
      };
      const markup = markupOf(merchant);
      const publicUrl = config.publicUrl;
      const tuning = { ...streamTuning };
      let batchIndex = 0;

      async function readBatch(after: string | null): Promise<{ json: string[]; after: string | null }> {
        await tuning.beforeBatch?.(batchIndex++);
        if (q.full) {
          const rows = await liveListingsAfter(db, q.game, after, tuning.batchSize);
          return { json: rows.map((l) => JSON.stringify(listingWire(l, markup, q.extended, publicUrl))), after: rows.at(-1)?.id ?? null };
        }
        const groups = await groupedListings(db, q.game, after, tuning.batchSize);
        return { json: groups.map((g) => JSON.stringify(groupWire(g, q.game, markup, publicUrl))), after: groups.at(-1)?.name ?? null };
      }

      let first: { json: string[]; after: string | null };
      try {
        first = await readBatch(null);
      } catch (err) {
        release();
        if (err instanceof AppError) throw err;
        log.error({ err, game: q.game }, 'whole-catalogue download failed before its first byte');
        throw new AppError(503, 'internal error', undefined, { 'retry-after': '1' });
      }

      let readable: Readable | undefined;
      const stall = () => readable?.destroy(new Error(`catalogue download: the client took nothing for ${tuning.writeTimeoutMs} ms`));
      async function* generate(): AsyncGenerator<string> {
        let batch = first;
        let total = 0;
        let prefix = `{"success":true,"message":"catalogue listed","data":{"game":${JSON.stringify(q.game)},"items":[`;
        for (;;) {
          if (batch.json.length > 0) {
            const chunk = prefix + (total > 0 ? ',' : '') + batch.json.join(',');
            prefix = '';
            total += batch.json.length;
            // Resumed only once the reader took the chunk: a stall longer than the timeout drops it.
            const timer = setTimeout(stall, tuning.writeTimeoutMs);
            try {
              yield chunk;
            } finally {
              clearTimeout(timer);
            }
          }
          if (batch.json.length < tuning.batchSize || batch.after === null) break;
          // A failure here (after the 200 went out) ends the stream with an error: Fastify then
          // destroys the socket (see the route), so the client sees a cut-off body, not bad JSON.
          batch = await readBatch(batch.after);
        }
        const timer = setTimeout(stall, tuning.writeTimeoutMs);
        try {
          yield `${prefix}],"total":${total}}}`;
        } finally {
          clearTimeout(timer);
        }
      }
      readable = Readable.from(generate(), { objectMode: false, highWaterMark: 1 });
      // 'close' comes after the end, an error, a stall or the client going away — also when the
      // generator never ran — so the slot is always given back.
      readable.once('close', release);
      return readable;
    },

    /** purchase/search (4.12): every live listing with one of the names, full form. */
    async search(merchant: MerchantPricing, game: Game, names: readonly string[], extended: boolean) {
      const markup = markupOf(merchant);
      const rows = await searchByNames(db, game, names);
      const items = rows.map((l) => listingWire(l, markup, extended, config.publicUrl));
      return { game, total: items.length, items };
    },

    /**
     * The change feed. `since` omitted = from now (after the last committed event). Events come
     * oldest first; a response never stops inside a millisecond, so `next` (last millisecond
     * + 1 ms) never skips an event.
     */
    async events(merchant: MerchantPricing, q: { since?: string; game?: Game; extended: boolean; limit: number }) {
      const markup = markupOf(merchant);
      await stampEvents(db); // events of finished writers get their place before we read
      const clock = await readClock(db);
      const nowCursor = clock.lastEventMs === null ? 0 : clock.lastEventMs + 1;
      const out = {
        since: '',
        next: '',
        count: 0,
        more: false,
        reset: false,
        events: [] as Array<{ type: 'upsert' | 'remove'; at: string; game: Game; id: string; item?: ListingWire }>,
      };
      let sinceMs: number;
      if (q.since === undefined) {
        sinceMs = nowCursor;
      } else {
        const parsed = parseCursor(q.since);
        if (parsed === undefined) throw new AppError(400, 'validation error', [{ field: 'since', code: 'format', message: 'since must be a cursor returned by this endpoint (UTC ISO 8601 timestamp)' }]);
        sinceMs = parsed;
      }
      out.since = isoUtc(sinceMs);
      if (clock.prunedThroughMs !== null && sinceMs <= clock.prunedThroughMs) {
        out.reset = true;
        out.next = isoUtc(nowCursor);
        return out;
      }
      const rows = await eventsSince(db, sinceMs, q.game, q.limit);
      let all: Array<{ id: number; at_ms: number; game: Game; type: 'upsert' | 'remove'; listing_id: string }> = rows;
      if (rows.length === q.limit && rows.length > 0) {
        const last = rows[rows.length - 1];
        const rest = await eventsRestOfMillisecond(db, last.at_raw, last.id, Number(last.at_ms) + 1, q.game);
        all = [...rows, ...rest];
      }
      if (all.length === 0) {
        out.next = out.since;
        return out;
      }
      const lastMs = Number(all[all.length - 1].at_ms);
      const nextMs = lastMs + 1;
      const listings = await listingsByIds(db, [...new Set(all.filter((e) => e.type === 'upsert').map((e) => e.listing_id))]);
      for (const e of all) {
        const ev: (typeof out.events)[number] = { type: e.type, at: isoUtc(Number(e.at_ms)), game: e.game, id: e.listing_id };
        if (e.type === 'upsert') {
          const l = listings.get(e.listing_id);
          if (l) ev.item = listingWire(l, markup, q.extended, config.publicUrl);
        }
        out.events.push(ev);
      }
      out.count = out.events.length;
      out.next = isoUtc(nextMs);
      out.more = rows.length === q.limit && (await eventsExistFrom(db, nextMs, q.game));
      return out;
    },

    pruneEvents: async (olderThanSeconds = EVENTS_RETENTION_SECONDS) => {
      await stampEvents(db); // also stamps when nobody reads the feed, so unstamped rows stay few
      return pruneEvents(db, olderThanSeconds);
    },

    /**
     * Seeds the sandbox catalogue (idempotent across restarts and instances). Skips all work when
     * the seed is already complete; otherwise inserts in batches under the rebuild lease.
     */
    async seedSandbox(size: number, entries: readonly SeedBookEntry[]): Promise<number> {
      if (size <= 0 || entries.length === 0) return 0;
      if ((await countBySource(db, 'seed')) >= size) return 0;
      const book = indexBook(entries);
      return withRebuild('seed', async (touch) => {
        let inserted = 0;
        let batch: ListingInput[] = [];
        for (let i = 0; i < size; i++) {
          const l = seedListing(i, book);
          if (l) batch.push(l);
          if (batch.length >= BATCH_SIZE) {
            inserted += await insertListingsIgnore(db, batch);
            batch = [];
            await touch();
          }
        }
        inserted += await insertListingsIgnore(db, batch);
        log.info({ inserted, size }, 'sandbox catalogue seeded');
        return inserted;
      });
    },

    /**
     * Items of a completed deposit become listings (job catalogue_add_deposit_items). Replayable:
     * the listing ID is derived from (deposit, asset), and existing IDs are left alone.
     */
    async addDepositItems(depositId: number): Promise<number> {
      const dep = await sqlDeposit(db, depositId);
      if (!dep) {
        log.warn({ depositId }, 'catalogue_add_deposit_items: deposit not found');
        return 0;
      }
      if (dep.status !== undefined && dep.status !== null && dep.status !== 'completed') {
        log.warn({ depositId, status: dep.status }, 'catalogue_add_deposit_items: deposit is not completed; nothing listed');
        return 0;
      }
      const items = await sqlDepositItems(db, depositId);
      const rows: ListingInput[] = items.map((it, idx) => ({
        id: depositListingId(depositId, it.asset_id ?? `#${idx}`),
        game: dep.game,
        name: it.market_hash_name,
        base_price: Number(it.original_price ?? it.price),
        image_url: it.image_url ?? '',
        exterior: it.exterior,
        rarity: it.rarity,
        rarity_color: it.rarity_color,
        phase: it.phase,
        source: 'deposit',
        source_ref: `deposit:${depositId}:${it.asset_id ?? idx}`,
      }));
      let n = 0;
      for (let i = 0; i < rows.length; i += BATCH_SIZE) n += await insertListingsIgnore(db, rows.slice(i, i + BATCH_SIZE));
      return n;
    },
  };
  return service;
}

/** Deterministic listing ID of a deposited item: 40 lowercase hex characters. */
export function depositListingId(depositId: number, assetId: string): string {
  return crypto.createHash('sha256').update(`deposit:${depositId}:${assetId}`).digest('hex').slice(0, 40);
}

// The deposits tables belong to the deposits feature; read them with plain SQL (and the items as
// JSON) so this module depends only on the columns named in its contract.

async function sqlDeposit(db: Db, id: number) {
  const r = await sql<{ id: number; merchant_id: number; game: Game; status: string | null }>`
    select id, merchant_id, game, status from deposits where id = ${id}`.execute(db);
  return r.rows[0];
}

async function sqlDepositItems(db: Db, depositId: number) {
  const r = await sql<{ j: Record<string, unknown> }>`
    select to_jsonb(di) as j from deposit_items di where di.deposit_id = ${depositId} order by di.id`.execute(db);
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
  return r.rows.map(({ j }) => ({
    asset_id: j.asset_id === null || j.asset_id === undefined ? null : String(j.asset_id),
    market_hash_name: String(j.market_hash_name),
    price: num(j.price) ?? 0,
    original_price: num(j.original_price),
    image_url: str(j.image_url),
    exterior: str(j.exterior),
    rarity: str(j.rarity),
    rarity_color: str(j.rarity_color),
    phase: str(j.phase),
  }));
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
