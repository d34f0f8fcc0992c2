// The deposit commit stage (spec 4.3, 4.5): a deposit of the user's assets becomes pending with
// its items (their assets reserved for it), then the offer stage sends the offer. Both flows:
//   - create-deposit (inventory flow; also commits a hosted-page intent): prices from the
//     inventory snapshot (or current prices for a preview merchant), min_prices floors;
//   - create-deposit-by-hash-name: the draft of get-prices, committed by the spec's rules in
//     order, in one transaction; a failure the rules store (4, 6, 7) is written as failed in that
//     transaction (rule 7 behind a savepoint) before the error answers.
import { sql } from 'kysely';
import type { Config } from '../../config.js';
import { isUniqueViolation, type Db, type Trx } from '../../db/database.js';
import type { SnapshotItem } from '../../db/tables/deposits.js';
import type { Clock } from '../../domain/clock.js';
import { conflictDuplicate, notFound, validationError, type AppError, type FieldError } from '../../domain/errors.js';
import type { Game } from '../../domain/games.js';
import { millsToUsd, sumMills } from '../../domain/money.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import type { PricingService } from '../pricing/pricing-service.js';
import { assertWebhookTarget } from '../webhooks/target.js';
import * as repo from './deposit-repo.js';
import type { DepositRow } from './deposit-repo.js';
import {
  assetReservedMessage,
  currencyColumns,
  customCurrencyErrors,
  denied,
  duplicateAssetErrors,
  type ExpectedAsset,
  floorLookup,
  floorMills,
  heldAssetProblems,
  intentExpired,
  intentLinkExpired,
  inventoryReload,
  quotedItem,
  priceFloorError,
  redirectUrlErrors,
  tooManyItems,
  urlColumns,
  type CustomCurrencyInput,
  type DepositUrls,
} from './deposit-rules.js';
import type { DepositTransitions } from './deposit-transitions.js';
import { commitView } from './deposit-views.js';
import type { DepositOfferStage } from './offer.js';
import type { QuoteStage, TradeKey } from './quote.js';

export interface CreateDepositRequest extends TradeKey, DepositUrls, CustomCurrencyInput {
  merchant_tx_id: string;
  asset_ids: string[];
  /** asset_id → minimum USD price (the inventory flow's price-drop protection); anything else is ignored. */
  min_prices?: unknown;
  from_preview?: boolean | null;
}

export interface HashNameCommitRequest extends TradeKey, DepositUrls, CustomCurrencyInput {
  id: number;
  merchant_tx_id: string;
  items: { asset_id?: string; name: string; min_price?: number | null }[];
}

export interface CommitDeps {
  db: Db;
  config: Pick<Config, 'webhookAllowPrivate'>;
  clock: Clock;
  pricing: Pick<PricingService, 'quote' | 'assertFresh' | 'basesAt' | 'ensureBases'>;
  quote: Pick<QuoteStage, 'checkUser' | 'pricedInventory' | 'loadItems'>;
  transitions: DepositTransitions;
  offer: Pick<DepositOfferStage, 'perform'>;
}

export function createCommitStage(deps: CommitDeps) {
  const { db, config, clock, pricing, quote, transitions, offer } = deps;

  /**
   * The 400 for assets held by another live deposit of the user, naming the ones that still are
   * (`fallbackField` when the other deposit finished meanwhile).
   */
  async function assetsReservedError(q: Db | Trx, key: { game: string; partner: number }, assetIds: readonly string[], fieldOf: (i: number) => string, fallbackField: string): Promise<AppError> {
    const taken = await repo.reservedAssets(q, key, assetIds);
    const errors: FieldError[] = [];
    assetIds.forEach((a, i) => {
      if (taken.has(a)) errors.push({ field: fieldOf(i), code: 'item_not_available', message: assetReservedMessage(a) });
    });
    if (errors.length === 0) errors.push({ field: fallbackField, code: 'item_not_available', message: 'an asset is already in another deposit that is not finished; retry' });
    return validationError(errors);
  }

  /**
   * Every credit is backed by a real item: a fresh read of the user's inventory (a platform call,
   * outside any transaction) against what the deposit credits. Answers the failure to store and
   * answer, or null.
   */
  async function heldAssetsRefusal(key: TradeKey, expected: readonly ExpectedAsset[], fieldOf: (i: number) => string) {
    const problems = heldAssetProblems(expected, await quote.loadItems(key), fieldOf);
    return problems && { reason: problems.reason, error: validationError(problems.errors) };
  }

  async function checkRequest(req: DepositUrls & CustomCurrencyInput): Promise<void> {
    const errors: FieldError[] = [...customCurrencyErrors(req), ...redirectUrlErrors(req)];
    if (errors.length) throw validationError(errors);
    if (req.result_url) await assertWebhookTarget(req.result_url, config.webhookAllowPrivate, 'result_url');
  }

  /** Runs a commit transaction: a duplicate merchant_tx_id is 409; `onReserved` answers an asset held by another live deposit. */
  async function insertOrConflict<T>(fn: () => Promise<T>, onReserved?: () => Promise<AppError>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err, 'deposits_merchant_tx_id_key')) throw conflictDuplicate();
      if (onReserved && isUniqueViolation(err, repo.RESERVED_ASSET_INDEX)) throw await onReserved();
      throw err;
    }
  }

  /** Spec 4.3 (inventory flow); with `intentId`, commits that hosted-page intent instead of a new deposit. */
  async function createDeposit(merchant: MerchantRow, req: CreateDepositRequest, opts: { intentId?: number } = {}) {
    await checkRequest(req);
    const assetIds = req.asset_ids ?? [];
    if (assetIds.length === 0) throw validationError([{ field: 'asset_ids', code: 'required', message: 'asset_ids needs at least one asset' }]);
    if (assetIds.length > merchant.max_items) throw tooManyItems(merchant.max_items, 'asset_ids');
    const dups = duplicateAssetErrors(assetIds, (i) => `asset_ids[${i}]`);
    if (dups.length) throw validationError(dups);
    pricing.assertFresh(); // no deposit on prices from a book whose reloads keep failing

    const user = await quote.checkUser(req);

    // Prices: the inventory snapshot, or current (preview) prices where the merchant may use them.
    const fromPreview = Boolean(req.from_preview) && merchant.deposit_preview_enabled;
    let priced: SnapshotItem[];
    if (fromPreview) {
      priced = await quote.pricedInventory(merchant, req);
    } else {
      const snap = await repo.findSnapshot(db, merchant.id, req.partner, req.game);
      if (!snap || new Date(snap.expires_at).getTime() <= clock.now().getTime()) {
        throw inventoryReload('the inventory pricing snapshot is missing or expired; call inventory again');
      }
      priced = snap.items;
    }
    const byAsset = new Map(priced.map((i) => [i.asset_id, i]));
    const chosen: SnapshotItem[] = [];
    const missing: FieldError[] = [];
    assetIds.forEach((a, i) => {
      const item = byAsset.get(a);
      if (item) chosen.push(item);
      else missing.push({ field: `asset_ids[${i}]`, code: 'item_not_available', message: `asset ${a} is not in the user's priced inventory; reload the inventory` });
    });
    if (missing.length) throw validationError(missing);

    const floorOf = floorLookup(req.min_prices);
    for (const item of chosen) {
      const floor = floorOf(item.asset_id);
      if (floor !== undefined && item.price < floor) {
        throw priceFloorError(`min_prices.${item.asset_id}`, `the price of ${item.name} (${millsToUsd(item.price)}) is below its minimum`);
      }
    }

    const columns = {
      game: req.game,
      partner: req.partner,
      token: req.token,
      platform_id: user.platformId,
      amount: sumMills(chosen.map((i) => i.price)),
      from_preview: fromPreview,
      ...urlColumns(req),
      ...currencyColumns(req),
    };
    // The snapshot's items must still be the user's, tradable, and as priced (name and phase).
    const refusal = await heldAssetsRefusal(req, chosen.map((i) => ({ assetId: i.asset_id, name: i.name, phase: i.phase ?? null })), (i) => `asset_ids[${i}]`);
    const items = chosen.map((i) => ({
      asset_id: i.asset_id,
      market_hash_name: i.name,
      price: i.price,
      original_price: i.original_price,
      min_price: floorOf(i.asset_id) ?? null,
      image_url: i.image_url ?? null,
      exterior: i.exterior ?? null,
      rarity: i.rarity ?? null,
      rarity_color: i.rarity_color ?? null,
      phase: i.phase ?? null,
      price_basis_id: i.basis_id ?? null,
      float: i.float ?? null,
      paint_seed: i.paint_seed ?? null,
    }));
    await pricing.ensureBases(chosen.flatMap((i) => (i.basis_id !== undefined ? [i.basis_id] : []))); // rows written before they are named

    const outcome = await insertOrConflict(
      () =>
        db.transaction().execute(async (trx): Promise<{ pending: DepositRow } | { refused: AppError }> => {
          let d: DepositRow;
          if (opts.intentId !== undefined) {
            const intent = await repo.findMerchantDeposit(trx, merchant.id, { id: opts.intentId });
            if (!intent || intent.flow !== 'intent') throw notFound();
            if (intent.status !== 'new') throw denied();
            if (intentLinkExpired(intent, clock.now())) throw intentExpired();
            const r = await transitions.transitionIn(trx, intent.id, 'commit', { merchantId: merchant.id, set: columns });
            if (!r.ok) throw r.reason === 'not_found' ? notFound() : denied();
            d = r.row;
          } else {
            d = await repo.insertDeposit(trx, { merchant_id: merchant.id, merchant_tx_id: req.merchant_tx_id, flow: 'inventory', status: 'pending', ...columns });
            await transitions.watchPending(trx, d.id);
          }
          // An asset the user no longer holds as priced: the deposit is stored failed, no items, no offer.
          if (refusal) {
            await transitions.failPending(d.id, refusal.reason, trx);
            return { refused: refusal.error };
          }
          // Reserves the assets: one held by another live deposit of this user rolls all of this back.
          await repo.insertItems(trx, d.id, { game: req.game, partner: req.partner }, items);
          return { pending: d };
        }),
      () => assetsReservedError(db, { game: req.game, partner: req.partner }, assetIds, (i) => `asset_ids[${i}]`, 'asset_ids'),
    );
    if ('refused' in outcome) throw outcome.refused;
    return commitView(await offer.perform(outcome.pending, items.map((i) => ({ assetId: i.asset_id, marketHashName: i.market_hash_name, ...(i.phase ? { phase: i.phase } : {}) }))));
  }

  /** Spec 4.5 create-deposit-by-hash-name: rules 1–7 here, in order; 8 and 9 in the offer stage. */
  async function createDepositByHashName(merchant: MerchantRow, req: HashNameCommitRequest) {
    await checkRequest(req);
    if (req.items.length > merchant.max_items) throw tooManyItems(merchant.max_items, 'items');
    const assetIds = req.items.map((it) => it.asset_id);
    const dups = duplicateAssetErrors(assetIds, (i) => `items[${i}].asset_id`);
    if (dups.length) throw validationError(dups);

    pricing.assertFresh(); // no deposit on prices from a book whose reloads keep failing

    // 1. The trade key (a platform call: before the transaction).
    const user = await quote.checkUser(req);

    // 2. The draft: the merchant's, status new, quoted for this game and these names.
    const draft = await repo.findMerchantDeposit(db, merchant.id, { id: req.id });
    if (!draft || draft.flow !== 'hash_name') throw notFound();
    if (draft.status !== 'new') throw denied();
    if (draft.game !== req.game) {
      throw validationError([{ field: 'game', code: 'denied', message: `the quote was made for ${draft.game}` }]);
    }
    const quotedPrice = await repo.quotedPrices(db, draft.id);
    const quoted = req.items.map((it) => quotedPrice(it.name));
    const unquoted: FieldError[] = [];
    req.items.forEach((it, i) => {
      if (!quoted[i]) unquoted.push({ field: `items[${i}].name`, code: 'item_not_available', message: `${it.name} was not quoted by get-prices` });
    });
    if (unquoted.length) throw validationError(unquoted);
    // The price bases the quote was made at: every credit is explained.
    const basisOf = quotedPrice.priceVersion !== undefined ? await pricing.basesAt(req.game, req.items.map((it) => it.name), quotedPrice.priceVersion) : new Map<string, number>();
    // Assets already in a live deposit of this user: refused while the draft is still new. (Only a
    // pre-check for a clear answer; the reservation itself is made with the items, rule 7.)
    const key = { game: req.game as Game, partner: req.partner };
    const given = assetIds.filter((a): a is string => a != null && a !== '');
    const itemField = (i: number) => `items[${i}].asset_id`;
    const allAssets = assetIds.map((a) => a ?? '');
    if ((await repo.reservedAssets(db, key, given)).size > 0) throw await assetsReservedError(db, key, allAssets, itemField, 'items');

    // Each line: its quote, its card (image, phase…) and the item it is credited as.
    const lines = req.items.map((it, i) => {
      const card = pricing.quote(merchant, req.game, it.name)?.card;
      return { ...it, quote: quoted[i]!, card, item: quotedItem(it.name, card?.phase) };
    });
    // Every asset in the user's inventory now, tradable, the item named (a platform call: before
    // the transaction; a failure is stored with rule 7).
    const refusal = await heldAssetsRefusal(req, lines.map((l) => ({ assetId: l.asset_id, ...l.item })), itemField);
    // The transaction answers the pending deposit, or the error of a rule whose failure it stored
    // (the failed deposit commits; the error answers after).
    const outcome = await insertOrConflict(() =>
      db.transaction().execute(async (trx): Promise<{ pending: DepositRow } | { refused: AppError }> => {
        // 3. Store merchant_tx_id, trade key, URLs and the amount (the prices of rule 5, so that a
        // trade failed by rule 4 or 6 shows it in status and webhook); new → pending.
        const r = await transitions.transitionIn(trx, draft.id, 'commit', {
          merchantId: merchant.id,
          set: {
            merchant_tx_id: req.merchant_tx_id,
            partner: req.partner,
            token: req.token,
            platform_id: user.platformId,
            amount: sumMills(lines.map((l) => l.quote.price)),
            ...urlColumns(req),
            ...currencyColumns(req),
          },
        });
        if (!r.ok) throw r.reason === 'not_found' ? notFound() : denied();
        const pending = r.row;

        // 4. The quote's age.
        if (!pending.quote_expires_at || new Date(pending.quote_expires_at).getTime() <= clock.now().getTime()) {
          await transitions.failPending(pending.id, 'inventory_reload', trx);
          return { refused: inventoryReload('the quote is older than its validity; call get-prices again') };
        }

        // 5. Prices from the data cached at quote time (stored with the commit, rule 3).

        // 6. Price floors (values of 0 or below are ignored).
        for (const [i, l] of lines.entries()) {
          const floor = floorMills(l.min_price);
          if (floor !== undefined && l.quote.price < floor) {
            await transitions.failPending(pending.id, 'item_specified_price_not_found', trx);
            return { refused: priceFloorError(`items[${i}].min_price`, `the price of ${l.name} (${millsToUsd(l.quote.price)}) is below its min_price`) };
          }
        }

        // 7. Items stored, their assets reserved. An asset the user does not hold as named (the
        // inventory read above), or taken by another deposit of this user since the pre-check,
        // makes this one failed (item_not_available, or price_changed for another phase).
        if (refusal) {
          await transitions.failPending(pending.id, refusal.reason, trx);
          return { refused: refusal.error };
        }
        await sql`savepoint deposit_items`.execute(trx);
        try {
          await repo.insertItems(
            trx,
            pending.id,
            key,
            lines.map((l) => {
              const c = l.card;
              return {
                asset_id: l.asset_id ?? null,
                market_hash_name: l.name,
                price: l.quote.price,
                original_price: l.quote.original_price,
                min_price: floorMills(l.min_price) ?? null,
                image_url: c?.image_url ?? null,
                exterior: c?.exterior ?? null,
                rarity: c?.rarity ?? null,
                rarity_color: c?.rarity_color ?? null,
                phase: c?.phase ?? null,
                price_basis_id: basisOf.get(l.name) ?? null,
              };
            }),
          );
        } catch (err) {
          if (!isUniqueViolation(err, repo.RESERVED_ASSET_INDEX)) throw err;
          await sql`rollback to savepoint deposit_items`.execute(trx);
          await transitions.failPending(pending.id, 'item_not_available', trx);
          return { refused: await assetsReservedError(trx, key, allAssets, itemField, 'items') };
        }
        return { pending };
      }),
    );
    if ('refused' in outcome) throw outcome.refused;
    // 8, 9: the offer, within DEPOSIT_TIMEOUT_MS.
    return commitView(await offer.perform(outcome.pending, lines.map((l) => ({ assetId: l.asset_id!, marketHashName: l.item.name, ...(l.item.phase ? { phase: l.item.phase } : {}) }))));
  }

  return { createDeposit, createDepositByHashName };
}

export type CommitStage = ReturnType<typeof createCommitStage>;
