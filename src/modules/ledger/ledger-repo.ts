// The ledger: every balance movement is an immutable entry with a unique key, applied in the
// caller's transaction together with a guarded update of the balance row.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Db } from '../../db/database.js';

export type Trx = Transaction<DB>;

export interface LedgerMovement {
  merchantId: number;
  /** Unique idempotency key, e.g. `purchase:42:reserve`. A second apply with the same key is a no-op. */
  key: string;
  kind: string;
  availableDelta: number;
  holdDelta: number;
  refType?: string;
  refId?: number;
}

export type ApplyResult =
  | { status: 'applied'; entryId: number; available: number; hold: number }
  | { status: 'duplicate' };

export class InsufficientFundsError extends Error {
  constructor(readonly merchantId: number) {
    super('insufficient balance');
  }
}

/**
 * Applies one movement inside `trx`. The balance update is guarded (`available + delta >= 0`)
 * in the same statement, so concurrent debits cannot overdraw; the CHECK constraint is the
 * last line of defence. Throws InsufficientFundsError (the caller's transaction must roll back).
 */
export async function applyMovement(trx: Trx, m: LedgerMovement): Promise<ApplyResult> {
  if (!Number.isSafeInteger(m.availableDelta) || !Number.isSafeInteger(m.holdDelta)) {
    throw new Error(`ledger deltas must be integer mills: ${m.key}`);
  }
  // A retried job finds its key and stops before touching the balance.
  const seen = await trx.selectFrom('ledger_entries').select('id').where('key', '=', m.key).executeTakeFirst();
  if (seen) return { status: 'duplicate' };

  // The guarded update also takes the balance row lock, which serialises concurrent movements
  // of one merchant; the key insert below then sees any concurrent twin.
  const updated = await sql<{ available: number; hold: number }>`
    update balances
       set available = available + ${m.availableDelta}::bigint,
           hold = hold + ${m.holdDelta}::bigint,
           updated_at = now()
     where merchant_id = ${m.merchantId}
       and available + ${m.availableDelta}::bigint >= 0
       and hold + ${m.holdDelta}::bigint >= 0
    returning available, hold`.execute(trx);
  if (updated.rows.length === 0) throw new InsufficientFundsError(m.merchantId);
  const { available, hold } = updated.rows[0];

  const inserted = await sql<{ id: number }>`
    insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
    values (${m.merchantId}, ${m.key}, ${m.kind}, ${m.availableDelta}, ${m.holdDelta}, ${available}, ${hold}, ${m.refType ?? null}, ${m.refId ?? null})
    on conflict (key) do nothing
    returning id`.execute(trx);
  if (inserted.rows.length === 0) {
    // A concurrent twin committed the same key first: undo our balance change (we hold the row lock).
    await sql`update balances set available = available - ${m.availableDelta}::bigint, hold = hold - ${m.holdDelta}::bigint
               where merchant_id = ${m.merchantId}`.execute(trx);
    return { status: 'duplicate' };
  }
  return { status: 'applied', entryId: inserted.rows[0].id, available, hold };
}

export interface BalanceRow {
  available: number;
  hold: number;
}

export async function getBalance(db: Db | Trx, merchantId: number): Promise<BalanceRow | undefined> {
  return db.selectFrom('balances').select(['available', 'hold']).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function listEntries(db: Db, merchantId: number, limit: number, offset: number) {
  return db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export interface ReconciliationRow {
  merchant_id: number;
  available: number;
  hold: number;
  ledger_available: number;
  ledger_hold: number;
}

/** Balance rows that disagree with the sum of their ledger entries. Empty means the books balance. */
export async function reconcile(db: Db, merchantId?: number): Promise<{ checked: number; mismatches: ReconciliationRow[] }> {
  const rows = await sql<ReconciliationRow>`
    select b.merchant_id, b.available, b.hold,
           coalesce(sum(e.available_delta), 0)::bigint as ledger_available,
           coalesce(sum(e.hold_delta), 0)::bigint as ledger_hold
      from balances b
      left join ledger_entries e on e.merchant_id = b.merchant_id
     where ${merchantId ?? null}::bigint is null or b.merchant_id = ${merchantId ?? null}::bigint
     group by b.merchant_id, b.available, b.hold`.execute(db);
  return {
    checked: rows.rows.length,
    mismatches: rows.rows.filter((r) => r.available !== r.ledger_available || r.hold !== r.ledger_hold),
  };
}
