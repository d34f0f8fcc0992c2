// The ledger: every balance movement is an immutable entry with a unique key, applied in the
// caller's transaction together with a guarded update of the balance row — both written by the SQL
// function ledger_apply (src/db/functions/ledger_apply.sql), the one writer of the balance.
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { readPrepared } from '../../db/prepared.js';

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

/** A movement as ledger_apply (src/db/functions/ledger_apply.sql) reads it. */
export function movementJson(m: LedgerMovement) {
  if (!Number.isSafeInteger(m.availableDelta) || !Number.isSafeInteger(m.holdDelta)) {
    throw new Error(`ledger deltas must be integer mills: ${m.key}`);
  }
  return {
    merchant_id: m.merchantId,
    key: m.key,
    kind: m.kind,
    available_delta: m.availableDelta,
    hold_delta: m.holdDelta,
    ref_type: m.refType ?? null,
    ref_id: m.refId ?? null,
  };
}

/**
 * Applies one movement inside `trx` through ledger_apply, the one writer of the balance (the
 * batches of purchase_create_batch and deposit_transition_batch call it too): the key checked, the
 * balance row locked and moved only when it stays >= 0 (the CHECK constraint is the last line of
 * defence), the entry written. A key already in the ledger is a no-op ({status:'duplicate'});
 * a refusal throws InsufficientFundsError (the caller's transaction must roll back).
 * One round trip: it runs in the caller's money transaction, usually holding the balance row lock
 * until commit.
 */
export async function applyMovement(trx: Trx, m: LedgerMovement): Promise<ApplyResult> {
  const movement = JSON.stringify([movementJson(m)]);
  const r = await sql<{ r_outcome: 'applied' | 'duplicate' | 'refused'; r_entry_id: number | null; r_available: number | null; r_hold: number | null }>`
    select r_outcome, r_entry_id, r_available, r_hold from ledger_apply(${movement}::jsonb)`.execute(trx);
  const row = r.rows[0]!;
  if (row.r_outcome === 'duplicate') return { status: 'duplicate' };
  if (row.r_outcome === 'refused') throw new InsufficientFundsError(m.merchantId);
  return { status: 'applied', entryId: Number(row.r_entry_id), available: Number(row.r_available), hold: Number(row.r_hold) };
}

export interface BalanceRow {
  available: number;
  hold: number;
}

export async function getBalance(db: Db | Trx, merchantId: number): Promise<BalanceRow | undefined> {
  // GET /merchant/balance: a hot read, prepared once per connection.
  return readPrepared<BalanceRow>(db, 'balance', 'select available, hold from balances where merchant_id = $1', [merchantId]);
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
