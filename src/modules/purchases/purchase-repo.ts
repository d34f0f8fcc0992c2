// Purchase SQL. Every read filters by merchant_id (another merchant's purchase is a 404).
//
// Lock order, the same in every purchase transaction so they cannot deadlock each other:
//   purchases row (insert / guarded update) → listings row (SELECT … FOR UPDATE when buying)
//   → balances row (ledger_apply, through applyMovement) → the listing UPDATE, last: its statement
//   trigger adds an unstamped feed event (inserts only, no lock: the stamper orders them later).
// A refund or a charge locks the listing rows it will update before the balances row (lockListings),
// the order a late deposit reversal takes them in too (offer.ts: its listings, then the balances row).
// The balances row lock is shared by every money transaction of a merchant and is also held to
// commit: creation takes it inside its one statement (purchase_create_batch via create-repo.ts), so
// only that statement's rest and COMMIT run while it is held.
import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { everyColumn, findOwnRecord } from '../../db/prepared.js';
import { merchantOf } from '../../db/merchant-of-lookup.js';
import type { Game } from '../../domain/games.js';
import type { PurchaseStatus } from '../../domain/purchase-state.js';
import type { PurchasesTable } from '../../db/tables/purchases.js';

export type PurchaseRow = Selectable<PurchasesTable>;

/** Every column of purchases, named (db/prepared.ts everyColumn): what a prepared statement returns. */
export const PURCHASE_COLUMNS = everyColumn<PurchaseRow>()([
  'id', 'merchant_id', 'merchant_tx_id', 'status', 'fail_reason', 'fail_cause', 'game', 'partner', 'token', 'platform_id', 'platform_name',
  'platform_avatar_url', 'amount', 'listing_id', 'item_name', 'item_price', 'item_image_url', 'item_asset_id', 'bot_id', 'bot_name',
  'trade_offer_id', 'offer_expires_at', 'expiry_next_at', 'hold_end_date', 'dispatch_attempts', 'dispatch_started_at', 'dispatch_next_at',
  'created_at', 'updated_at',
]);
/** PURCHASE_COLUMNS of the alias p (what the prepared updates return). */
const purchaseColumnsOfP = sql.raw(PURCHASE_COLUMNS.map((c) => `p.${c}`).join(', '));

/** A new purchase: the purchases table's own columns (created_at from the injected clock). */
export type NewPurchase = Pick<
  PurchaseRow,
  'merchant_id' | 'merchant_tx_id' | 'game' | 'partner' | 'token' | 'platform_id' | 'platform_name' | 'platform_avatar_url'
> & { created_at: Date };

export async function findPurchase(db: Db | Trx, merchantId: number, q: { id?: number; merchantTxId?: string }): Promise<PurchaseRow | undefined> {
  return purchaseLookup(db, merchantId, q).executeTakeFirst();
}

/** findPurchase's statement (its plan is tested on statistics that do not know the merchant). */
export function purchaseLookup(db: Db | Trx, merchantId: number, q: { id?: number; merchantTxId?: string }) {
  let query = db.selectFrom('purchases').selectAll().where('merchant_id', '=', merchantOf(merchantId, q));
  if (q.id !== undefined) query = query.where('id', '=', q.id);
  if (q.merchantTxId !== undefined) query = query.where('merchant_tx_id', '=', q.merchantTxId);
  return query;
}

/** What the purchase's wire shape (purchase-views.ts) reads. */
export const PURCHASE_WIRE_COLUMNS = [
  'id', 'merchant_tx_id', 'status', 'fail_reason', 'platform_id', 'platform_name', 'platform_avatar_url', 'amount',
  'listing_id', 'item_name', 'item_price', 'item_image_url', 'trade_offer_id', 'hold_end_date', 'created_at',
] as const;
export type PurchaseWireRow = Pick<PurchaseRow, (typeof PURCHASE_WIRE_COLUMNS)[number]>;

/** purchase/status, a hot read: one round trip, a prepared statement per lookup form (db/prepared.ts). */
export function findPurchaseWire(db: Db, merchantId: number, q: { id?: number; merchantTxId?: string }): Promise<PurchaseWireRow | undefined> {
  return findOwnRecord<PurchaseWireRow>(db, { table: 'purchases', columns: PURCHASE_WIRE_COLUMNS, statement: 'purchase_wire' }, merchantId, q);
}

export async function getPurchase(db: Db | Trx, id: number): Promise<PurchaseRow | undefined> {
  return db.selectFrom('purchases').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The purchase, row-locked (the pending watchdog decides against a concurrent dispatch attempt). */
export async function getPurchaseForUpdate(trx: Trx, id: number): Promise<PurchaseRow | undefined> {
  return trx.selectFrom('purchases').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Dispatch marker, written (and committed) before an offer is sent: one more attempt, started
 * `now`, leased until `leaseUntil` (the dispatcher does not claim it meanwhile). Only while
 * pending — undefined means the purchase moved on (e.g. the watchdog failed it) and nothing may be sent.
 */
export async function markDispatchAttempt(db: Db, id: number, now: Date, leaseUntil: Date): Promise<PurchaseRow | undefined> {
  return db
    .updateTable('purchases')
    .set((eb) => ({ dispatch_attempts: eb('dispatch_attempts', '+', 1), dispatch_started_at: now, dispatch_next_at: leaseUntil }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/**
 * The dispatcher's claim, one autocommit statement that is also every claimed purchase's dispatch
 * marker: up to `limit` due pending purchases with attempts left, oldest due first, each given one
 * more attempt started `now` and leased until `leaseUntil`. SKIP LOCKED: a purchase another
 * instance is claiming (or a transition is changing) is left to it; the lease keeps it from being
 * claimed again while its attempt may still run.
 */
export async function claimDuePurchases(db: Db, o: { now: Date; leaseUntil: Date; limit: number; maxAttempts: number }): Promise<PurchaseRow[]> {
  return (await claimDueStatement(o).execute(db)).rows;
}

/**
 * claimDuePurchases's statement: a named prepared statement (db/prepared.ts; planning it was ≈ 250 µs
 * a claim, bench/RESULTS.md), its generic plan tested (test/purchases/dispatch-plan.test.ts).
 * A materialized CTE: the locking subquery runs once (as a join's inner side it may be rescanned).
 * The claimed ids as an InitPlan array instead (each row then found by its primary key) ran 4× longer
 * in the bench's one-merchant purchase run (946–1 269 µs a claim against 243 µs); alone, on an idle
 * table, the two take the same time.
 */
export function claimDueStatement(o: { now: Date; leaseUntil: Date; limit: number; maxAttempts: number }) {
  return sql<PurchaseRow>`/* prepared:purchase_claim_due */
    with due as materialized (
      select id from purchases
       where status = 'pending' and dispatch_next_at <= ${o.now} and dispatch_attempts < ${o.maxAttempts}
       order by dispatch_next_at, id
       limit ${o.limit}
       for update skip locked
    )
    update purchases p
       set dispatch_attempts = p.dispatch_attempts + 1, dispatch_started_at = ${o.now}, dispatch_next_at = ${o.leaseUntil}
      from due
     where p.id = due.id and p.status = 'pending'
    returning ${purchaseColumnsOfP}`;
}

/**
 * The pending watchdog's sweep: pending purchases created at or before `createdBy` whose dispatch
 * lease or retry time has passed, oldest first (the partial index of pending purchases).
 */
export async function stuckPendingIds(db: Db, o: { createdBy: Date; startedBy: Date; now: Date; limit: number }): Promise<number[]> {
  const r = await db
    .selectFrom('purchases')
    .select('id')
    .where('status', '=', 'pending')
    .where('dispatch_next_at', '<=', o.now)
    .where('created_at', '<=', o.createdBy)
    // An attempt started since may still be sending: the watchdog would leave it (and the sweep
    // would find it again at once).
    .where((eb) => eb.or([eb('dispatch_started_at', 'is', null), eb('dispatch_started_at', '<=', o.startedBy)]))
    .orderBy('dispatch_next_at')
    .orderBy('id')
    .limit(o.limit)
    .execute();
  return r.map((x) => Number(x.id));
}

/**
 * Takes up the active purchases whose offer expired by `now` (purchases_offer_expiry_idx, skipping
 * rows another transaction holds) for half the time each has been overdue, within [minMs, maxMs]:
 * another sweep leaves them until then (the most overdue are taken first). Answers their ids in id order.
 */
export async function takeUpExpiredOffers(db: Db, o: { now: Date; minMs: number; maxMs: number; limit: number }): Promise<number[]> {
  const r = await sql<{ id: string }>`
    update purchases p
       set expiry_next_at = ${o.now}::timestamptz
                          + least(${o.maxMs}::float8, greatest(${o.minMs}::float8, extract(epoch from ${o.now}::timestamptz - p.offer_expires_at) * 500))
                            * interval '1 millisecond'
      from (select id from purchases
             where status = 'active' and coalesce(expiry_next_at, offer_expires_at) <= ${o.now}
             order by coalesce(expiry_next_at, offer_expires_at), id
             limit ${o.limit}
               for update skip locked) due
     where p.id = due.id
    returning p.id`.execute(db);
  return r.rows.map((x) => Number(x.id)).sort((a, b) => a - b);
}

/** The offer-expiry sweep looks at an active purchase again at `at`. */
export async function lookAtExpiryAgain(db: Db, id: number, at: Date): Promise<void> {
  await db.updateTable('purchases').set({ expiry_next_at: at }).where('id', '=', id).where('status', '=', 'active').execute();
}

/** A failed attempt `attempt` comes back at `at` (unless the purchase moved on or another attempt started). */
export async function scheduleDispatchRetry(db: Db, id: number, attempt: number, at: Date): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ dispatch_next_at: at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('dispatch_attempts', '=', attempt)
    .execute();
}

export interface OfferToRecord {
  id: number;
  tradeOfferId: string;
  botId: number;
  botName: string;
  expiresAt: Date;
}

/** What a transition sets on a purchase (purchase-transitions.ts). */
export type PurchasePatch = Partial<Pick<PurchaseRow, 'status' | 'updated_at' | 'fail_reason' | 'fail_cause' | 'hold_end_date' | 'trade_offer_id' | 'bot_id' | 'bot_name' | 'offer_expires_at'>>;

/**
 * The guarded status change of one or several purchases, one statement: each is updated only while
 * still in the status it was read in (`from`; a concurrent change loses), with its own patch (the
 * columns absent from it keep their value). Locks in id order; a purchase no longer in `from` is
 * left out of the answer.
 */
export async function changePurchasesGuarded(trx: Trx, changes: Array<{ id: number; from: PurchaseStatus; patch: PurchasePatch }>): Promise<PurchaseRow[]> {
  if (changes.length === 0) return [];
  return (await changeGuardedStatement(changes).execute(trx)).rows;
}

/**
 * changePurchasesGuarded's statement, a named prepared statement (db/prepared.ts; planning it was
 * ≈ 330 µs a batch, bench/RESULTS.md), the rows as jsonb_to_recordset so the generic plan is
 * kept (db/prepared.ts; test/purchases/dispatch-plan.test.ts).
 */
export function changeGuardedStatement(changes: ReadonlyArray<{ id: number; from: PurchaseStatus; patch: PurchasePatch }>) {
  const items = JSON.stringify(changes.map((c) => ({ id: c.id, from_status: c.from, patch: c.patch })));
  return sql<PurchaseRow>`/* prepared:purchase_change_guarded */
    with v as (select * from jsonb_to_recordset(${items}::jsonb) as x(id bigint, from_status text, patch jsonb)),
    locked as (select p.id from purchases p join v on v.id = p.id where p.status = v.from_status order by p.id for update of p)
    update purchases p
       set (status, updated_at, fail_reason, fail_cause, hold_end_date, trade_offer_id, bot_id, bot_name, offer_expires_at)
         = (select s.status, s.updated_at, s.fail_reason, s.fail_cause, s.hold_end_date, s.trade_offer_id, s.bot_id, s.bot_name, s.offer_expires_at
              from jsonb_populate_record(p, v.patch) s)
      from v join locked l on l.id = v.id
     where p.id = v.id and p.status = v.from_status
    returning ${purchaseColumnsOfP}`;
}

// ---- listings, as purchases see them --------------------------------------------------------

/** Locks listing rows (in id order) before the balances row, as the lock order above says. */
export async function lockListings(trx: Trx, ids: readonly string[]): Promise<void> {
  await sql`select id from listings where id = any(${[...ids]}::text[]) order by id for update`.execute(trx);
}

/**
 * Canceled / failed / reverted purchase: the listing goes back on sale — unless its item was
 * withdrawn meanwhile (a deposit reversed after completion: catalogue_delist_deposit_items), then
 * it is delisted.
 */
export async function releaseListing(trx: Trx, id: string, purchaseId: number): Promise<void> {
  await trx
    .updateTable('listings')
    .set({ status: sql`case when withdrawn_at is null then 'live' else 'delisted' end` as never, reserved_by: null, updated_at: sql`now()` as never })
    .where('id', '=', id)
    .where('status', '=', 'reserved')
    .where('reserved_by', '=', purchaseId)
    .execute();
}

/** A purchase that follows the platform after its refund: its listing, back on sale, is reserved by it again. */
export async function reserveReleasedListing(trx: Trx, id: string, purchaseId: number): Promise<void> {
  await trx
    .updateTable('listings')
    .set({ status: 'reserved', reserved_by: purchaseId, updated_at: sql`now()` as never })
    .where('id', '=', id)
    .where('status', '=', 'live')
    .execute();
}

/** Completed purchase: the listing is gone for good (the row stays, status sold). */
export async function markListingSold(trx: Trx, id: string, purchaseId: number): Promise<void> {
  await trx
    .updateTable('listings')
    .set({ status: 'sold', updated_at: sql`now()` as never })
    .where('id', '=', id)
    .where('status', '=', 'reserved')
    .where('reserved_by', '=', purchaseId)
    .execute();
}

export async function ledgerKeyExists(trx: Trx, key: string): Promise<boolean> {
  const r = await trx.selectFrom('ledger_entries').select('id').where('key', '=', key).executeTakeFirst();
  return r !== undefined;
}

// ---- history --------------------------------------------------------------------------------

export const SORTS = ['id', '-id', 'merchant_tx_id', '-merchant_tx_id', 'status', '-status', 'amount', '-amount', 'created_at', '-created_at'] as const;
export type PurchaseSort = (typeof SORTS)[number];

export interface HistoryQuery {
  limit: number;
  offset: number;
  status?: PurchaseStatus;
  sinceDate?: Date;
  search?: string;
  sort: PurchaseSort;
}

/** `%`, `_` and the escape character itself match literally. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listPurchases(db: Db, merchantId: number, q: HistoryQuery): Promise<{ rows: PurchaseRow[]; total: number }> {
  let base = db.selectFrom('purchases').where('merchant_id', '=', merchantId);
  if (q.status) base = base.where('status', '=', q.status);
  if (q.sinceDate) base = base.where('created_at', '>=', q.sinceDate);
  if (q.search) {
    const pattern = `%${escapeLike(q.search)}%`;
    base = base.where((eb) =>
      eb.or([
        eb(sql`merchant_tx_id`, 'ilike', sql`${pattern} escape '\\'`),
        eb(sql`item_name`, 'ilike', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  const desc = q.sort.startsWith('-');
  const column = (desc ? q.sort.slice(1) : q.sort) as 'id' | 'merchant_tx_id' | 'status' | 'amount' | 'created_at';
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy(column, desc ? 'desc' : 'asc')
      .orderBy('id', desc ? 'desc' : 'asc')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    q.sinceDate || q.search ? base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow() : keptCount(db, merchantId, q.status),
  ]);
  return { rows, total: Number(count.n) };
}

/**
 * The merchant's purchases (of one status) from the kept counts (purchase_counts): a few rows per
 * merchant and status, whatever the merchant's size, and exact — the deltas are written in the
 * transaction that writes the purchase. A date range or a search is counted on the purchases
 * themselves (through the merchant's index: what matches, never the whole table).
 */
async function keptCount(db: Db, merchantId: number, status?: PurchaseStatus): Promise<{ n: string }> {
  const r = await sql<{ n: string }>`select coalesce(sum(n), 0) as n from purchase_counts
     where merchant_id = ${merchantId} ${status ? sql`and status = ${status}` : sql``}`.execute(db);
  return r.rows[0] ?? { n: '0' };
}
