// Catalogue SQL. Listings, per-page versions and the change feed are kept consistent by the
// statement-level triggers of 003_purchases.sql (as changed by 008_feed_watermark.sql): every
// write path here is a plain INSERT/UPDATE on `listings`, and the triggers add the (unstamped)
// catalogue_events rows in the same statement (so in the same transaction). stampEvents gives
// committed events their feed position and folds them into catalogue_pages.
import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import type { ListingsTable, ListingSource } from '../../db/tables/purchases.js';

export type ListingRow = Selectable<ListingsTable>;

export interface ListingInput {
  id: string;
  game: Game;
  name: string;
  base_price: number;
  image_url: string;
  exterior?: string | null;
  rarity?: string | null;
  rarity_color?: string | null;
  class_id?: number | null;
  instance_id?: number | null;
  asset_id?: string | null;
  float?: number | null;
  paint_seed?: number | null;
  inspect_url?: string | null;
  phase?: string | null;
  source: ListingSource;
  source_ref?: string | null;
}

/** Columns a reader needs (not the bookkeeping ones). */
export const LISTING_COLUMNS = [
  'id', 'game', 'name', 'base_price', 'image_url', 'exterior', 'rarity', 'rarity_color', 'class_id', 'instance_id',
  'asset_id', 'float', 'paint_seed', 'inspect_url', 'phase', 'status', 'page',
] as const;
export type ListingView = Pick<ListingRow, (typeof LISTING_COLUMNS)[number]>;

/** Listing IDs are lowercase hex or digits, at most 300 characters (DESIGN 8). */
export const LISTING_ID_RE = /^[0-9a-f]{1,300}$/;

/** Listing rows as the listings table takes them (every writer of listings: import, deposits, bot stock). */
export function toValues(rows: readonly ListingInput[]) {
  return rows.map((r) => ({
    id: r.id,
    game: r.game,
    name: r.name,
    base_price: r.base_price,
    image_url: r.image_url,
    exterior: r.exterior ?? null,
    rarity: r.rarity ?? null,
    rarity_color: r.rarity_color ?? null,
    class_id: r.class_id ?? null,
    instance_id: r.instance_id ?? null,
    asset_id: r.asset_id ?? null,
    float: r.float ?? null,
    paint_seed: r.paint_seed ?? null,
    inspect_url: r.inspect_url ?? null,
    phase: r.phase ?? null,
    source: r.source,
    source_ref: r.source_ref ?? null,
    reserved_by: null,
  }));
}

/**
 * One multi-row INSERT (callers batch ≤ 1000 rows: 18 columns × 1000 stays under the 65535
 * parameter limit). Existing IDs are left alone: seeds and deposit tasks are replayable.
 */
export async function insertListingsIgnore(db: Db | Trx, rows: readonly ListingInput[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await db
    .insertInto('listings')
    .values(toValues(rows))
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Import upsert: new IDs are inserted; a live listing with the same ID takes the file's fields
 * (re-pricing) when anything differs; reserved or sold listings are not touched.
 */
export async function upsertListings(db: Db | Trx, rows: readonly ListingInput[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await db
    .insertInto('listings')
    .values(toValues(rows))
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          base_price: eb.ref('excluded.base_price'),
          image_url: eb.ref('excluded.image_url'),
          exterior: eb.ref('excluded.exterior'),
          rarity: eb.ref('excluded.rarity'),
          rarity_color: eb.ref('excluded.rarity_color'),
          class_id: eb.ref('excluded.class_id'),
          instance_id: eb.ref('excluded.instance_id'),
          asset_id: eb.ref('excluded.asset_id'),
          float: eb.ref('excluded.float'),
          paint_seed: eb.ref('excluded.paint_seed'),
          inspect_url: eb.ref('excluded.inspect_url'),
          phase: eb.ref('excluded.phase'),
          updated_at: sql`now()`,
        }))
        .where('listings.status', '=', 'live')
        .where(
          sql<boolean>`(listings.game, listings.name, listings.base_price, listings.image_url, listings.exterior, listings.rarity,
                        listings.rarity_color, listings.class_id, listings.instance_id, listings.asset_id, listings.float,
                        listings.paint_seed, listings.inspect_url, listings.phase)
                       is distinct from
                       (listings.game, excluded.name, excluded.base_price, excluded.image_url, excluded.exterior, excluded.rarity,
                        excluded.rarity_color, excluded.class_id, excluded.instance_id, excluded.asset_id, excluded.float,
                        excluded.paint_seed, excluded.inspect_url, excluded.phase)`,
        ),
    )
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0);
}

export async function countBySource(db: Db, source: ListingSource): Promise<number> {
  const r = await db.selectFrom('listings').select((eb) => eb.fn.countAll<number>().as('n')).where('source', '=', source).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function findListing(db: Db | Trx, id: string): Promise<ListingView | undefined> {
  return db.selectFrom('listings').select(LISTING_COLUMNS).where('id', '=', id).executeTakeFirst();
}

// ---- rebuild lease --------------------------------------------------------------------------

/** Seconds left on the rebuild lease (0 = not rebuilding). Compared on the database clock. */
export async function rebuildSecondsLeft(db: Db | Trx): Promise<number> {
  const r = await sql<{ left: number | null }>`
    select extract(epoch from (rebuilding_until - now()))::float8 as left from catalogue_state where id = 1`.execute(db);
  const left = r.rows[0]?.left;
  return left && left > 0 ? left : 0;
}

/** Instances listen here for stamped catalogue changes and rebuild-lease changes (page-state.ts). */
export const CATALOGUE_CHANGED_CHANNEL = 'catalogue_changed';
// Sent in the statement's own transaction, so delivered at its commit.
const NOTIFY_CHANGED = sql`select pg_notify(${CATALOGUE_CHANGED_CHANNEL}, '')`;

export async function setRebuildLease(db: Db, seconds: number, reason: string): Promise<void> {
  await sql`with u as (update catalogue_state set rebuilding_until = now() + make_interval(secs => ${seconds}), rebuild_reason = ${reason} where id = 1 returning 1)
    ${NOTIFY_CHANGED} from u`.execute(db);
}

export async function clearRebuildLease(db: Db, reason?: string): Promise<void> {
  await sql`with u as (update catalogue_state set rebuilding_until = null, rebuild_reason = null
                        where id = 1 and (${reason ?? null}::text is null or rebuild_reason = ${reason ?? null}::text) returning 1)
    ${NOTIFY_CHANGED} from u`.execute(db);
}

export interface PageStateRow {
  game: Game;
  page: number;
  version: string;
  live_count: string;
  updated_at: Date;
  feed_now_ms: string;
}

/** Every page's folded version, live count and last change, and the rebuild lease left (page-state.ts). */
export async function readPageStates(db: Db): Promise<{ rows: PageStateRow[]; rebuildLeftMs: number }> {
  const r = await sql<PageStateRow & { rebuild_left_ms: number | null }>`
    select p.game, p.page, p.version::text as version, p.live_count::text as live_count, p.updated_at,
           (extract(epoch from ${FEED_NOW}) * 1000)::bigint::text as feed_now_ms,
           (select extract(epoch from (rebuilding_until - now())) * 1000 from catalogue_state where id = 1)::float8 as rebuild_left_ms
      from catalogue_pages p`.execute(db);
  return { rows: r.rows, rebuildLeftMs: Math.max(0, Number(r.rows[0]?.rebuild_left_ms ?? 0)) };
}

// ---- pages ----------------------------------------------------------------------------------

export interface PageMeta {
  version: number;
  live_count: number;
  updated_at: Date;
}

// Version and live count: the folded catalogue_pages row plus the page's unstamped events (the
// deltas writers leave, so they never lock the page row).
//
// last_update_at is a feed cursor (`since`): it must not pass an event the page does not reflect
// yet. updated_at is the stamp of the page's last folded change, and an event not stamped in
// this snapshot is stamped after the feed's last stamp seen here, so the cursor is the earlier
// of the two (DESIGN 8). (No event stamped yet: the epoch, the feed's own "now" then.)
const FEED_NOW = sql`(select case when last_event_at = '-infinity' then timestamptz 'epoch'
  else date_trunc('milliseconds', last_event_at) + interval '1 millisecond' end from catalogue_clock where id = 1)`;

export async function pageMeta(db: Db | Trx, game: Game, page: number): Promise<PageMeta> {
  const r = await sql<PageMeta>`
    select p.version + coalesce(u.n, 0) as version, p.live_count + coalesce(u.delta, 0) as live_count,
           least(p.updated_at, ${FEED_NOW}) as updated_at
      from catalogue_pages p
      left join lateral (
        select count(*)::bigint as n, sum(delta)::bigint as delta from catalogue_events e
         where e.at is null and e.game = p.game and e.page = p.page) u on true
     where p.game = ${game} and p.page = ${page}`.execute(db);
  if (!r.rows[0]) throw new Error(`no catalogue page ${game}/${page}`);
  return r.rows[0];
}

/** The whole game: sum of page versions (each only grows, so the sum changes iff a page did). */
export async function gameMeta(db: Db | Trx, game: Game): Promise<PageMeta> {
  const r = await sql<PageMeta>`
    select p.version + coalesce(u.n, 0) as version, p.live_count + coalesce(u.delta, 0) as live_count,
           least(p.updated_at, ${FEED_NOW}) as updated_at
      from (select sum(version)::bigint as version, sum(live_count)::bigint as live_count, max(updated_at) as updated_at
              from catalogue_pages where game = ${game}) p,
           (select count(*)::bigint as n, sum(delta)::bigint as delta from catalogue_events
             where at is null and game = ${game}) u`.execute(db);
  return r.rows[0];
}

export async function pageListings(db: Db | Trx, game: Game, page: number): Promise<ListingView[]> {
  return db
    .selectFrom('listings')
    .select(LISTING_COLUMNS)
    .where('game', '=', game)
    .where('page', '=', page)
    .where('status', '=', 'live')
    .orderBy('id')
    .execute();
}

export interface GroupRow {
  name: string;
  count: number;
  min_price: number;
  image_url: string;
}

export async function groupedListings(db: Db | Trx, game: Game, afterName: string | null, limit: number): Promise<GroupRow[]> {
  const r = await sql<GroupRow>`
    select name, count(*)::int as count, min(base_price) as min_price, min(image_url) as image_url
      from listings
     where game = ${game} and status = 'live' and (${afterName}::text is null or name > ${afterName}::text)
     group by name
     order by name
     limit ${limit}`.execute(db);
  return r.rows;
}

/** Number of distinct names on sale (the grouped form's total). */
export async function countLiveNames(db: Db | Trx, game: Game): Promise<number> {
  const r = await sql<{ n: number }>`select count(distinct name)::int as n from listings where game = ${game} and status = 'live'`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

export async function liveListingsAfter(db: Db | Trx, game: Game, afterId: string | null, limit: number): Promise<ListingView[]> {
  let q = db.selectFrom('listings').select(LISTING_COLUMNS).where('game', '=', game).where('status', '=', 'live');
  if (afterId !== null) q = q.where('id', '>', afterId);
  return q.orderBy('id').limit(limit).execute();
}

export async function searchByNames(db: Db, game: Game, names: readonly string[]): Promise<ListingView[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('listings')
    .select(LISTING_COLUMNS)
    .where('game', '=', game)
    .where('status', '=', 'live')
    .where('name', 'in', [...names])
    .orderBy('name')
    .orderBy('base_price')
    .orderBy('id')
    .execute();
}

// ---- events ---------------------------------------------------------------------------------

/**
 * Gives finished transactions' events their place in the feed (their `at`). Its own statement
 * on the pool: the stampers' lock lasts only this statement, and writers never take it.
 */
export async function stampEvents(db: Db): Promise<number> {
  // When it stamped anything, every instance is told in the same transaction (page-state.ts).
  const r = await sql<{ n: number }>`
    select s.n from (select catalogue_stamp_events() as n) s
      left join lateral (${NOTIFY_CHANGED} where s.n > 0) x on true`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

export async function readClock(db: Db): Promise<{ lastEventMs: number | null; prunedThroughMs: number | null }> {
  const r = await sql<{ last: string | null; pruned: string | null }>`
    select case when last_event_at = '-infinity' then null
                else (extract(epoch from date_trunc('milliseconds', last_event_at)) * 1000)::bigint::text end as last,
           case when pruned_through = '-infinity' then null
                else (extract(epoch from date_trunc('milliseconds', pruned_through)) * 1000)::bigint::text end as pruned
      from catalogue_clock where id = 1`.execute(db);
  const row = r.rows[0];
  return { lastEventMs: row?.last ? Number(row.last) : null, prunedThroughMs: row?.pruned ? Number(row.pruned) : null };
}

export interface EventRow {
  id: number;
  at_ms: number;
  game: Game;
  type: 'upsert' | 'remove';
  listing_id: string;
}

const EVENT_SELECT = sql`e.id, (extract(epoch from date_trunc('milliseconds', e.at)) * 1000)::bigint as at_ms, e.game, e.type, e.listing_id`;

// The feed's reads and the prune go by catalogue_events' `at` indexes, which hold only stamped
// events (catalogue_events_at_idx, _game_at_idx): each condition on `at` below implies `at is not null`, which is what lets
// PostgreSQL use them (test/catalogue/events-plan.test.ts).

/** Events at or after `sinceMs` (inclusive, millisecond precision), oldest first. */
export async function eventsSince(db: Db, sinceMs: number, game: Game | undefined, limit: number): Promise<(EventRow & { at_raw: string })[]> {
  return (await eventsSinceStatement(sinceMs, game, limit).execute(db)).rows;
}

export function eventsSinceStatement(sinceMs: number, game: Game | undefined, limit: number) {
  return sql<EventRow & { at_raw: string }>`
    select ${EVENT_SELECT}, e.at::text as at_raw
      from catalogue_events e
     where e.at >= (timestamptz 'epoch' + ${sinceMs}::bigint * interval '1 millisecond')
       and (${game ?? null}::text is null or e.game = ${game ?? null}::text)
     order by e.at, e.id
     limit ${limit}`;
}

/** The rest of one millisecond after a given event (a page of events never ends inside one). */
export async function eventsRestOfMillisecond(db: Db, afterAtRaw: string, afterId: number, msEnd: number, game: Game | undefined): Promise<EventRow[]> {
  return (await eventsRestOfMillisecondStatement(afterAtRaw, afterId, msEnd, game).execute(db)).rows;
}

export function eventsRestOfMillisecondStatement(afterAtRaw: string, afterId: number, msEnd: number, game: Game | undefined) {
  return sql<EventRow>`
    select ${EVENT_SELECT}
      from catalogue_events e
     where (e.at, e.id) > (${afterAtRaw}::timestamptz, ${afterId}::bigint)
       and e.at < (timestamptz 'epoch' + ${msEnd}::bigint * interval '1 millisecond')
       and (${game ?? null}::text is null or e.game = ${game ?? null}::text)
     order by e.at, e.id`;
}

export async function eventsExistFrom(db: Db, fromMs: number, game: Game | undefined): Promise<boolean> {
  return (await eventsExistFromStatement(fromMs, game).execute(db)).rows.length > 0;
}

export function eventsExistFromStatement(fromMs: number, game: Game | undefined) {
  return sql<{ x: number }>`
    select 1 as x from catalogue_events e
     where e.at >= (timestamptz 'epoch' + ${fromMs}::bigint * interval '1 millisecond')
       and (${game ?? null}::text is null or e.game = ${game ?? null}::text)
     limit 1`;
}

export async function listingsByIds(db: Db, ids: readonly string[]): Promise<Map<string, ListingView>> {
  const out = new Map<string, ListingView>();
  if (ids.length === 0) return out;
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db.selectFrom('listings').select(LISTING_COLUMNS).where('id', 'in', [...ids.slice(i, i + 5000)]).execute();
    for (const r of rows) out.set(r.id, r);
  }
  return out;
}

/**
 * Drops events older than the cutoff and remembers the newest one dropped: a `since` at or before
 * it can no longer be served from history (reset: true).
 */
export async function pruneEvents(db: Db, olderThanSeconds: number): Promise<number> {
  const r = await pruneEventsStatement(olderThanSeconds).execute(db);
  return r.rows[0]?.n ?? 0;
}

export function pruneEventsStatement(olderThanSeconds: number) {
  return sql<{ n: number }>`
    with d as (
      delete from catalogue_events where at < now() - make_interval(secs => ${olderThanSeconds}) returning at
    ), c as (
      update catalogue_clock set pruned_through = greatest(pruned_through, (select max(at) from d))
       where id = 1 and exists (select 1 from d)
    )
    select count(*)::int as n from d`;
}
