// The merchant of a lookup by merchant_tx_id, as a value the planner does not see (an InitPlan).
//
// With the merchant's id in view, PostgreSQL estimates "this merchant's rows" from the statistics,
// and a merchant they do not know (onboarded, or grown, since the last ANALYZE: on a table of
// millions that is days) has about none. Every index that starts with merchant_id then looks as
// good as the unique (merchant_id, merchant_tx_id) one, and the smaller (merchant_id, id) index
// won: the lookup read the merchant's whole history (4–7 ms and 6 000 buffers at 5 000 purchases on
// the year's database; POST purchase's idempotency check was its top statement). Unseen, the
// merchant counts as an average one, and the lookup probes merchant_tx_id (test/foundation/tx-id-plan.test.ts).
import { sql, type RawBuilder } from 'kysely';

/** How a lookup is asked for: by id, by merchant_tx_id, or both. */
type By = { id?: number; merchantTxId?: string };

/**
 * The merchant for a Kysely where of a lookup: `.where('merchant_id', '=', merchantOf(id, by))`.
 * Unseen when the lookup is by merchant_tx_id; a lookup by id alone probes the primary key anyway.
 */
export function merchantOf(merchantId: number, by: By): number | RawBuilder<number> {
  return by.merchantTxId !== undefined ? sql<number>`(select ${merchantId}::bigint)` : merchantId;
}

/** The same in a statement's text, the merchant as parameter $1. */
export function merchantOfText(by: By): string {
  return by.merchantTxId !== undefined ? 'merchant_id = (select $1::bigint)' : 'merchant_id = $1';
}
