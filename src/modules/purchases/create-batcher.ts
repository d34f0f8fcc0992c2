// Group commit for purchase creation: the creations one instance is asked for at about the same
// time go to PostgreSQL together, as one call of purchase_create_batch (create-repo.ts) — one round
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
// balance — nothing done: the caller creates it alone, createAlone, which decides and stores the failure). A batch
// PostgreSQL refused as a whole (an error answered for the statement: a deadlock, say) rolled back
// everything it did, so each of its creations falls back. A connection lost mid-call may have
// committed: its creations get the error, never a second try (that could buy twice).
//
// Handed to the dispatcher: as many of a batch's creations as its dispatcher has free slots for
// are written leased to it (purchase_create_batch), and the created ones are handed over after the
// commit — sent without a claim. A slot reserved for one not created is given back.
import pg from 'pg';
import { batched } from '../../db/batched.js';
import type { Db } from '../../db/database.js';
import { creationCall, creationItem, type CreationInput, type CreationRow } from './create-repo.js';
import type { PurchaseRow } from './purchase-repo.js';

export type BatchOutcome = PurchaseRow | 'twin' | 'fallback';

/** The creating instance's purchase dispatcher, as the batcher sees it (dispatcher.ts). */
export interface DispatchHandoff {
  /** Reserves up to `n` send slots (none when it is not running), and the lease to write. */
  reserve(n: number): { count: number; leaseUntil: Date };
  /** The created ones of `reserved` slots, committed leased: sent now; the other slots given back. */
  adopt(rows: PurchaseRow[], reserved: number): void;
}

export interface CreationBatcher {
  create(input: CreationInput): Promise<BatchOutcome>;
}

export interface BatcherOptions {
  /** Most creations in one batch (PURCHASE_BATCH_SIZE). */
  maxBatch: number;
  /** Most batches running at once per instance (PURCHASE_BATCHES_IN_FLIGHT). */
  inFlight: number;
}

export function createCreationBatcher(db: Db, opts: BatcherOptions, dispatcher?: DispatchHandoff): CreationBatcher {
  async function run(inputs: CreationInput[]): Promise<BatchOutcome[]> {
    const lease = dispatcher?.reserve(inputs.length) ?? { count: 0, leaseUntil: new Date(0) };
    let rows: CreationRow[];
    try {
      // Its commit wakes the purchase dispatcher (for the ones not leased to it).
      rows = (await creationCall(inputs.map((input, i) => creationItem(i, input, undefined, i < lease.count ? lease.leaseUntil : undefined))).execute(db)).rows;
    } catch (err) {
      // Not known to be written (or rolled back): nothing to send here; a leased one that was
      // committed after all is claimed when its lease runs out.
      dispatcher?.adopt([], lease.count);
      if (err instanceof pg.DatabaseError) return inputs.map(() => 'fallback' as const);
      throw err;
    }
    // Every item gets exactly one row; anything else would be a bug in the function — fall back.
    const out = inputs.map((): BatchOutcome => 'fallback');
    const leased: PurchaseRow[] = [];
    for (const { r_idx, r_outcome, ...purchase } of rows) {
      out[r_idx] = r_outcome === 'created' ? (purchase as PurchaseRow) : r_outcome === 'failed' ? 'fallback' : r_outcome;
      if (r_outcome === 'created' && r_idx < lease.count) leased.push(purchase as PurchaseRow);
    }
    dispatcher?.adopt(leased, lease.count);
    return out;
  }
  const batcher = batched(run, { maxBatch: opts.maxBatch, inFlight: opts.inFlight });
  return { create: (input) => batcher.add(input) };
}
