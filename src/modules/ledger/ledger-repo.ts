// The ledger: every balance movement is an immutable entry with a unique key, applied in the
// caller's transaction together with a guarded update of the balance row.
import { sql, type RawBuilder } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { readPrepared } from '../../db/prepared.js';
import { alongsideCtes } from '../../db/statement-parts.js';

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
export async function applyMovement(trx: Trx, m: LedgerMovement, alongside: RawBuilder<unknown>[] = []): Promise<ApplyResult> {
  if (!Number.isSafeInteger(m.availableDelta) || !Number.isSafeInteger(m.holdDelta)) {
    throw new Error(`ledger deltas must be integer mills: ${m.key}`);
  }
  // One round trip (this runs inside the caller's money transaction, usually while it holds the
  // balance row lock until commit, so every extra round trip lengthens a per-merchant serial
  // section). Within the statement, in order:
  //  - seen: a retried job finds its key; the update below then matches nothing (a one-time
  //    filter, evaluated before any row is touched) and the balance row is neither changed nor locked;
  //  - upd: the guarded update takes the balance row lock, which serialises concurrent movements
  //    of one merchant (READ COMMITTED re-checks the guard on the newest row version after waiting);
  //  - ins: the key insert then sees any concurrent twin (ON CONFLICT waits for it to commit).
  // `alongside`: the caller's other writes of the transaction (data-modifying CTEs, run whatever the
  // movement's outcome), so a status change's effects are one round trip with its movement.
  const r = await sql<{ seen_id: number | null; available: number | null; hold: number | null; entry_id: number | null }>`
    with ${alongsideCtes(alongside)} ${movementCtes(m)}
    select (select id from seen limit 1) as seen_id,
           (select available from upd) as available,
           (select hold from upd) as hold,
           (select id from ins) as entry_id`.execute(trx);
  const row = r.rows[0];
  if (row.seen_id !== null) return { status: 'duplicate' };
  if (row.available === null || row.hold === null) throw new InsufficientFundsError(m.merchantId);
  const { available, hold } = row;

  if (row.entry_id === null) {
    // A concurrent twin committed the same key first: undo our balance change (we hold the row lock).
    await sql`update balances set available = available - ${m.availableDelta}::bigint, hold = hold - ${m.holdDelta}::bigint
               where merchant_id = ${m.merchantId}`.execute(trx);
    return { status: 'duplicate' };
  }
  return { status: 'applied', entryId: row.entry_id, available, hold };
}

/**
 * The movement's CTEs (seen, upd, ins: see applyMovement), to end a WITH list. `when`: an SQL
 * condition the update also needs (a larger statement's guard, e.g. "the status change happened").
 */
export function movementCtes(m: LedgerMovement, when: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
  if (!Number.isSafeInteger(m.availableDelta) || !Number.isSafeInteger(m.holdDelta)) {
    throw new Error(`ledger deltas must be integer mills: ${m.key}`);
  }
  return sql`seen as (
      select id from ledger_entries where key = ${m.key}
    ), upd as (
      update balances
         set available = available + ${m.availableDelta}::bigint,
             hold = hold + ${m.holdDelta}::bigint,
             updated_at = now()
       where merchant_id = ${m.merchantId}::bigint
         and available + ${m.availableDelta}::bigint >= 0
         and hold + ${m.holdDelta}::bigint >= 0
         and not exists (select 1 from seen)
         and ${when}
      returning available, hold
    ), ins as (
      insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id)
      select ${m.merchantId}::bigint, ${m.key}::text, ${m.kind}::text, ${m.availableDelta}::bigint, ${m.holdDelta}::bigint,
             upd.available, upd.hold, ${m.refType ?? null}::text, ${m.refId ?? null}::bigint
        from upd
      on conflict (key) do nothing
      returning id
    )`;
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
