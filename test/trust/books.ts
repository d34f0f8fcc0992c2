// What a merchant's balance must be, derived from the records' statuses rather than from the
// ledger: a movement made twice (or lost) shows up as a difference even when the ledger agrees
// with itself. Covers top-ups, withdrawals, deposits and purchases without reverts.
export const TERMINAL = ['completed', 'failed', 'canceled', 'reverted'];

interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

export async function balanceAgainstRecords(db: Queryable, merchantId: number): Promise<{ derived: string; actual: string }> {
  const { rows } = await db.query(
    `select (
        (select coalesce(sum(amount), 0) from top_ups where merchant_id = $1)
      - (select coalesce(sum(amount), 0) from withdrawals where merchant_id = $1 and status in ('pending', 'completed'))
      + (select coalesce(sum(amount), 0) from deposits where merchant_id = $1 and status in ('hold', 'completed'))
      - (select coalesce(sum(amount), 0) from purchases where merchant_id = $1 and status in ('pending', 'active', 'hold', 'completed'))
      )::text as derived,
      (select (available + hold)::text from balances where merchant_id = $1) as actual`,
    [merchantId],
  );
  return rows[0];
}
