// Group commit for purchase creation: the creations one instance is asked for at about the same
// time go to PostgreSQL together, as one call of purchase_create_batch (migration 022) — one round
// trip, one transaction, one commit for all of them. Under load this is what lets a merchant's
// purchases share a WAL flush instead of queueing one per flush on the merchant's balances row, and
// what keeps 64 concurrent requests from becoming 64 busy backends on a 2-core machine.
//
// When (db/batched.ts): a creation waits for the end of the current event-loop turn, so the requests
// parsed in one turn share a batch; while `inFlight` batches are running, new ones wait for the
// first to finish and go together in the next. Alone, a creation pays one turn of the loop.
//
// What it answers, per creation: the reserved purchase, 'twin' (this merchant_tx_id is stored:
// nothing done) or 'fallback' (not a plain success — no listing, sold, over max_price, short
// balance — nothing done: the caller's transaction path decides and stores the failure). A batch
// PostgreSQL refused as a whole (an error answered for the statement: a deadlock, say) rolled back
// everything it did, so each of its creations falls back. A connection lost mid-call may have
// committed: its creations get the error, never a second try (that could buy twice).
import { sql } from 'kysely';
import pg from 'pg';
import { batched } from '../../db/batched.js';
import type { Db } from '../../db/database.js';
import { PURCHASE_PENDING_WRITE } from './purchase-jobs.js';
import type { CreationInput } from './create-repo.js';
import type { PurchaseRow } from './purchase-repo.js';

export type BatchOutcome = PurchaseRow | 'twin' | 'fallback';

export interface CreationBatcher {
  create(input: CreationInput): Promise<BatchOutcome>;
}

export interface BatcherOptions {
  /** Most creations in one batch (PURCHASE_BATCH_SIZE). */
  maxBatch: number;
  /** Most batches running at once per instance (PURCHASE_BATCHES_IN_FLIGHT). */
  inFlight: number;
}

/** One creation as purchase_create_batch reads it (json_to_recordset). */
function item(i: number, r: CreationInput) {
  const p = r.purchase;
  return {
    i,
    merchant_id: p.merchant_id,
    merchant_tx_id: p.merchant_tx_id,
    game: p.game,
    partner: p.partner,
    token: p.token,
    platform_id: p.platform_id,
    platform_name: p.platform_name,
    platform_avatar_url: p.platform_avatar_url,
    at: p.created_at.toISOString(),
    asset_id: 'assetId' in r.choice ? r.choice.assetId : null,
    name: 'name' in r.choice ? r.choice.name : null,
    markup: r.markup,
    max_price: r.maxPrice ?? null,
    jobs: [], // a purchase adds no job since the dispatcher (023); the function's parameter stays
  };
}

type BatchRow = PurchaseRow & { r_idx: number; r_outcome: 'created' | 'twin' | 'fallback' };

export function createCreationBatcher(db: Db, opts: BatcherOptions): CreationBatcher {
  async function run(inputs: CreationInput[]): Promise<BatchOutcome[]> {
    let rows: BatchRow[];
    try {
      const items = JSON.stringify(inputs.map((input, i) => item(i, input)));
      // Its commit wakes the purchase dispatcher.
      const res = await sql<BatchRow>`${sql.raw(PURCHASE_PENDING_WRITE)}
        select r.r_idx, r.r_outcome, (r.r_purchase).* from purchase_create_batch(${items}::json) r`.execute(db);
      rows = res.rows;
    } catch (err) {
      if (err instanceof pg.DatabaseError) return inputs.map(() => 'fallback' as const);
      throw err;
    }
    // Every item gets exactly one row; anything else would be a bug in the function — fall back.
    const out = inputs.map((): BatchOutcome => 'fallback');
    for (const { r_idx, r_outcome, ...purchase } of rows) out[r_idx] = r_outcome === 'created' ? (purchase as PurchaseRow) : r_outcome;
    return out;
  }
  const batcher = batched(run, { maxBatch: opts.maxBatch, inFlight: opts.inFlight });
  return { create: (input) => batcher.add(input) };
}
