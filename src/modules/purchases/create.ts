// The purchase create stage (spec 3.3, 3.4, 4.8).
//
// A plain success — the listing live and within max_price, the balance enough — is created in a
// batch with the other purchases asked for at about the same time (create-batcher.ts,
// purchase_create_batch, migration 022): the purchase with its item snapshot, the listing
// reserved, the debit (`purchase:<id>:reserve`) with its ledger entry (no job: the purchase
// dispatcher finds it, dispatcher.ts) — all or nothing per purchase, one commit per
// batch. Anything else takes one transaction of two statements (create-repo.ts): claim
// merchant_tx_id (INSERT … ON CONFLICT DO NOTHING on the unique constraint) and pick and lock the
// listing; then, with the price computed here, the same reservation and debit, or the failure
// (3.3) stored as a `failed` purchase with its fail_reason, nothing taken. No lock is shared by
// purchases (the listing's trigger only adds an unstamped feed event, migration 008), and none
// adds a job: the dispatcher finds pending purchases (dispatcher.ts).
//
// Amount of a purchase that failed at creation: the price it attempted to pay (0 when no listing
// was found). Spec 2.5 calls amount the purchase amount, and a merchant reading a failed
// insufficient_balance / price_changed purchase wants to see what was attempted. No ledger entry
// exists for it (the debit was never made or rolled back), and a refund needs the
// `purchase:<id>:reserve` entry (purchase-transitions.ts checks), so the number never moves money.
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { validationError } from '../../domain/errors.js';
import type { Game } from '../../domain/games.js';
import { MoneyError, usdToMills } from '../../domain/money.js';
import type { CreationFailReason } from '../../domain/purchase-state.js';
import { PlatformUnavailableError, PlatformUserError, platformIdOf, type PlatformUser, type TradingPlatform } from '../../platform/port.js';
import type { ListingView } from '../catalogue/catalogue-repo.js';
import { markupOf, salePrice, type MerchantPricing } from '../catalogue/catalogue-views.js';
import { enqueueWebhook } from '../webhooks/outbox.js';
import { createCreationBatcher } from './create-batcher.js';
import { claimAndLock, reserveAndDebit, type ListingChoice } from './create-repo.js';
import { findPurchase, nameEverListed, updatePurchase, type NewPurchase, type PurchaseRow } from './purchase-repo.js';
import { purchaseWebhookPayload } from './purchase-views.js';

export interface CreatePurchaseInput {
  partner: number;
  token: string;
  game: Game;
  name?: string;
  asset_id?: string;
  merchant_tx_id?: string;
  max_price?: number;
}

export interface MerchantRef extends MerchantPricing {
  id: number;
}

export interface CreateDeps {
  db: Db;
  /** Told after a purchase's transaction committed (a listing may have left the sale): the catalogue's pages on this instance read it at once. */
  onListingsChanged?: () => void;
  config: Pick<Config, 'depositTimeoutMs' | 'purchaseBatchSize' | 'purchaseBatchesInFlight'>;
  clock: Clock;
  platform: Pick<TradingPlatform, 'checkTradeLink'>;
}

type ListingPick =
  | { ok: true; listing: ListingView; price: number }
  | { ok: false; reason: CreationFailReason; listing?: ListingView; price?: number };

/** PostgreSQL cannot store U+0000 in text: platform-supplied strings lose it (empty → absent). */
function storable(v: string | undefined): string | null {
  if (v === undefined) return null;
  const clean = v.replace(/\u0000/g, '');
  return clean === '' ? null : clean;
}

function snapshot(l: ListingView | undefined, price: number | undefined) {
  if (!l) return {};
  return { listing_id: l.id, item_name: l.name, item_price: price ?? null, item_image_url: l.image_url, item_asset_id: l.asset_id, amount: price ?? 0 };
}

export function createCreateStage(deps: CreateDeps) {
  const { db, config, clock, platform } = deps;
  const batcher = createCreationBatcher(db, { maxBatch: config.purchaseBatchSize, inFlight: config.purchaseBatchesInFlight });

  /** Whether the listing claimAndLock locked can be bought by this request; the reason when not. */
  async function judgeListing(trx: Trx, merchant: MerchantRef, input: CreatePurchaseInput, l: ListingView | undefined, maxPrice: number | undefined): Promise<ListingPick> {
    if (input.asset_id !== undefined) {
      if (!l) return { ok: false, reason: 'item_not_available' };
      const price = salePrice(l.base_price, merchant);
      if (l.status !== 'live') return { ok: false, reason: 'item_sold', listing: l, price };
      if (maxPrice !== undefined && price > maxPrice) return { ok: false, reason: 'price_changed', listing: l, price };
      return { ok: true, listing: l, price };
    }
    const name = input.name!;
    if (!l) {
      return { ok: false, reason: (await nameEverListed(trx, input.game, name)) ? 'item_sold' : 'item_not_available' };
    }
    const price = salePrice(l.base_price, merchant);
    if (maxPrice !== undefined && price > maxPrice) return { ok: false, reason: 'item_specified_price_not_found', listing: l, price };
    return { ok: true, listing: l, price };
  }

  /** Stores a creation failure on the (just inserted) purchase: nothing reserved, nothing taken. */
  async function failAtCreation(trx: Trx, p: PurchaseRow, reason: CreationFailReason, l?: ListingView, price?: number): Promise<PurchaseRow> {
    const failed = await updatePurchase(trx, p.id, { ...snapshot(l, price), status: 'failed', fail_reason: reason, updated_at: clock.now() });
    await enqueueWebhook(trx, { merchantId: failed.merchant_id, kind: 'purchase', recordId: failed.id, status: 'failed', payload: purchaseWebhookPayload(failed) });
    return failed;
  }

  /**
   * POST /merchant/purchase: the purchase (new or, for a repeated merchant_tx_id, the stored one).
   * Platform errors for the user are 400 validation errors.
   */
  async function create(merchant: MerchantRef, input: CreatePurchaseInput): Promise<{ row: PurchaseRow; created: boolean }> {
    if (input.name === undefined && input.asset_id === undefined) {
      throw validationError([
        { field: 'CreatePurchaseRequest.name', code: 'required', message: 'name or asset_id is required' },
        { field: 'CreatePurchaseRequest.asset_id', code: 'required', message: 'name or asset_id is required' },
      ]);
    }
    let maxPrice: number | undefined;
    if (input.max_price !== undefined) {
      try {
        maxPrice = usdToMills(input.max_price);
      } catch (err) {
        if (err instanceof MoneyError) throw validationError([{ field: 'CreatePurchaseRequest.max_price', code: 'numeric', message: `max_price: ${err.message}` }]);
        throw err;
      }
    }
    const txId = input.merchant_tx_id;
    if (txId !== undefined) {
      const existing = await findPurchase(db, merchant.id, { merchantTxId: txId });
      if (existing) return { row: existing, created: false };
    }

    // The user first: a platform refusal is the merchant's input problem (400), not a purchase.
    let user: PlatformUser | undefined;
    let providerDown = false;
    try {
      user = await platform.checkTradeLink(input.game, input.partner, input.token);
    } catch (err) {
      if (err instanceof PlatformUserError) throw validationError([{ field: err.field, code: err.code, message: err.message }]);
      if (err instanceof PlatformUnavailableError) providerDown = true;
      else throw err;
    }

    const now = clock.now();
    const choice: ListingChoice = input.asset_id !== undefined ? { assetId: input.asset_id, game: input.game } : { name: input.name!, game: input.game };
    const newPurchase: NewPurchase = {
      merchant_id: merchant.id,
      merchant_tx_id: txId ?? null,
      game: input.game,
      partner: input.partner,
      token: input.token,
      platform_id: user?.platformId ?? platformIdOf(input.partner),
      platform_name: storable(user?.name),
      platform_avatar_url: storable(user?.avatarUrl),
      created_at: now,
    };

    // The usual case in one round trip shared with the purchases asked for at the same time (one
    // commit for the batch: create-batcher.ts); anything else — a failure to store with its
    // reason, the provider down — takes the transaction below.
    if (!providerDown) {
      const fast = await batcher.create({ purchase: newPurchase, choice, markup: markupOf(merchant), maxPrice });
      if (fast !== 'fallback') {
        deps.onListingsChanged?.();
        return fast === 'twin' ? storedTwin(merchant.id, txId) : { row: fast, created: true };
      }
    }

    const row = await db.transaction().execute(async (trx) => {
      const { purchase: p, listing } = await claimAndLock(trx, newPurchase, choice);
      if (!p) return undefined; // a twin with this merchant_tx_id committed first

      // The failed purchase shows what it would have bought.
      if (providerDown) return failAtCreation(trx, p, 'provider_unavailable', listing, listing ? salePrice(listing.base_price, merchant) : undefined);

      const pick = await judgeListing(trx, merchant, input, listing, maxPrice);
      if (!pick.ok) return failAtCreation(trx, p, pick.reason, pick.listing, pick.price);

      // One statement: the debit, the listing reserved, the item snapshot — or nothing.
      const reserved = await reserveAndDebit(trx, { purchase: p, listing: pick.listing, price: pick.price, now });
      if (typeof reserved === 'string') return failAtCreation(trx, p, reserved, pick.listing, pick.price);
      return reserved;
    });
    deps.onListingsChanged?.();
    return row ? { row, created: true } : storedTwin(merchant.id, txId);
  }

  /** The purchase a concurrent twin with this merchant_tx_id committed first. */
  async function storedTwin(merchantId: number, txId: string | undefined): Promise<{ row: PurchaseRow; created: boolean }> {
    const twin = await findPurchase(db, merchantId, { merchantTxId: txId });
    if (!twin) throw new Error('purchase: merchant_tx_id conflict without a stored purchase');
    return { row: twin, created: false };
  }

  return { create };
}
