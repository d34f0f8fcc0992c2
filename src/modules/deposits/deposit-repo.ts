// SQL of the deposits feature. Every merchant-facing query filters by merchant_id.
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { everyColumn, findOwnRecord, readPrepared } from '../../db/prepared.js';
import { merchantOf } from '../../db/merchant-of-lookup.js';
import type { DepositStatus } from '../../domain/deposit-state.js';
import type { DepositItemsTable, DepositsTable, SnapshotItem } from '../../db/tables/deposits.js';
import { unpackQuote, type QuotedPrice } from './quote-pack.js';
import { JOB_OUTBOX } from '../../jobs/enqueue.js';
import { WEBHOOK_EVENTS_WRITE } from '../webhooks/outbox.js';
import { InsufficientFundsError } from '../ledger/ledger-moves.js';

export type DepositRow = Selectable<DepositsTable>;
export type DepositItemRow = Selectable<DepositItemsTable>;
type Q = Db | Trx;

export function insertDeposit(q: Q, values: Insertable<DepositsTable>): Promise<DepositRow> {
  return q.insertInto('deposits').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Every column of deposits, named (db/prepared.ts everyColumn): the prepared reads below list them. */
export const DEPOSIT_COLUMNS = everyColumn<DepositRow>()([
  'id', 'merchant_id', 'merchant_tx_id', 'flow', 'status', 'game', 'partner', 'token', 'platform_id', 'amount', 'bot_id', 'bot_name',
  'bot_platform_id', 'trade_offer_id', 'trade_offer_expiry_at', 'hold_end_date', 'fail_reason', 'fail_cause', 'result_url', 'success_url',
  'fail_url', 'custom_currency', 'custom_currency_multiplier', 'custom_currency_rate', 'quote_expires_at', 'from_preview', 'hosted_token',
  'hosted_expires_at', 'created_at', 'updated_at',
]);
const depositColumns = sql.raw(DEPOSIT_COLUMNS.join(', '));

/**
 * A deposit by id. Both reads by id are named prepared statements (db/prepared.ts): planning them
 * cost PostgreSQL ≈ 120 µs a call on the bench machine, several times their execution (bench/RESULTS.md);
 * their generic plans are tested (test/deposits/accept-plan.test.ts).
 */
export async function findDepositById(q: Q, id: number): Promise<DepositRow | undefined> {
  const r = await sql<DepositRow>`/* prepared:deposit_by_id */ select ${depositColumns} from deposits where id = ${id}`.execute(q);
  return r.rows[0];
}

/** Deposits by id, in one round trip (the offer changes' grouped read: offer.ts). */
export async function findDepositsByIds(db: Db, ids: readonly number[]): Promise<DepositRow[]> {
  return (await depositsByIdsStatement(ids).execute(db)).rows;
}

/** findDepositsByIds's statement (its generic plan is tested): the ids through an InitPlan, so the generic plan is kept (db/prepared.ts). */
export function depositsByIdsStatement(ids: readonly number[]) {
  return sql<DepositRow>`/* prepared:deposits_by_ids */ select ${depositColumns} from deposits where id = any(array(select unnest(${ids}::bigint[])))`;
}

export function findMerchantDeposit(q: Q, merchantId: number, by: { id?: number; merchantTxId?: string }): Promise<DepositRow | undefined> {
  return merchantDepositLookup(q, merchantId, by).executeTakeFirst();
}

/** findMerchantDeposit's statement (its plan is tested on statistics that do not know the merchant). */
export function merchantDepositLookup(q: Q, merchantId: number, by: { id?: number; merchantTxId?: string }) {
  let query = q.selectFrom('deposits').selectAll().where('merchant_id', '=', merchantOf(merchantId, by));
  if (by.id !== undefined) query = query.where('id', '=', by.id);
  if (by.merchantTxId !== undefined) query = query.where('merchant_tx_id', '=', by.merchantTxId);
  return query;
}

/** What deposit/status (deposit-views.ts statusView) reads. */
export const DEPOSIT_STATUS_COLUMNS = [
  'id', 'merchant_tx_id', 'status', 'amount', 'bot_name', 'bot_platform_id', 'trade_offer_id', 'trade_offer_expiry_at',
  'success_url', 'fail_url', 'hold_end_date', 'fail_reason', 'custom_currency', 'custom_currency_multiplier', 'custom_currency_rate',
] as const;
export type DepositStatusRow = Pick<DepositRow, (typeof DEPOSIT_STATUS_COLUMNS)[number]>;

/** deposit/status, a hot read: one round trip, a prepared statement per lookup form (db/prepared.ts). */
export function findDepositStatus(db: Db, merchantId: number, by: { id?: number; merchantTxId?: string }): Promise<DepositStatusRow | undefined> {
  return findOwnRecord<DepositStatusRow>(db, { table: 'deposits', columns: DEPOSIT_STATUS_COLUMNS, statement: 'deposit_status' }, merchantId, by);
}

/** The deposit, row-locked to the end of `trx` (a transition in the caller's transaction: deposit-transitions.ts transitionIn). */
export function lockDeposit(trx: Trx, id: number): Promise<DepositRow | undefined> {
  return trx.selectFrom('deposits').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** One transition of changeBatch: the deposit's guard (as read), its change and its effects, as deposit_transition_batch reads them. */
export interface BatchTransition {
  id: number;
  merchant_id: number;
  status: DepositStatus;
  amount: number;
  trade_offer_id: string | null;
  platform_id: string | null;
  merchant_tx_id: string | null;
  /** The columns the transition sets (status among them). */
  set: Updateable<DepositsTable>;
  release: boolean;
  webhook: { status: string; result_url: string | null; payload: Record<string, unknown> } | null;
  jobs: unknown[];
  movement: { key: string; kind: string; available_delta: number; hold_delta: number } | null;
}

/**
 * Deposits' transitions as one statement (src/db/functions/deposit_transition_batch.sql, the one
 * writer of a deposit's status): with its own commit (`db`) or in the caller's transaction.
 * Answers the deposits changed; one left out was not changed (its guard failed). A movement
 * refused throws InsufficientFundsError (nothing of the statement is done). The statement names
 * the webhook and outbox markers of what it writes, so its commit wakes the dispatcher and the relay
 * — only those with work: a completion queues no job, and a relay woken for nothing is a round trip.
 */
export async function changeBatch(q: Q, items: BatchTransition[]): Promise<DepositRow[]> {
  const markers = [items.some((i) => i.webhook) ? WEBHOOK_EVENTS_WRITE : '', items.some((i) => i.jobs.length > 0) ? JOB_OUTBOX : ''].join(' ');
  try {
    const r = await sql<DepositRow>`${sql.raw(markers)} select * from deposit_transition_batch(${JSON.stringify(items)}::jsonb)`.execute(q);
    return r.rows;
  } catch (err) {
    if ((err as { code?: string }).code === 'GWNSF') throw new InsufficientFundsError(items.find((i) => i.movement)?.merchant_id ?? items[0]!.merchant_id);
    throw err;
  }
}

export type NewDepositItem = Omit<Insertable<DepositItemsTable>, 'deposit_id' | 'game' | 'partner' | 'reserved'>;

/** The unique index that keeps one asset in at most one live deposit of a user (002_deposits.sql). */
export const RESERVED_ASSET_INDEX = 'deposit_items_reserved_asset_key';

/**
 * Stores the items of a deposit that is becoming pending and reserves their assets for the user
 * (game, partner). An asset already in a live deposit fails on RESERVED_ASSET_INDEX (23505);
 * a concurrent reservation of it waits for the other transaction and then fails or succeeds.
 */
export async function insertItems(trx: Trx, depositId: number, key: { game: string; partner: number }, items: NewDepositItem[]): Promise<void> {
  if (items.length === 0) return;
  await trx
    .insertInto('deposit_items')
    .values(items.map((i) => ({ ...i, deposit_id: depositId, game: key.game, partner: key.partner, reserved: i.asset_id != null })))
    .execute();
}

/** Which of `assetIds` are reserved by a live deposit of this user (for error messages and pre-checks). */
export async function reservedAssets(q: Q, key: { game: string; partner: number }, assetIds: readonly string[]): Promise<Set<string>> {
  if (assetIds.length === 0) return new Set();
  const rows = await q
    .selectFrom('deposit_items')
    .select('asset_id')
    .where('reserved', '=', true)
    .where('game', '=', key.game)
    .where('partner', '=', key.partner)
    .where('asset_id', 'in', [...assetIds])
    .execute();
  return new Set(rows.map((r) => r.asset_id!).filter((a) => a !== null));
}

const QUOTE_DRAFT_INSERT = `with d as (
    insert into deposits (merchant_id, flow, status, game, amount, quote_expires_at)
    values ($1, 'hash_name', 'new', $2, 0, $3) returning id
  ), quote as (insert into deposit_quotes (deposit_id, packed, price_version) select d.id, $4::bytea, $5::bigint from d)
  select id from d`;

/**
 * get-prices: the draft and its quote in one statement (atomic on its own, one round trip), a
 * prepared one (parsed and planned once per connection), answering only the draft's id. The
 * lines are one deposit_quotes row (014_deposit_quotes.sql), packed (019_packed_quotes.sql): 2 000
 * names are one insert of 48 KB, not 2 000 rows nor 110 KB of JSON to parse and compress.
 */
export async function insertQuoteDraft(
  q: Q,
  /** priceVersion: the highest price basis published (price_bases): explains the quoted prices */
  draft: { merchantId: number; game: string; quoteExpiresAt: Date; priceVersion: number },
  /** quote-pack.ts lines (quote-wire.ts joins them; a Buffer goes to PostgreSQL as is). */
  packed: Buffer,
): Promise<number> {
  const row = await readPrepared<{ id: number }>(q, 'quote_draft_insert_046', QUOTE_DRAFT_INSERT, [draft.merchantId, draft.game, draft.quoteExpiresAt, packed, draft.priceVersion || null]);
  return row!.id;
}

/** A draft's quote: a name's quoted prices, or undefined (a draft without a quote quoted nothing). */
export async function quotedPrices(q: Q, depositId: number): Promise<((name: string) => QuotedPrice | undefined) & { priceVersion?: number }> {
  const quote = await q.selectFrom('deposit_quotes').select(['packed', 'price_version']).where('deposit_id', '=', depositId).executeTakeFirst();
  if (!quote) return () => undefined;
  return Object.assign(unpackQuote(quote.packed), quote.price_version != null ? { priceVersion: Number(quote.price_version) } : {});
}

/** One live snapshot per merchant, user and game: a new inventory call replaces the old one. */
export async function upsertSnapshot(q: Q, v: { merchantId: number; game: string; partner: number; items: SnapshotItem[]; expiresAt: Date }): Promise<void> {
  await q
    .insertInto('inventory_snapshots')
    .values({ merchant_id: v.merchantId, game: v.game, partner: v.partner, items: JSON.stringify(v.items), expires_at: v.expiresAt })
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'partner', 'game']).doUpdateSet({
        items: JSON.stringify(v.items),
        expires_at: v.expiresAt,
        created_at: sql`now()` as never,
      }),
    )
    .execute();
}

export function findSnapshot(q: Q, merchantId: number, partner: number, game: string) {
  return q
    .selectFrom('inventory_snapshots')
    .select(['items', 'expires_at'])
    .where('merchant_id', '=', merchantId)
    .where('partner', '=', partner)
    .where('game', '=', game)
    .executeTakeFirst();
}
