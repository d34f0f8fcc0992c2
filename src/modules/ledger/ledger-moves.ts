// The ledger's moves as other features make them: a balance movement applied in the caller's
// transaction through the SQL function ledger_apply (src/db/functions/ledger_apply.sql), the one
// writer of the balance, its refusal (InsufficientFundsError), and the balance read. A module of
// its own, not the repo, so that deposits, purchases and merchants call the ledger without
// importing its SQL.
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
