// The ledger's own reads: entries, and the balances checked against their entries. Its moves
// (applyMovement through ledger_apply, the balance read) are in ledger-moves.ts.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

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
