// Retention's SQL: one bounded statement per call, each its own short transaction, so a
// prune never holds many row locks or a long snapshot. Three shapes, by how a table is ordered:
//  - head walk: tables whose key grows with time (bigserial, record ids): from the oldest, take
//    `limit` rows by the key (SKIP LOCKED), delete those past the cutoff, go on after the last key
//    taken. A batch that deletes nothing has reached the recent rows: the table is done for this
//    run (a few rows out of time order, e.g. a long transaction's, do not stop the walk).
//  - by index: rows found through a partial index of their own (drafts, exhausted events).
//  - page walk: tables not ordered by time (upserted or keyed by text): a range of heap pages
//    (TID range scan, ctid between two pages) per statement, from page 0 to the end.
// Rows other records may name go only when nothing that must stay names them: listings (no open
// purchase), price bases (no deposit item, no quote), reconciliation runs (never the latest).
// The ledger and the money records (balances, ledger_entries, deposits past their draft,
// purchases, withdrawals, top_ups) are never named here.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';

const cutoff = (days: number) => sql`now() - make_interval(days => ${days}::int)`;

/** A table walked from its oldest rows by a key that grows with time. */
interface HeadWalk {
  table: string;
  key: string;
  /** The column compared with the cutoff. */
  at: string;
}

/** A table walked by heap pages, with the condition (on the cutoff) a row must meet to go. */
interface PageWalk {
  table: string;
  old: (cut: RawBuilder<unknown>) => RawBuilder<unknown>;
}

export const HEAD_WALKS = {
  status_history: { table: 'record_status_history', key: 'id', at: 'at' },
  sandbox_deposit_offers: { table: 'sandbox_deposit_offers', key: 'deposit_id', at: 'created_at' },
  sandbox_purchase_offers: { table: 'sandbox_purchase_offers', key: 'purchase_id', at: 'created_at' },
  sandbox_trades: { table: 'sandbox_trades', key: 'trade_id', at: 'accepted_at' },
} satisfies Record<string, HeadWalk>;

export const PAGE_WALKS = {
  inventory_snapshots: { table: 'inventory_snapshots', old: (c) => sql`expires_at < ${c}` },
  dashboard_sessions: { table: 'dashboard_sessions', old: (c) => sql`least(expires_at, coalesce(revoked_at, expires_at)) < ${c}` },
  dashboard_invitations: { table: 'dashboard_invitations', old: (c) => sql`accepted_at is null and expires_at < ${c}` },
  sign_in_address_attempts: { table: 'sign_in_address_attempts', old: (c) => sql`window_started_at < ${c}` },
  sandbox_bot_items: { table: 'sandbox_bot_items', old: (c) => sql`gone_at < ${c}` },
  sandbox_departed_assets: { table: 'sandbox_departed_assets', old: (c) => sql`departed_at < ${c}` },
  // Sold or delisted, and named by no open purchase (a purchase keeps its own copy of the item;
  // live and reserved listings never go).
  listings: {
    table: 'listings',
    old: (c) => sql`status in ('sold', 'delisted') and updated_at < ${c}
      and not exists (select 1 from purchases p where p.listing_id = listings.id and p.status in ('new', 'pending', 'active', 'hold'))`,
  },
} satisfies Record<string, PageWalk>;

/**
 * From key `after` on, takes the next `limit` rows by key (SKIP LOCKED) and deletes those older than
 * `days`; returns how many went, how many were taken and the last key taken (the next call's `after`).
 */
export async function pruneHead(db: Db, w: HeadWalk, days: number, limit: number, after: number): Promise<{ deleted: number; taken: number; last: number }> {
  const t = sql.table(w.table);
  const k = sql.ref(w.key);
  const r = await sql<{ deleted: string; taken: string; last: string | null }>`
    with head as (select ctid as c, ${k} as k, ${sql.ref(w.at)} as at from ${t} where ${k} > ${after} order by ${k} limit ${limit} for update skip locked),
         d as (delete from ${t} where ctid = any(array(select c from head where head.at < ${cutoff(days)})) returning 1)
    select (select count(*) from d) as deleted, (select count(*) from head) as taken, (select max(k) from head) as last`.execute(db);
  const row = r.rows[0];
  return { deleted: Number(row?.deleted ?? 0), taken: Number(row?.taken ?? 0), last: Number(row?.last ?? after) };
}

/** The table's size in heap pages now (rows appended later are the next run's). */
export async function pagesOf(db: Db, table: string): Promise<number> {
  const r = await sql<{ pages: string }>`select (pg_relation_size(${table}::regclass) / current_setting('block_size')::int)::bigint as pages`.execute(db);
  return Number(r.rows[0]?.pages ?? 0);
}

/** Deletes the old rows of heap pages [from, to) (SKIP LOCKED: a row in use waits for the next run); returns how many. */
export async function prunePages(db: Db, w: PageWalk, days: number, from: number, to: number): Promise<number> {
  const t = sql.table(w.table);
  const r = await sql`delete from ${t} where ctid = any(array(
     select ctid from ${t} where ctid >= ${`(${from},0)`}::tid and ctid < ${`(${to},0)`}::tid and ${w.old(cutoff(days))}
        for update skip locked))`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/**
 * Uncommitted drafts `days` past their expiry: get-prices quotes (quote_expires_at) and intents
 * whose hosted page was never used (hosted_expires_at). A draft holds no money and sent no
 * offer; its quote lines and items go with it (ON DELETE CASCADE), its status history here.
 */
export async function pruneDrafts(db: Db, days: number, limit: number): Promise<number> {
  const r = await sql<{ n: string }>`
    with d as (
      delete from deposits where id in (
        select id from deposits
         where status = 'new' and coalesce(hosted_expires_at, quote_expires_at, created_at) < ${cutoff(days)}
         order by id limit ${limit} for update skip locked)
      returning id),
    h as (delete from record_status_history s using d where s.kind = 'deposit' and s.record_id = d.id)
    select count(*) as n from d`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** Exhausted webhook events (and their attempts, by cascade) whose last attempt is `days` old. */
export async function pruneExhaustedEvents(db: Db, days: number, limit: number): Promise<number> {
  const r = await sql`
    delete from webhook_events where id in (
      select id from webhook_events
       where state = 'exhausted' and last_attempt_at < ${cutoff(days)}
       order by last_attempt_at limit ${limit} for update skip locked)`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/**
 * Job history older than `days`: jobs graphile-worker gave up on (attempts spent, not locked),
 * and outbox rows that could not be relayed (job_outbox_failed); heartbeats of gone workers are
 * src/db/job-locks.ts's. These tables hold only what is waiting or failed, so they are small; one bounded statement each.
 */
export async function pruneJobHistory(db: Db, days: number, limit: number): Promise<number> {
  const r = await sql<{ n: string }>`
    with j as (
      delete from graphile_worker._private_jobs where id in (
        select id from graphile_worker._private_jobs
         where attempts >= max_attempts and locked_at is null and updated_at < ${cutoff(days)}
         limit ${limit} for update skip locked)
      returning 1),
    f as (
      delete from job_outbox_failed where id in (
        select id from job_outbox_failed where failed_at < ${cutoff(days)} order by id limit ${limit} for update skip locked)
      returning 1)
    select (select count(*) from j) + (select count(*) from f) as n`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * Folds up to `limit` purchase count deltas (purchase_counts) into the base row of their merchant and
 * status, in one statement: the deltas deleted and their sums added together, so the count a
 * reader sums is the same before and after. Returns how many deltas went.
 */
export async function foldPurchaseCounts(db: Db, limit: number): Promise<number> {
  const r = await sql<{ n: string }>`
    with d as (
      delete from purchase_counts where ctid = any(array(
        select ctid from purchase_counts where not base limit ${limit} for update skip locked))
      returning merchant_id, status, n),
    u as (
      insert into purchase_counts (merchant_id, status, n, base)
      select merchant_id, status, sum(n), true from d group by merchant_id, status
      on conflict (merchant_id, status) where base do update set n = purchase_counts.n + excluded.n)
    select count(*) as n from d`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * From id `after` on, the next `limit` price bases computed before the cutoff (ids grow with time);
 * deletes those a newer basis of the same item replaced before the cutoff and nothing names.
 */
export async function prunePriceBases(db: Db, days: number, limit: number, after: number): Promise<{ deleted: number; taken: number; last: number }> {
  const r = await sql<{ deleted: string; taken: string; last: string | null }>`
    with head as (
      select ctid as c, id, game, market_hash_name from price_bases
       where id > ${after} and computed_at < ${cutoff(days)} order by id limit ${limit} for update skip locked),
    gone as (
      select h.c from head h
       cross join lateral (select n.id, n.computed_at from price_bases n
                            where n.game = h.game and n.market_hash_name = h.market_hash_name and n.id > h.id order by n.id limit 1) nx
       where nx.computed_at < ${cutoff(days)}
         and not exists (select 1 from deposit_items i where i.price_basis_id = h.id)
         and not exists (select 1 from deposit_quotes q where q.price_version >= h.id and q.price_version < nx.id)),
    d as (delete from price_bases where ctid = any(array(select c from gone)) returning 1)
    select (select count(*) from d) as deleted, (select count(*) from head) as taken, (select max(id) from head) as last`.execute(db);
  const row = r.rows[0];
  return { deleted: Number(row?.deleted ?? 0), taken: Number(row?.taken ?? 0), last: Number(row?.last ?? after) };
}

/** Reconciliation runs started `days` ago (their discrepancies by cascade), but the latest finished one. */
export async function pruneReconcileRuns(db: Db, days: number, limit: number): Promise<number> {
  const r = await sql`
    delete from reconcile_runs where id in (
      select id from reconcile_runs
       where started_at < ${cutoff(days)}
         and id is distinct from (select max(id) from reconcile_runs where finished_at is not null)
       order by id limit ${limit} for update skip locked)`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
