// The purchase create stage (spec 3.3, 3.4, 4.8). The creation itself — its rules and its writes —
// is the SQL function purchase_create_batch (create-repo.ts), the one writer of a creation: the
// purchase with its item snapshot, the listing reserved, the debit (`purchase:<id>:reserve`, through
// ledger_apply) — all or nothing — or the purchase stored `failed` with its reason (3.3), nothing
// taken. A plain success is created in a batch with the purchases asked for at about the same time
// (create-batcher.ts: one statement, one commit); anything else — a failure to store with its
// reason, the provider down, a twin in flight — is created alone in one transaction (createAlone),
// with the failure's webhook. No lock is shared by purchases (the listing's trigger only adds an
// unstamped feed event), and none adds a job: the dispatcher finds pending purchases (dispatcher.ts).
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { validationError } from '../../domain/errors.js';
import type { Game } from '../../domain/games.js';
import { MoneyError, usdToMills } from '../../domain/money.js';
import { PlatformUnavailableError, PlatformUserError, platformIdOf, type PlatformUser, type TradingPlatform } from '../../platform/port.js';
import { markupOf, type MerchantPricing } from '../catalogue/catalogue-views.js';
import { enqueueWebhook } from '../webhooks/outbox.js';
import { createCreationBatcher, type DispatchHandoff } from './create-batcher.js';
import { createAlone, type CreationInput, type ListingChoice } from './create-repo.js';
import { findPurchase, type NewPurchase, type PurchaseRow } from './purchase-repo.js';
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
  /** This instance's dispatcher: batched creations are written leased to it and handed over. */
  dispatcher?: DispatchHandoff;
  clock: Clock;
  platform: Pick<TradingPlatform, 'checkTradeLink'>;
}

/** PostgreSQL cannot store U+0000 in text: platform-supplied strings lose it (empty → absent). */
function storable(v: string | undefined): string | null {
  if (v === undefined) return null;
  const clean = v.replace(/\u0000/g, '');
  return clean === '' ? null : clean;
}

export function createCreateStage(deps: CreateDeps) {
  const { db, config, clock, platform } = deps;
  const batcher = createCreationBatcher(db, { maxBatch: config.purchaseBatchSize, inFlight: config.purchaseBatchesInFlight }, deps.dispatcher);

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
        if (err instanceof MoneyError) throw validationError([{ field: 'CreatePurchaseRequest.max_price', code: err.code, message: `max_price: ${err.message}` }]);
        throw err;
      }
    }
    // A repeated merchant_tx_id is not looked up first: a round trip for every purchase, to find
    // what is rare. The creation below tells it (the batch, or the insert of the alone path, meets
    // the stored one at the unique constraint: 'twin') and the stored purchase is answered then.
    const txId = input.merchant_tx_id;

    // The user first: a platform refusal is the merchant's input problem (400), not a purchase —
    // unless the merchant_tx_id is stored already (a repeat is answered whatever the user's state).
    let user: PlatformUser | undefined;
    let providerDown = false;
    try {
      user = await platform.checkTradeLink(input.game, input.partner, input.token);
    } catch (err) {
      if (err instanceof PlatformUserError) {
        const stored = txId === undefined ? undefined : await findPurchase(db, merchant.id, { merchantTxId: txId });
        if (stored) return { row: stored, created: false };
        throw validationError([{ field: err.field, code: err.code, message: err.message }]);
      }
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
    // reason, the provider down — is created alone, in the transaction below.
    const creation: CreationInput = { purchase: newPurchase, choice, markup: markupOf(merchant), maxPrice };
    if (!providerDown) {
      const fast = await batcher.create(creation);
      if (fast !== 'fallback') {
        deps.onListingsChanged?.();
        return fast === 'twin' ? storedTwin(merchant.id, txId) : { row: fast, created: true };
      }
    }

    const row = await db.transaction().execute(async (trx) => {
      const r = await createAlone(trx, creation, providerDown);
      if (r === 'twin') return undefined; // a twin with this merchant_tx_id committed first
      if (r.outcome === 'failed') {
        await enqueueWebhook(trx, { merchantId: r.row.merchant_id, kind: 'purchase', recordId: r.row.id, status: 'failed', payload: purchaseWebhookPayload(r.row) });
      }
      return r.row;
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
