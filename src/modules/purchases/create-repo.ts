// The two statements of a purchase's creation (create.ts), so that its transaction is BEGIN, two
// round trips, COMMIT (it was seven: insert, listing lock, savepoint, add_jobs, debit, reserve):
//
//  1. claimAndLock: take the merchant_tx_id's advisory lock (a concurrent twin waits there: see
//     migration 022), insert the purchase (ON CONFLICT DO NOTHING on merchant_tx_id: a twin
//     committed first → nothing) and, only if it was inserted, pick and
//     row-lock the listing — by id (FOR UPDATE: a concurrent buyer waits, then sees it reserved) or
//     the cheapest live one of a name (FOR UPDATE SKIP LOCKED: concurrent buyers of one name take
//     different listings).
//  2. reserveAndDebit, after the price is computed (salePrice, in TypeScript): the debit
//     (applyMovement's guarded balance update and ledger entry, key `purchase:<id>:reserve`), the
//     listing reserved, the purchase's item snapshot (its commit wakes the dispatcher) — all or nothing, so no
//     savepoint: the debit happens only while the (locked) listing is live, and everything after
//     it only if it happened.
// Lock order as in purchase-repo.ts: purchases row → listings row → balances row → the listing
// UPDATE (its trigger adds an unstamped feed event). The balances row lock is taken by the second
// statement and held only until the COMMIT that follows it.
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import { LISTING_COLUMNS, type ListingView } from '../catalogue/catalogue-repo.js';
import type { NewPurchase, PurchaseRow } from './purchase-repo.js';
import { movementCtes } from '../ledger/ledger-repo.js';
import { PURCHASE_PENDING_WRITE } from './purchase-jobs.js';

export type ListingChoice = { assetId: string; game: Game } | { name: string; game: Game };

const LISTING_SELECT = sql.raw(LISTING_COLUMNS.join(', '));
const LISTING_AS = sql.raw(LISTING_COLUMNS.map((c) => `l.${c} as "l.${c}"`).join(', '));

/**
 * Statement 1. `purchase` undefined: a purchase with this merchant_tx_id exists (nothing done).
 * `listing` undefined: none to buy (no such id in the game; no live listing of the name).
 */
export async function claimAndLock(trx: Trx, p: NewPurchase, choice: ListingChoice): Promise<{ purchase?: PurchaseRow; listing?: ListingView }> {
  const pick =
    'assetId' in choice
      ? sql`select ${LISTING_SELECT} from listings
             where id = ${choice.assetId} and game = ${choice.game} and exists (select 1 from p)
             for update`
      : sql`select ${LISTING_SELECT} from listings
             where game = ${choice.game} and name = ${choice.name} and status = 'live' and exists (select 1 from p)
             order by base_price, id limit 1
             for update skip locked`;
  // The merchant_tx_id's advisory lock first (migration 022: every creator holds it from before its
  // insert to its commit, so a batch never waits on the unique index for this one).
  const r = await sql<Record<string, unknown>>`
    with p as (
      insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, platform_name, platform_avatar_url,
                             status, created_at, updated_at)
      select ${p.merchant_id}, ${p.merchant_tx_id}, ${p.game}, ${p.partner}, ${p.token}, ${p.platform_id}, ${p.platform_name},
             ${p.platform_avatar_url}, 'pending', ${p.created_at}::timestamptz, ${p.created_at}::timestamptz
        from (select pg_advisory_xact_lock(22, purchase_tx_lock_key(${p.merchant_id}::bigint, ${p.merchant_tx_id}::text))) tx_lock -- none without one (strict)
      on conflict on constraint purchases_merchant_tx_id_key do nothing
      returning *
    ), l as (${pick})
    select p.*, ${LISTING_AS} from p left join l on true`.execute(trx);
  const row = r.rows[0];
  if (!row) return {};
  const purchase: Record<string, unknown> = {};
  const listing: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k.startsWith('l.')) listing[k.slice(2)] = v;
    else purchase[k] = v;
  }
  return { purchase: purchase as PurchaseRow, listing: listing.id == null ? undefined : (listing as ListingView) };
}

export interface Reservation {
  purchase: PurchaseRow;
  listing: ListingView;
  /** What the merchant pays (mills): salePrice of the listing. */
  price: number;
  now: Date;
}

/**
 * Statement 2: the reserved purchase, or why nothing was done ('item_sold': the locked listing is
 * not live; 'insufficient_balance': available < price). Never overdraws: the guarded update
 * (available - price >= 0) and the balances CHECK constraint.
 */
export async function reserveAndDebit(trx: Trx, r: Reservation): Promise<PurchaseRow | 'item_sold' | 'insufficient_balance'> {
  const { purchase: p, listing: l, price } = r;
  if (!Number.isSafeInteger(price) || price < 0) throw new Error(`purchase ${p.id}: price must be integer mills`);
  // Marked: its commit wakes the purchase dispatcher.
  const res = await sql<PurchaseRow & { live: number; debited: number }>`${sql.raw(PURCHASE_PENDING_WRITE)}
    with live as (
      select id from listings where id = ${l.id} and status = 'live'
    ), ${movementCtes(
      { merchantId: p.merchant_id, key: `purchase:${p.id}:reserve`, kind: 'purchase_reserve', availableDelta: -price, holdDelta: 0, refType: 'purchase', refId: p.id },
      sql`exists (select 1 from live)`,
    )}, reserved as (
      update listings set status = 'reserved', reserved_by = ${p.id}, updated_at = now()
       where id = ${l.id} and status = 'live' and exists (select 1 from ins)
      returning id
    ), pur as (
      update purchases
         set listing_id = ${l.id}, item_name = ${l.name}, item_price = ${price}, item_image_url = ${l.image_url},
             item_asset_id = ${l.asset_id}, amount = ${price}, updated_at = ${r.now}
       where id = ${p.id} and exists (select 1 from reserved)
      returning *
    )
    select (select count(*) from live)::int as live, (select count(*) from upd)::int as debited, pur.*
      from (select 1) one left join pur on true`.execute(trx);
  const row = res.rows[0];
  if (row.id != null) {
    const { live: _live, debited: _debited, ...purchase } = row;
    return purchase as PurchaseRow;
  }
  return row.live === 0 ? 'item_sold' : 'insufficient_balance';
}

export interface CreationInput {
  purchase: NewPurchase;
  choice: ListingChoice;
  /** markupOf(merchant): the SQL prices the listing as salePrice does. */
  markup: number;
  maxPrice?: number;
}
