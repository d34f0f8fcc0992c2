// Deposit rules (spec 3.1, 4.2–4.7): inventory snapshots, commits of both flows, the preview,
// status, and the one function that changes a deposit's status (with its ledger entries,
// webhook, timed jobs and the release of its reserved assets in the same transaction).
import type { Logger } from 'pino';
import type { Updateable } from 'kysely';
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { millsToUsd, sumMills } from '../../domain/money.js';
import { DEPOSIT_MACHINE, DEPOSIT_MOVEMENTS, type DepositEvent } from '../../domain/deposit-state.js';
import { isTerminal } from '../../domain/state-machine.js';
import { AppError, conflictDuplicate, forbidden, isAppError, invalidTransition, notFound, validationError, type FieldError } from '../../domain/errors.js';
import { isUniqueViolation } from '../../db/database.js';
import type { OfferChange, PlatformItem, PlatformUser, TradingPlatform } from '../../platform/port.js';
import { applyMovement } from '../ledger/ledger-repo.js';
import type { MerchantRow } from '../merchants/merchant-repo.js';
import { enqueueWebhook } from '../webhooks/outbox.js';
import { assertWebhookTarget } from '../webhooks/target.js';
import type { PricingService, Quote } from '../pricing/pricing-service.js';
import * as repo from './deposit-repo.js';
import type { DepositRow } from './deposit-repo.js';
import type { DepositsTable, SnapshotItem } from '../../db/tables/deposits.js';
import { commitView, statusView, webhookPayload } from './deposit-views.js';
import { customCurrencyErrors, floorMills, redirectUrlErrors, type CustomCurrencyInput } from './deposit-rules.js';
import { callPlatform, PlatformTimeoutError, withTimeout } from './deposit-platform.js';

import { scheduleDepositOfferCancel, scheduleHoldEnd, scheduleOfferExpiry, schedulePendingWatchdog } from './deposit-jobs.js';
import { scheduleAddDepositItems } from '../catalogue/catalogue-jobs.js';

export interface TradeKey {
  game: Game;
  partner: number;
  token: string;
}

export interface DepositUrls {
  result_url?: string | null;
  success_url?: string | null;
  fail_url?: string | null;
}

export interface CreateDepositRequest extends TradeKey, DepositUrls, CustomCurrencyInput {
  merchant_tx_id: string;
  asset_ids: string[];
  /** asset_id → minimum USD price (the inventory flow's price-drop protection); anything else is ignored. */
  min_prices?: unknown;
  from_preview?: boolean | null;
}

export interface GetPricesRequest {
  game: Game;
  marketHashNames: string[];
  no_deposit_intent?: boolean;
}

export interface HashNameCommitRequest extends TradeKey, DepositUrls, CustomCurrencyInput {
  id: number;
  merchant_tx_id: string;
  items: { asset_id?: string; name: string; min_price?: number | null }[];
}

export interface PreviewRequest {
  game: Game;
  partner?: number;
  token?: string;
  items?: { asset_id: string; name: string; icon_url?: string }[];
}

export interface TransitionExtra {
  failReason?: string;
  /** Columns stored together with the change (commit: trade key and URLs; send: bot and offer). */
  set?: Updateable<DepositsTable>;
  /** Scope to one merchant: another merchant's deposit is not found. */
  merchantId?: number;
}

/** The sandbox helper action of each offer change: 409 messages name it ("cannot accept from status hold"). */
const OFFER_CHANGE_ACTION: Record<OfferChange['change'], string> = {
  accepted: 'accept',
  declined: 'decline',
  expired: 'expire',
  canceled: 'cancel',
  hold_ended: 'release',
  reverted: 'revert',
};

export interface DepositDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  platform: TradingPlatform;
  pricing: PricingService;
}

const tooMany = (max: number, field: string) =>
  new AppError('validation', `deposit exceeds the maximum of ${max} items per deposit`, [
    { field, code: 'too_many_items', message: `at most ${max} items per deposit` },
  ]);

const inventoryReload = (message: string) => validationError([{ field: 'inventory', code: 'inventory_reload', message }]);

const priceFloorError = (field: string, message: string) =>
  new AppError('validation', 'item_specified_price_not_found', [{ field, code: 'item_specified_price_not_found', message }]);

const denied = (message = 'trade is not in status new') => validationError([{ field: 'status', code: 'denied', message }]);

/** An asset of the request is already in a live (pending, active, hold) deposit of the same user. */
const assetReservedMessage = (assetId: string) => `asset ${assetId} is already in another deposit that is not finished`;

/** Duplicate asset IDs within one request (a deposit takes each asset once). */
function duplicateAssetErrors(assetIds: readonly (string | undefined | null)[], fieldOf: (i: number) => string): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  assetIds.forEach((a, i) => {
    if (a == null || a === '') return;
    if (seen.has(a)) errors.push({ field: fieldOf(i), code: 'duplicate', message: `asset ${a} is listed twice` });
    seen.add(a);
  });
  return errors;
}

/** min_prices as a lookup: only an object's own entries count; anything else is no floors at all. */
function floorLookup(minPrices: unknown): (assetId: string) => number | undefined {
  if (minPrices === null || typeof minPrices !== 'object' || Array.isArray(minPrices)) return () => undefined;
  const floors = minPrices as Record<string, unknown>;
  return (assetId) => (Object.hasOwn(floors, assetId) ? floorMills(floors[assetId]) : undefined);
}

/** Keeps only the columns a merchant may set; undefined means "not given". */
function currencyColumns(req: CustomCurrencyInput) {
  if (req.custom_currency == null) return {};
  return {
    custom_currency: req.custom_currency,
    custom_currency_multiplier: req.custom_currency_multiplier ?? null,
    custom_currency_rate: req.custom_currency_rate ?? null,
  };
}

function urlColumns(req: DepositUrls) {
  const out: Partial<Record<'result_url' | 'success_url' | 'fail_url', string>> = {};
  if (req.result_url) out.result_url = req.result_url;
  if (req.success_url) out.success_url = req.success_url;
  if (req.fail_url) out.fail_url = req.fail_url;
  return out;
}

export function createDepositService(deps: DepositDeps) {
  const { db, config, clock, log, platform, pricing } = deps;
  const now = () => clock.now();
  const plus = (seconds: number) => new Date(now().getTime() + seconds * 1000);

  // ---- platform calls: user errors become 400 domain codes, failure or silence 500 integration
  // service error (the one mapping of deposit-platform.ts, shared with create-intent) ----

  const checkUser = (k: TradeKey): Promise<PlatformUser> => callPlatform(() => platform.checkTradeLink(k.game, k.partner, k.token), config.depositTimeoutMs);
  const loadItems = (k: TradeKey): Promise<PlatformItem[]> => callPlatform(() => platform.loadInventory(k.game, k.partner, k.token), config.depositTimeoutMs);

  /**
   * The 400 for assets held by another live deposit of the user, naming the ones that still are
   * (`fallbackField` when the other deposit finished meanwhile).
   */
  async function assetsReservedError(key: { game: string; partner: number }, assetIds: readonly string[], fieldOf: (i: number) => string, fallbackField: string): Promise<AppError> {
    const taken = await repo.reservedAssets(db, key, assetIds);
    const errors: FieldError[] = [];
    assetIds.forEach((a, i) => {
      if (taken.has(a)) errors.push({ field: fieldOf(i), code: 'item_not_available', message: assetReservedMessage(a) });
    });
    if (errors.length === 0) errors.push({ field: fallbackField, code: 'item_not_available', message: 'an asset is already in another deposit that is not finished; retry' });
    return validationError(errors);
  }

  async function checkRequest(req: DepositUrls & CustomCurrencyInput): Promise<void> {
    const errors: FieldError[] = [...customCurrencyErrors(req), ...redirectUrlErrors(req)];
    if (errors.length) throw validationError(errors);
    if (req.result_url) await assertWebhookTarget(req.result_url, config.webhookAllowPrivate, 'result_url');
  }

  function snapshotItem(it: PlatformItem, q: Quote): SnapshotItem {
    return { asset_id: it.assetId, name: it.marketHashName, price: q.price, original_price: q.originalPrice, ...q.card };
  }

  /** Inventory item card of spec 2.3. */
  function cardView(s: SnapshotItem) {
    return {
      id: s.asset_id,
      name: s.name,
      price: millsToUsd(s.price),
      image_url: s.image_url ?? '',
      ...(s.exterior ? { exterior: s.exterior } : {}),
      ...(s.rarity ? { rarity: s.rarity } : {}),
      ...(s.rarity_color ? { rarity_color: s.rarity_color } : {}),
      ...(s.phase ? { phase: s.phase } : {}),
    };
  }

  /** Priced items of the user's live inventory; unpriced ones are omitted. */
  async function pricedInventory(merchant: MerchantRow, k: TradeKey): Promise<SnapshotItem[]> {
    const items = await loadItems(k);
    const out: SnapshotItem[] = [];
    for (const it of items) {
      const q = pricing.quote(merchant, k.game, it.marketHashName, it.phase);
      if (q) out.push(snapshotItem(it, q));
    }
    return out;
  }

  // ---- the one status-changing function ----

  async function effects(trx: Trx, d: DepositRow, event: DepositEvent): Promise<void> {
    const movement = DEPOSIT_MACHINE.transitions[event].movement;
    if (movement) {
      const m = DEPOSIT_MOVEMENTS[movement];
      await applyMovement(trx, {
        merchantId: d.merchant_id,
        key: `deposit:${d.id}:${movement}`,
        kind: m.kind,
        availableDelta: m.available * d.amount,
        holdDelta: m.hold * d.amount,
        refType: 'deposit',
        refId: d.id,
      });
    }
    if (DEPOSIT_MACHINE.onEnter[d.status].webhook) {
      await enqueueWebhook(trx, {
        merchantId: d.merchant_id,
        kind: 'deposit',
        recordId: d.id,
        status: d.status,
        resultUrl: d.result_url,
        payload: webhookPayload(d),
      });
    }
    // Time-driven transitions run as jobs; their handlers re-apply the same transition, which a
    // deposit that has moved on refuses (so a late or repeated job does nothing).
    if (d.status === 'pending') await watchPending(trx, d.id);
    if (d.status === 'active' && d.trade_offer_expiry_at) {
      await scheduleOfferExpiry(trx, d.id, new Date(d.trade_offer_expiry_at));
    }
    if (d.status === 'hold' && d.hold_end_date) {
      await scheduleHoldEnd(trx, d.id, new Date(d.hold_end_date));
    }
    if (d.status === 'completed') {
      await scheduleAddDepositItems(trx, d.id);
    }
  }

  /** A pending deposit is resolved by perform within DEPOSIT_TIMEOUT_MS; if the instance died, this job fails it. */
  function watchPending(trx: Trx, id: number): Promise<void> {
    const runAt = new Date(now().getTime() + config.depositTimeoutMs + 30_000);
    return schedulePendingWatchdog(trx, id, runAt);
  }

  /** Applies `event` inside `trx`: guarded UPDATE, ledger, webhook, jobs. 404 / 409 invalid transition otherwise. */
  async function transitionIn(trx: Trx, depositId: number, event: DepositEvent, extra: TransitionExtra = {}): Promise<DepositRow> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const set: Updateable<DepositsTable> = { ...extra.set, status: rule.to };
    const failReason = extra.failReason ?? rule.failReason;
    if (failReason) set.fail_reason = failReason;
    const row = await repo.updateStatusGuarded(trx, depositId, rule.from, set, extra.merchantId);
    if (!row) {
      const current = await repo.findDepositById(trx, depositId);
      if (!current || (extra.merchantId !== undefined && current.merchant_id !== extra.merchantId)) throw notFound();
      throw invalidTransition(current.status, event);
    }
    // A finished deposit no longer holds the user's assets: they may go into a new deposit.
    if (isTerminal(DEPOSIT_MACHINE, row.status)) await repo.releaseItems(trx, row.id);
    await effects(trx, row, event);
    return row;
  }

  function applyTransition(depositId: number, event: DepositEvent, extra?: TransitionExtra): Promise<DepositRow> {
    return db.transaction().execute((trx) => transitionIn(trx, depositId, event, extra));
  }

  /** For jobs: a deposit that is gone or no longer in the expected status is left alone. */
  async function tryTransition(depositId: number, event: DepositEvent, extra?: TransitionExtra): Promise<DepositRow | null> {
    try {
      return await applyTransition(depositId, event, extra);
    } catch (err) {
      if (isAppError(err, 'invalid_transition') || isAppError(err, 'not_found')) return null;
      throw err;
    }
  }

  function holdEndFor(game: string | null): Date {
    const seconds = config.holdSeconds[(game ?? 'csgo') as Game] ?? 0;
    // An explicit hold on a game without one (sandbox accept {hold:true}) lasts an hour.
    return plus(seconds > 0 ? seconds : 3600);
  }

  /**
   * Fails a pending trade with `reason` (stored, webhook sent); answers the row as it now is. A
   * trade that moved on meanwhile (the watchdog failed it) is left alone, as in perform: the
   * merchant API never answers 409 for it (409 means a duplicate merchant_tx_id only).
   */
  async function failPending(id: number, reason: string): Promise<DepositRow> {
    return (await tryTransition(id, 'fail', { failReason: reason })) ?? (await repo.findDepositById(db, id))!;
  }

  /** Rule 7–9 of 4.5 (and 4.3): the bot sends the offer within DEPOSIT_TIMEOUT_MS, else failed. */
  async function perform(d: DepositRow, assetIds: string[]): Promise<DepositRow> {
    let offer;
    const sending = platform.sendDepositOffer({ depositId: d.id, game: d.game as Game, partner: d.partner!, token: d.token!, assetIds });
    try {
      offer = await withTimeout(sending, config.depositTimeoutMs);
    } catch (err) {
      // The call goes on after a timeout: an offer it still sends is never recorded (the deposit
      // fails below), so the user must not be able to accept it — it is withdrawn.
      if (err instanceof PlatformTimeoutError) {
        sending.then(
          (late) => {
            log.warn({ depositId: d.id, tradeOfferId: late.tradeOfferId }, 'deposit offer sent after DEPOSIT_TIMEOUT_MS: canceling it');
            return scheduleOfferCancel(d.id, late.tradeOfferId);
          },
          () => {},
        );
      }
      // Timeouts and errors before dispatch answer in-band: HTTP 200, status failed, service_unavailable.
      log.warn({ err, depositId: d.id }, 'deposit offer was not sent');
      return (await tryTransition(d.id, 'fail', { failReason: 'service_unavailable' })) ?? (await repo.findDepositById(db, d.id))!;
    }
    let active: DepositRow | null;
    try {
      active = await tryTransition(d.id, 'send', {
        set: {
          bot_id: offer.bot.id,
          bot_name: offer.bot.name,
          bot_platform_id: offer.bot.platformId,
          trade_offer_id: offer.tradeOfferId,
          trade_offer_expiry_at: offer.expiresAt,
        },
      });
    } catch (err) {
      // Not recorded (database error): the deposit stays pending, its watchdog fails it; the offer
      // is withdrawn (the cancel job checks the deposit did not record it after all).
      await scheduleOfferCancel(d.id, offer.tradeOfferId);
      throw err;
    }
    if (active) return active;
    // The deposit moved on first (the pending watchdog failed it): the offer is not its offer.
    log.warn({ depositId: d.id, tradeOfferId: offer.tradeOfferId }, 'deposit offer sent for a deposit no longer pending: canceling it');
    await scheduleOfferCancel(d.id, offer.tradeOfferId);
    return (await repo.findDepositById(db, d.id))!;
  }

  /** Enqueues the withdrawal of an offer the deposit did not record; never throws (logs instead). */
  async function scheduleOfferCancel(depositId: number, tradeOfferId: string): Promise<void> {
    try {
      await scheduleDepositOfferCancel(db, depositId, tradeOfferId);
    } catch (err) {
      log.error({ err, depositId, tradeOfferId }, 'could not schedule the cancel of an unrecorded deposit offer');
    }
  }

  /**
   * Job deposit_cancel_offer: withdraws `tradeOfferId` unless the deposit recorded it as its offer.
   * A deposit still pending may yet settle (its perform or watchdog is running): look again later.
   */
  async function cancelUnrecordedOffer(depositId: number, tradeOfferId: string): Promise<'done' | { retryAt: Date }> {
    const cur = await repo.findDepositById(db, depositId);
    if (cur?.status === 'pending') return { retryAt: plus(5) };
    if (cur && cur.trade_offer_id === tradeOfferId) return 'done';
    await platform.cancelOffer({ offer: 'deposit', recordId: depositId, tradeOfferId });
    log.info({ depositId, tradeOfferId }, 'unrecorded deposit offer canceled');
    return 'done';
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

  // ---- 4.2 inventory ----

  async function inventory(merchant: MerchantRow, req: TradeKey) {
    await checkUser(req);
    const items = await pricedInventory(merchant, req);
    await repo.upsertSnapshot(db, { merchantId: merchant.id, game: req.game, partner: req.partner, items, expiresAt: plus(config.quoteTtlSeconds) });
    return {
      items: items.map(cardView),
      total: items.length,
      sum: millsToUsd(sumMills(items.map((i) => i.price))),
      game: req.game,
      max_items: merchant.max_items,
    };
  }

  // ---- 4.3 create-deposit (inventory flow; also commits a hosted-page intent) ----

  async function createDeposit(merchant: MerchantRow, req: CreateDepositRequest, opts: { intentId?: number } = {}) {
    await checkRequest(req);
    const assetIds = req.asset_ids ?? [];
    if (assetIds.length === 0) throw validationError([{ field: 'asset_ids', code: 'required', message: 'asset_ids needs at least one asset' }]);
    if (assetIds.length > merchant.max_items) throw tooMany(merchant.max_items, 'asset_ids');
    const dups = duplicateAssetErrors(assetIds, (i) => `asset_ids[${i}]`);
    if (dups.length) throw validationError(dups);

    const user = await checkUser(req);

    // Prices: the inventory snapshot, or current (preview) prices where the merchant may use them.
    const fromPreview = Boolean(req.from_preview) && merchant.deposit_preview_enabled;
    let priced: SnapshotItem[];
    if (fromPreview) {
      priced = await pricedInventory(merchant, req);
    } else {
      const snap = await repo.findSnapshot(db, merchant.id, req.partner, req.game);
      if (!snap || new Date(snap.expires_at).getTime() <= now().getTime()) {
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

    const amount = sumMills(chosen.map((i) => i.price));
    const columns = {
      game: req.game,
      partner: req.partner,
      token: req.token,
      platform_id: user.platformId,
      amount,
      from_preview: fromPreview,
      ...urlColumns(req),
      ...currencyColumns(req),
    };
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
    }));

    const pending = await insertOrConflict(() =>
      db.transaction().execute(async (trx) => {
        let d: DepositRow;
        if (opts.intentId !== undefined) {
          const intent = await repo.findMerchantDeposit(trx, merchant.id, { id: opts.intentId });
          if (!intent || intent.flow !== 'intent') throw notFound();
          if (intent.status !== 'new') throw denied();
          d = await transitionIn(trx, intent.id, 'commit', { merchantId: merchant.id, set: columns }).catch((err) => {
            if (isAppError(err, 'invalid_transition')) throw denied();
            throw err;
          });
        } else {
          d = await repo.insertDeposit(trx, {
            merchant_id: merchant.id,
            merchant_tx_id: req.merchant_tx_id,
            flow: 'inventory',
            status: 'pending',
            ...columns,
          });
          await watchPending(trx, d.id);
        }
        // Reserves the assets: one held by another live deposit of this user rolls all of this back.
        await repo.insertItems(trx, d.id, { game: req.game, partner: req.partner }, items);
        return d;
      }),
      () => assetsReservedError({ game: req.game, partner: req.partner }, assetIds, (i) => `asset_ids[${i}]`, 'asset_ids'),
    );
    const done = await perform(pending, assetIds);
    return { statusCode: 200, data: commitView(done) };
  }

  // ---- 4.4 get-prices ----

  async function getPrices(merchant: MerchantRow, req: GetPricesRequest) {
    const names = [...new Set(req.marketHashNames)];
    const quotes = names.map((n) => pricing.quote(merchant, req.game, n)).filter((q): q is Quote => q !== undefined);
    if (quotes.length === 0) return { total: 0, sum: 0, items: null };
    const items = quotes.map((q) => ({ name: q.name, price: millsToUsd(q.price), originalPrice: millsToUsd(q.originalPrice) }));
    const sum = millsToUsd(sumMills(quotes.map((q) => q.price)));
    if (req.no_deposit_intent) return { total: quotes.length, sum, items };
    const draft = await db.transaction().execute(async (trx) => {
      const d = await repo.insertDeposit(trx, {
        merchant_id: merchant.id,
        flow: 'hash_name',
        status: 'new',
        game: req.game,
        amount: 0,
        quote_expires_at: plus(config.quoteTtlSeconds),
      });
      await repo.insertQuoteItems(trx, d.id, quotes);
      return d;
    });
    return { id: draft.id, total: quotes.length, sum, items };
  }

  // ---- 4.5 create-deposit-by-hash-name: the nine rules, in order ----

  async function createDepositByHashName(merchant: MerchantRow, req: HashNameCommitRequest) {
    await checkRequest(req);
    if (req.items.length > merchant.max_items) throw tooMany(merchant.max_items, 'items');
    const assetIds = req.items.map((it) => it.asset_id);
    const dups = duplicateAssetErrors(assetIds, (i) => `items[${i}].asset_id`);
    if (dups.length) throw validationError(dups);

    // 1. The trade key.
    const user = await checkUser(req);

    // 2. The draft: the merchant's, status new.
    const draft = await repo.findMerchantDeposit(db, merchant.id, { id: req.id });
    if (!draft || draft.flow !== 'hash_name') throw notFound();
    if (draft.status !== 'new') throw denied();
    if (draft.game !== req.game) {
      throw validationError([{ field: 'game', code: 'denied', message: `the quote was made for ${draft.game}` }]);
    }
    const quoted = new Map((await repo.listQuoteItems(db, draft.id)).map((q) => [q.market_hash_name, q]));
    const unquoted: FieldError[] = [];
    req.items.forEach((it, i) => {
      if (!quoted.has(it.name)) unquoted.push({ field: `items[${i}].name`, code: 'item_not_available', message: `${it.name} was not quoted by get-prices` });
    });
    if (unquoted.length) throw validationError(unquoted);
    // Assets already in a live deposit of this user: refused while the draft is still new. (Only a
    // pre-check for a clear answer; the reservation itself is made with the items, rule 7.)
    const key = { game: req.game, partner: req.partner };
    const given = assetIds.filter((a): a is string => a != null && a !== '');
    const itemField = (i: number) => `items[${i}].asset_id`;
    if ((await repo.reservedAssets(db, key, given)).size > 0) throw await assetsReservedError(key, assetIds.map((a) => a ?? ''), itemField, 'items');

    // 5. Prices from the data cached at quote time (recalculated before the commit so that the
    // amount is stored with it: a trade failed by rule 4 or 6 shows it in status and webhook).
    const lines = req.items.map((it) => ({ ...it, quote: quoted.get(it.name)! }));
    const amount = sumMills(lines.map((l) => l.quote.price));

    // 3. Store merchant_tx_id, trade key, URLs and amount; new → pending (a concurrent commit finds it pending).
    const pending = await insertOrConflict(() =>
      db.transaction().execute((trx) =>
        transitionIn(trx, draft.id, 'commit', {
          merchantId: merchant.id,
          set: {
            merchant_tx_id: req.merchant_tx_id,
            partner: req.partner,
            token: req.token,
            platform_id: user.platformId,
            amount,
            ...urlColumns(req),
            ...currencyColumns(req),
          },
        }).catch((err) => {
          if (isAppError(err, 'invalid_transition')) throw denied();
          throw err;
        }),
      ),
    );

    // 4. The quote's age.
    if (!pending.quote_expires_at || new Date(pending.quote_expires_at).getTime() <= now().getTime()) {
      await failPending(pending.id, 'inventory_reload');
      throw inventoryReload('the quote is older than its validity; call get-prices again');
    }

    // 5. Done above, with the commit.

    // 6. Price floors (values of 0 or below are ignored).
    for (const [i, l] of lines.entries()) {
      const floor = floorMills(l.min_price);
      if (floor !== undefined && l.quote.price < floor) {
        await failPending(pending.id, 'item_specified_price_not_found');
        throw priceFloorError(`items[${i}].min_price`, `the price of ${l.name} (${millsToUsd(l.quote.price)}) is below its min_price`);
      }
    }

    // 7. Items stored (their assets reserved), then the deposit is performed (8 and 9 in perform).
    let stored: DepositRow;
    try {
      stored = await db.transaction().execute(async (trx) => {
        const d = await repo.updateStatusGuarded(trx, pending.id, ['pending'], {});
        if (!d) throw denied();
        await repo.insertItems(
          trx,
          d.id,
          key,
          lines.map((l) => {
            const c = pricing.quote(merchant, req.game, l.name)?.card;
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
            };
          }),
        );
        return d;
      });
    } catch (err) {
      // Another deposit of this user took one of the assets since the pre-check: stored as failed.
      if (!isUniqueViolation(err, repo.RESERVED_ASSET_INDEX)) throw err;
      await failPending(pending.id, 'item_not_available');
      throw await assetsReservedError(key, assetIds.map((a) => a ?? ''), itemField, 'items');
    }
    const done = await perform(
      stored,
      lines.map((l) => l.asset_id ?? '').filter((a) => a !== ''),
    );
    return { statusCode: 200, data: commitView(done) };
  }

  // ---- 4.6 deposit-preview: no record, no snapshot ----

  async function preview(merchant: MerchantRow, req: PreviewRequest) {
    if (!merchant.deposit_preview_enabled) throw forbidden('deposit preview is not enabled for this merchant');
    let items: Record<string, unknown>[];
    let prices: number[];
    if (req.items && req.items.length > 0) {
      const quoted = req.items
        .map((it) => ({ it, q: pricing.quote(merchant, req.game, it.name) }))
        .filter((x): x is { it: (typeof x)['it']; q: Quote } => x.q !== undefined);
      items = quoted.map(({ it, q }) => ({ id: it.asset_id, name: it.name, price: millsToUsd(q.price), ...(q.card.phase ? { phase: q.card.phase } : {}) }));
      prices = quoted.map((x) => x.q.price);
    } else if (req.partner !== undefined && req.token !== undefined) {
      const key = { game: req.game, partner: req.partner, token: req.token };
      await checkUser(key);
      const priced = await pricedInventory(merchant, key);
      items = priced.map(cardView);
      prices = priced.map((p) => p.price);
    } else {
      throw validationError([
        { field: 'items', code: 'required', message: 'send items, or partner and token' },
        ...(req.partner === undefined ? [{ field: 'partner', code: 'required', message: 'partner is required unless items is sent' }] : []),
        ...(req.token === undefined ? [{ field: 'token', code: 'required', message: 'token is required unless items is sent' }] : []),
      ]);
    }
    return { items, total: items.length, sum: millsToUsd(sumMills(prices)), game: req.game, max_items: merchant.max_items };
  }

  // ---- 4.7 status ----

  async function status(merchant: MerchantRow, q: { id?: number; merchant_tx_id?: string }) {
    if (q.id === undefined && (q.merchant_tx_id === undefined || q.merchant_tx_id === '')) {
      throw validationError([{ field: 'id', code: 'required', message: 'id or merchant_tx_id is required' }]);
    }
    const d = await repo.findMerchantDeposit(db, merchant.id, { id: q.id, merchantTxId: q.merchant_tx_id || undefined });
    if (!d) throw notFound();
    return statusView(d);
  }

  // ---- offer changes reported by the platform (port OfferChange; wired in context.ts) ----

  /**
   * Applies an offer change the platform reported (the sandbox: its test helpers) as the deposit's
   * transition: accepted → accept_hold (hold, default: the game's hold) or accept; declined →
   * decline; expired → expire; canceled (our side withdrew the offer) → canceled
   * canceled_by_gateway; hold_ended → release; reverted → revert (user_reverted /
   * gateway_reverted). Answers the deposit's status view; 404 for an unknown deposit (or another
   * merchant's, when change.merchantId is set), 409 invalid transition naming the helper action.
   */
  async function applyOfferChange(change: OfferChange) {
    const id = change.recordId;
    const merchantId = change.merchantId;
    const d = merchantId !== undefined ? await repo.findMerchantDeposit(db, merchantId, { id }) : await repo.findDepositById(db, id);
    if (!d || (change.tradeOfferId !== undefined && d.trade_offer_id !== change.tradeOfferId)) throw notFound();
    const action = OFFER_CHANGE_ACTION[change.change];
    const run = async (event: DepositEvent, extra: TransitionExtra = {}) => {
      try {
        return await applyTransition(id, event, { ...(merchantId !== undefined ? { merchantId } : {}), ...extra });
      } catch (err) {
        // Report the merchant's action name, not our event name.
        if (isAppError(err, 'invalid_transition')) {
          const current = (await repo.findDepositById(db, id))?.status ?? d.status;
          throw invalidTransition(current, action);
        }
        throw err;
      }
    };
    let row: DepositRow;
    switch (change.change) {
      case 'accepted': {
        const gameHold = config.holdSeconds[(d.game ?? 'csgo') as Game] > 0;
        const hold = change.hold ?? gameHold;
        row = hold ? await run('accept_hold', { set: { hold_end_date: change.holdEndsAt ?? holdEndFor(d.game) } }) : await run('accept');
        break;
      }
      case 'declined':
        row = await run('decline');
        break;
      case 'expired':
        row = await run('expire');
        break;
      case 'canceled':
        row = await run('cancel');
        break;
      case 'hold_ended':
        row = await run('release');
        break;
      case 'reverted':
        row = await run('revert', { failReason: change.by === 'gateway' ? 'gateway_reverted' : 'user_reverted' });
        break;
    }
    return statusView(row);
  }

  return {
    inventory,
    createDeposit,
    getPrices,
    createDepositByHashName,
    preview,
    status,
    applyTransition,
    tryTransition,
    applyOfferChange,
    holdEndFor,
    cancelUnrecordedOffer,
  };
}

export type DepositService = ReturnType<typeof createDepositService>;
