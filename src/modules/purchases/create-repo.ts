// The SQL of a purchase's creation: one call of purchase_create_batch (src/db/functions/
// purchase_create_batch.sql), the one writer of a creation and where its rules are stated (the
// listing, the price, max_price, the balance; the failure reasons). Batched (create-batcher.ts: the
// creations asked for at about the same time, one statement with its own commit) or alone (here:
// one statement in the caller's transaction, waiting for the locks it needs).
import { sql } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import type { NewPurchase, PurchaseRow } from './purchase-repo.js';
import { PURCHASE_PENDING_WRITE } from './purchase-jobs.js';

export type ListingChoice = { assetId: string; game: Game } | { name: string; game: Game };

export interface CreationInput {
  purchase: NewPurchase;
  choice: ListingChoice;
  /** markupOf(merchant): the SQL prices the listing as salePrice does (sale_price). */
  markup: number;
  maxPrice?: number;
}

/**
 * One creation as purchase_create_batch reads it (json_to_recordset). `leaseUntil` (batched only):
 * written leased to this instance's dispatcher, as its claim would leave it.
 */
export function creationItem(i: number, r: CreationInput, alone?: { providerDown: boolean }, leaseUntil?: Date) {
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
    wait: alone !== undefined,
    provider_down: alone?.providerDown ?? false,
    lease_until: leaseUntil?.toISOString() ?? null,
  };
}

export type CreationRow = PurchaseRow & { r_idx: number; r_outcome: 'created' | 'twin' | 'fallback' | 'failed' };

/** The statement of a call (marked: its commit wakes the purchase dispatcher). */
export function creationCall(items: ReturnType<typeof creationItem>[]) {
  return sql<CreationRow>`${sql.raw(PURCHASE_PENDING_WRITE)}
    select r.r_idx, r.r_outcome, (r.r_purchase).* from purchase_create_batch(${JSON.stringify(items)}::json) r`;
}

/**
 * The creation alone, in `trx`, waiting for its locks: the reserved purchase ('created'), the
 * purchase stored failed with its reason ('failed': the caller adds its webhook), or 'twin' (a
 * purchase with this merchant_tx_id is stored; nothing done).
 */
export async function createAlone(trx: Trx, input: CreationInput, providerDown: boolean): Promise<{ outcome: 'created' | 'failed'; row: PurchaseRow } | 'twin'> {
  const { rows } = await creationCall([creationItem(0, input, { providerDown })]).execute(trx);
  const { r_idx: _i, r_outcome, ...row } = rows[0]!;
  if (r_outcome === 'twin') return 'twin';
  if (r_outcome !== 'created' && r_outcome !== 'failed') throw new Error(`purchase creation: unexpected outcome ${r_outcome}`);
  return { outcome: r_outcome, row: row as PurchaseRow };
}
