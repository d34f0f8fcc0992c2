// Catalogue pages (spec 4.11, 4.12; DESIGN 7): one of 16 stable pages (or the grouped form) with
// its ETag, served from a page cache, and purchase/search.
// - ETag: derived from the (game, page) content version kept by the listings triggers, plus
//   everything else that shapes the body (markup, full, extended); 304 on If-None-Match.
// - last_update_at: the page's last change, millisecond UTC ISO; usable as `since` of
//   /purchase/events (the feed's `since` is inclusive, so nothing of that millisecond is missed).
// - Page cache: serialised items (bytes) keyed by what shapes them — (game, page, full, extended,
//   markup) at one content version — and capped by total bytes (PAGE_CACHE_MAX_BYTES, LRU). The
//   request's own query string never reaches the key: next/previous, total and the envelope are
//   written around the cached bytes per request, so `&x=1`, `&x=2`, … cannot multiply a 16 MB page.
import crypto from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { isoUtc } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { countLiveNames, gameMeta, groupedListings, pageListings, pageMeta, searchByNames } from './catalogue-repo.js';
import { etagMatches, groupWire, listingWire, markupOf, type AvailableQuery, type MerchantPricing } from './catalogue-views.js';
import type { PageState } from './page-state.js';
import { rebuildingError, type CatalogueWrites } from './writes.js';

export const TOTAL_PAGES = 16;
/** Page cache budget: total bytes of serialised page items kept per instance. */
export const PAGE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** A page answer: `body` is the complete JSON envelope, ready to send. */
export type PageResult =
  | { kind: 'not-modified'; etag: string }
  | { kind: 'page'; etag: string; body: Buffer };

interface CachedPage {
  version: number;
  /** The serialised `items` array. */
  items: Buffer;
  count: number;
}

export function createCataloguePages(deps: {
  db: Db;
  config: Pick<Config, 'publicUrl'>;
  writes: Pick<CatalogueWrites, 'assertNotRebuilding'>;
  state: Pick<PageState, 'snapshot'>;
}) {
  const { db, config, writes, state } = deps;
  const { assertNotRebuilding } = writes;

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

  function pageUrl(queryString: string, page: number): string {
    const params = new URLSearchParams(queryString);
    params.set('page', String(page));
    return `${config.publicUrl}/api/v1/merchant/purchase/available?${params.toString()}`;
  }

  // ETags are hashed once per (representation, version): the 304 path does no hashing. Bounded
  // like the key space of the page cache (a version change makes a new entry; cleared when full).
  const etags = new Map<string, string>();
  function etagOf(parts: (string | number | boolean)[]): string {
    const id = parts.join('|');
    let tag = etags.get(id);
    if (tag === undefined) {
      tag = `"${crypto.createHash('sha1').update(id).digest('base64url')}"`;
      if (etags.size >= 10_000) etags.clear();
      etags.set(id, tag);
    }
    return tag;
  }

  /**
   * One page (4.11). Full form: the listings whose page column is `page`. Grouped form: page 1
   * of 1 holding every name; pages after the last are empty, never an error.
   *
   * The items bytes come from the page cache when the content version matches; total,
   * next/previous (from this request's query string) and the envelope are written per request.
   */
  async function page(merchant: MerchantPricing, q: AvailableQuery & { page: number }, queryString: string, ifNoneMatch?: string): Promise<PageResult> {
    const markup = markupOf(merchant);
    const totalPages = q.full ? TOTAL_PAGES : 1;
    const past = q.page > totalPages;
    const fast = past ? undefined : fromMemory(markup, q, totalPages, queryString, ifNoneMatch);
    if (fast) return fast;
    await assertNotRebuilding();
    // Version, content and totals from one snapshot: an ETag never labels newer content than it has.
    const built = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const meta = q.full && !past ? await pageMeta(trx, q.game, q.page) : await gameMeta(trx, q.game);
        const etag = pageEtag(q, meta.version, markup, past);
        if (etagMatches(ifNoneMatch, etag)) return { kind: 'not-modified', etag } as const;

        let page: CachedPage;
        let total: number;
        if (past) {
          // Empty, cheap to build: never cached (page=17…2^53 would be as many cache keys).
          page = { version: meta.version, items: Buffer.from('[]'), count: 0 };
          total = q.full ? meta.live_count : await countLiveNames(trx, q.game);
        } else {
          const key = pageKey(q, markup);
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
    return { kind: 'page', etag: built.etag, body: pageBody(q, totalPages, queryString, built.total, built.page, built.lastUpdateAt) };
  }

  const pageKey = (q: AvailableQuery & { page: number }, markup: number) => `${q.game}|${q.full ? 'full' : 'grouped'}|${q.page}|${q.extended ? 'ext' : 'std'}|${markup}`;
  const pageEtag = (q: AvailableQuery & { page: number }, version: number, markup: number, past: boolean) =>
    etagOf([q.game, q.full ? q.page : Math.min(q.page, 2), version, markup, q.full, q.extended, past]);

  function pageBody(q: AvailableQuery & { page: number }, totalPages: number, queryString: string, total: number, page: CachedPage, lastUpdateAt: string): Buffer {
    const head = `{"success":true,"message":"catalogue page listed","data":{"game":${JSON.stringify(q.game)},"total":${Number(total)},"items":`;
    const tail =
      `,"page":${q.page},"total_pages":${totalPages},"count":${page.count},` +
      `"next":${JSON.stringify(q.page < totalPages ? pageUrl(queryString, q.page + 1) : null)},` +
      `"previous":${JSON.stringify(q.page > 1 ? pageUrl(queryString, Math.min(q.page - 1, totalPages)) : null)},` +
      `"last_update_at":${JSON.stringify(lastUpdateAt)}}}`;
    return Buffer.concat([Buffer.from(head), page.items, Buffer.from(tail)]);
  }

  /**
   * The page from memory (page-state.ts): the 304 when the ETag matches, else the cached bytes
   * at the version in memory. Undefined = ask the database (memory off, a local write not yet
   * read back, or no cached bytes at this version).
   */
  function fromMemory(markup: number, q: AvailableQuery & { page: number }, totalPages: number, queryString: string, ifNoneMatch?: string): PageResult | undefined {
    const snap = state.snapshot(q.game);
    if (!snap) return undefined;
    const left = snap.rebuildLeftMs();
    if (left > 0) throw rebuildingError(left / 1000);
    const meta = q.full ? snap.page(q.page) : snap.whole;
    if (!meta) return undefined;
    const etag = pageEtag(q, meta.version, markup, false);
    if (etagMatches(ifNoneMatch, etag)) return { kind: 'not-modified', etag };
    const cached = cacheGet(pageKey(q, markup), meta.version);
    if (!cached) return undefined;
    const total = q.full ? snap.whole.liveCount : cached.count;
    return { kind: 'page', etag, body: pageBody(q, totalPages, queryString, total, cached, isoUtc(meta.lastUpdateMs)) };
  }

  /**
   * The ETag of a 304 decided from memory alone, as page() would decide it (no await, no
   * database, no throw); undefined whenever page() would answer anything else or has to ask the
   * database. Used by the 304 lane in front of the router (not-modified-lane.ts).
   */
  function notModified(merchant: MerchantPricing, q: AvailableQuery & { page: number }, ifNoneMatch: string): string | undefined {
    if (q.page > (q.full ? TOTAL_PAGES : 1)) return undefined;
    const snap = state.snapshot(q.game);
    if (!snap || snap.rebuildLeftMs() > 0) return undefined;
    const meta = q.full ? snap.page(q.page) : snap.whole;
    if (!meta) return undefined;
    const etag = pageEtag(q, meta.version, markupOf(merchant), false);
    return etagMatches(ifNoneMatch, etag) ? etag : undefined;
  }

  // One build at a time per key: eight clients asking for a changed 1.6 MB grouped view cost one query.
  const building = new Map<string, Promise<CachedPage>>();

  /**
   * The grouped view without a page (the whole list of names) as one ready body, from the same
   * cached bytes as grouped page 1. Built from one snapshot when the version in memory moved,
   * and stored under that version (the content is at least that new). Undefined when memory is
   * off: the caller streams it instead (with the download cap).
   */
  async function groupedWhole(merchant: MerchantPricing, q: AvailableQuery): Promise<Buffer | undefined> {
    const snap = state.snapshot(q.game);
    if (!snap) return undefined;
    const left = snap.rebuildLeftMs();
    if (left > 0) throw rebuildingError(left / 1000);
    const markup = markupOf(merchant);
    const version = snap.whole.version;
    const key = pageKey({ ...q, full: false, page: 1 }, markup);
    let cached = cacheGet(key, version);
    if (!cached) {
      const flightKey = `${key}@${version}`;
      let flight = building.get(flightKey);
      if (!flight) {
        flight = (async () => {
          const groups = await groupedListings(db, q.game, null, 1_000_000);
          const items = groups.map((g) => groupWire(g, q.game, markup, config.publicUrl));
          const built: CachedPage = { version, items: Buffer.from(JSON.stringify(items)), count: items.length };
          cachePut(key, built);
          return built;
        })().finally(() => building.delete(flightKey));
        building.set(flightKey, flight);
      }
      cached = await flight;
    }
    const head = `{"success":true,"message":"catalogue listed","data":{"game":${JSON.stringify(q.game)},"items":`;
    return Buffer.concat([Buffer.from(head), cached.items, Buffer.from(`,"total":${cached.count}}}`)]);
  }

  /** purchase/search (4.12): every live listing with one of the names, full form. */
  async function search(merchant: MerchantPricing, game: Game, names: readonly string[], extended: boolean) {
    const markup = markupOf(merchant);
    const rows = await searchByNames(db, game, names);
    const items = rows.map((l) => listingWire(l, markup, extended, config.publicUrl));
    return { game, total: items.length, items };
  }

  /** Page cache size (tests and metrics). */
  function pageCacheStats(): { entries: number; bytes: number } {
    return { entries: pageCache.size, bytes: pageCacheBytes };
  }

  return { page, notModified, groupedWhole, search, pageCacheStats };
}
