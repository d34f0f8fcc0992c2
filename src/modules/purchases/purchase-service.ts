// Purchase rules (spec 3.2, 3.3, 3.4, 4.8–4.10; DESIGN 6, 8).
//
// Creation, in one transaction: claim merchant_tx_id (INSERT … ON CONFLICT DO NOTHING on the
// unique constraint) → pick and lock the listing (SELECT … FOR UPDATE) → enqueue the dispatch job
// and the pending watchdog → debit available (`purchase:<id>:reserve`; takes the merchant's
// balances row lock) → reserve the listing (UPDATE … WHERE status = 'live') and write the item
// snapshot, last: its trigger takes the catalogue_clock row lock that every purchase shares until
// commit (see purchase-repo.ts, lock order). A creation failure
// (3.3) is stored as a `failed` purchase with its fail_reason; nothing is taken (the debit, the
// jobs and the reservation are undone together with a savepoint).
//
// Amount of a purchase that failed at creation: the price it attempted to pay (0 when no listing
// was found). Spec 2.5 calls amount the purchase amount, and a merchant reading a failed
// insufficient_balance / price_changed purchase wants to see what was attempted. No ledger entry
// exists for it (the debit was never made or rolled back), and a refund needs the
// `purchase:<id>:reserve` entry (applyEvent checks), so the number never moves money.
//
// Offer changes the platform reports (port OfferChange, wired in context.ts) arrive through
// applyOfferChange, which maps them to events. Later changes go through applyEvent only: the
// transition table of src/domain/purchase-state.ts, a guarded UPDATE (WHERE status = <from>), and
// in the same transaction the refund (`purchase:<id>:refund`), the webhook, the timed jobs and —
// last, for the same lock reason — the listing effect (back on sale / sold).
//
// Dispatch (job purchase_dispatch) is retry-safe: a marker (dispatch_attempts, dispatch_started_at)
// is committed before every attempt, and the platform's sendPurchaseOffer must be idempotent per
// purchaseId (the sandbox returns the offer it already sent), so a retry after "offer sent, but
// recording it failed" adopts the first offer instead of sending a second. When the platform call of
// the last attempt times out, the purchase ends failed timeout_error (the platform was asked and
// did not answer in time; any other last-attempt error is gateway_too_slow). A purchase still pending
// long after every attempt should have ended (the worker died, the database failed the last
// attempt's bookkeeping) is failed with gateway_too_slow and refunded by the pending watchdog
// (job purchase_pending_watchdog); it never fails one while an attempt may be in flight. An offer
// the platform sends for a purchase that never records it (a call answering after its timeout, or
// after the purchase failed) is withdrawn by job purchase_cancel_offer (port cancelOffer).
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { MoneyError, usdToMills } from '../../domain/money.js';
import {
  PURCHASE_MACHINE,
  type CreationFailReason,
  type PurchaseEvent,
  type PurchaseFailReason,
  type PurchaseStatus,
} from '../../domain/purchase-state.js';
import { transitionFrom } from '../../domain/state-machine.js';
import { invalidTransition, isAppError, notFound, validationError } from '../../domain/errors.js';
import { addJobs } from '../../jobs/enqueue.js';
import { creationJobs, DISPATCH_MAX_ATTEMPTS, schedulePurchaseExpiry, schedulePurchaseHoldEnd, schedulePurchaseOfferCancel } from './purchase-jobs.js';
import {
  PlatformUnavailableError,
  PlatformUserError,
  platformIdOf,
  type OfferChange,
  type PlatformUser,
  type SentOffer,
  type TradingPlatform,
} from '../../platform/port.js';
import { applyMovement, InsufficientFundsError } from '../ledger/ledger-repo.js';
import { enqueueWebhook } from '../webhooks/outbox.js';
import { salePrice, type MerchantPricing } from '../catalogue/catalogue-service.js';
import type { ListingView } from '../catalogue/catalogue-repo.js';
import {
  cheapestByName,
  findPurchase,
  getPurchase,
  getPurchaseForUpdate,
  insertPurchase,
  ledgerKeyExists,
  listPurchases,
  lockCheapestByName,
  lockListing,
  markDispatchAttempt,
  markListingSold,
  nameEverListed,
  releaseListing,
  reserveListingFor,
  updatePurchase,
  updatePurchaseGuarded,
  type PurchaseRow,
  type PurchaseSort,
} from './purchase-repo.js';
import { purchaseWebhookPayload, purchaseWire, type PurchaseWire } from './purchase-views.js';

/** graphile-worker's backoff between the DISPATCH_MAX_ATTEMPTS attempts: e^1 + … + e^4 s ≈ 85 s. */
const DISPATCH_BACKOFF_MS = 90_000;

/**
 * The platform call of one dispatch attempt is abandoned after the gateway's platform timeout
 * (DEPOSIT_TIMEOUT_MS, the same answer time the deposit flow grants the platform); the attempt
 * then counts as failed and is retried (sendPurchaseOffer is idempotent per purchase).
 */
export function dispatchCallTimeoutMs(config: Config): number {
  return config.depositTimeoutMs;
}

/** An attempt started less than this ago may still be sending: 2 × the call timeout + 30 s. */
export function dispatchInFlightMs(config: Config): number {
  return 2 * dispatchCallTimeoutMs(config) + 30_000;
}

/**
 * A purchase may stay pending this long after creation: every dispatch attempt with its call
 * timeout, the retry backoff between them, and a minute of margin (≈ 3.3 minutes by default).
 */
export function pendingLimitMs(config: Config): number {
  return DISPATCH_MAX_ATTEMPTS * dispatchCallTimeoutMs(config) + DISPATCH_BACKOFF_MS + 60_000;
}

class PlatformTimeoutError extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PlatformTimeoutError(`the trading platform did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** PostgreSQL cannot store U+0000 in text: platform-supplied strings lose it (empty → absent). */
function storable(v: string | undefined): string | null {
  if (v === undefined) return null;
  const clean = v.replace(/\u0000/g, '');
  return clean === '' ? null : clean;
}

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

interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  platform: TradingPlatform;
}

type Pick =
  | { ok: true; listing: ListingView; price: number }
  | { ok: false; reason: CreationFailReason; listing?: ListingView; price?: number };

export function createPurchaseService(deps: Deps) {
  const { config, db, clock, log, platform } = deps;
  const wire = (p: PurchaseRow) => purchaseWire(p, config.publicUrl);

  /** Which listing this request buys, locked in `trx`; the reason when none can be bought. */
  async function pickListing(trx: Trx, merchant: MerchantRef, input: CreatePurchaseInput, maxPrice: number | undefined): Promise<Pick> {
    if (input.asset_id !== undefined) {
      const l = await lockListing(trx, input.asset_id, input.game);
      if (!l) return { ok: false, reason: 'item_not_available' };
      const price = salePrice(l.base_price, merchant);
      if (l.status !== 'live') return { ok: false, reason: 'item_sold', listing: l, price };
      if (maxPrice !== undefined && price > maxPrice) return { ok: false, reason: 'price_changed', listing: l, price };
      return { ok: true, listing: l, price };
    }
    const name = input.name!;
    const l = await lockCheapestByName(trx, input.game, name);
    if (!l) {
      return { ok: false, reason: (await nameEverListed(trx, input.game, name)) ? 'item_sold' : 'item_not_available' };
    }
    const price = salePrice(l.base_price, merchant);
    if (maxPrice !== undefined && price > maxPrice) return { ok: false, reason: 'item_specified_price_not_found', listing: l, price };
    return { ok: true, listing: l, price };
  }

  function snapshot(l: ListingView | undefined, price: number | undefined) {
    if (!l) return {};
    return { listing_id: l.id, item_name: l.name, item_price: price ?? null, item_image_url: l.image_url, item_asset_id: l.asset_id, amount: price ?? 0 };
  }

  /** Stores a creation failure on the (just inserted) purchase: nothing reserved, nothing taken. */
  async function failAtCreation(trx: Trx, p: PurchaseRow, reason: CreationFailReason, l?: ListingView, price?: number): Promise<PurchaseRow> {
    const failed = await updatePurchase(trx, p.id, { ...snapshot(l, price), status: 'failed', fail_reason: reason, updated_at: clock.now() });
    await enqueueWebhook(trx, { merchantId: failed.merchant_id, kind: 'purchase', recordId: failed.id, status: 'failed', payload: purchaseWebhookPayload(failed) });
    return failed;
  }

  async function scheduleFor(trx: Trx, p: PurchaseRow): Promise<void> {
    if (p.status === 'active' && p.offer_expires_at) {
      await schedulePurchaseExpiry(trx, p.id, new Date(p.offer_expires_at));
    }
    if (p.status === 'hold' && p.hold_end_date) {
      await schedulePurchaseHoldEnd(trx, p.id, new Date(p.hold_end_date));
    }
  }

  interface EventOptions {
    merchantId?: number;
    failReason?: PurchaseFailReason;
    holdEndDate?: Date;
    offer?: SentOffer;
  }

  /**
   * The transition `event` of the purchase `cur` (as read in `trx`): guarded UPDATE, then refund,
   * webhook, timed jobs and — last — the listing effect (its trigger takes the catalogue_clock
   * lock). Undefined when a concurrent change won the guarded UPDATE.
   */
  async function transitionIn(trx: Trx, cur: PurchaseRow, event: PurchaseEvent, opts: EventOptions): Promise<PurchaseRow | undefined> {
    const t = transitionFrom(PURCHASE_MACHINE, event, cur.status);
    if (!t) throw invalidTransition(cur.status, event);
    const now = clock.now();
    const patch: Partial<PurchaseRow> = { status: t.to, updated_at: now };
    const failReason = opts.failReason ?? t.failReason;
    if (PURCHASE_MACHINE.onEnter[t.to].keepsFailReason && failReason) patch.fail_reason = failReason;
    if (t.to === 'hold') patch.hold_end_date = opts.holdEndDate ?? now;
    if (opts.offer) {
      patch.trade_offer_id = opts.offer.tradeOfferId;
      patch.bot_id = opts.offer.bot.id;
      patch.bot_name = opts.offer.bot.name;
      patch.offer_expires_at = opts.offer.expiresAt;
    }
    const updated = await updatePurchaseGuarded(trx, cur.id, cur.status, patch);
    if (!updated) return undefined; // lost a race: the caller reads the new status and decides again
    const effects = PURCHASE_MACHINE.onEnter[updated.status];
    if (t.movement === 'refund' && updated.amount > 0 && (await ledgerKeyExists(trx, `purchase:${updated.id}:reserve`))) {
      await applyMovement(trx, {
        merchantId: updated.merchant_id,
        key: `purchase:${updated.id}:refund`,
        kind: 'purchase_refund',
        availableDelta: updated.amount,
        holdDelta: 0,
        refType: 'purchase',
        refId: updated.id,
      });
    }
    if (effects.webhook) {
      await enqueueWebhook(trx, { merchantId: updated.merchant_id, kind: 'purchase', recordId: updated.id, status: updated.status, payload: purchaseWebhookPayload(updated) });
    }
    await scheduleFor(trx, updated);
    if (updated.listing_id) {
      if (effects.listing === 'release') await releaseListing(trx, updated.listing_id, updated.id);
      if (effects.listing === 'sold') await markListingSold(trx, updated.listing_id, updated.id);
    }
    return updated;
  }

  /**
   * The one function that changes a purchase's status after creation. Throws 404 (not found /
   * another merchant's) or 409 invalid transition; a concurrent change is retried against the
   * new status, so exactly one of two racing events wins.
   */
  /** Enqueues the withdrawal of an offer the purchase may not have recorded; never throws (logs instead). */
  async function scheduleOfferCancel(purchaseId: number, tradeOfferId: string): Promise<void> {
    try {
      await schedulePurchaseOfferCancel(db, purchaseId, tradeOfferId);
    } catch (err) {
      log.error({ err, purchaseId, tradeOfferId }, 'could not schedule the cancel of an unrecorded purchase offer');
    }
  }

  async function applyEvent(purchaseId: number, event: PurchaseEvent, opts: EventOptions = {}): Promise<PurchaseRow> {
    for (let attempt = 0; ; attempt++) {
      const result = await db.transaction().execute(async (trx) => {
        const cur = opts.merchantId !== undefined ? await findPurchase(trx, opts.merchantId, { id: purchaseId }) : await getPurchase(trx, purchaseId);
        if (!cur) throw notFound();
        return transitionIn(trx, cur, event, opts);
      });
      if (result) return result;
      if (attempt >= 5) throw new Error(`purchase ${purchaseId}: too many concurrent status changes`);
    }
  }

  const service = {
    applyEvent,

    /**
     * POST /merchant/purchase. Returns the purchase (new or, for a repeated merchant_tx_id, the
     * stored one); HTTP 200 either way. Platform errors for the user are 400 validation errors.
     */
    async create(merchant: MerchantRef, input: CreatePurchaseInput): Promise<{ purchase: PurchaseWire; created: boolean }> {
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
        if (existing) return { purchase: wire(existing), created: false };
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
      const row = await db.transaction().execute(async (trx) => {
        const p = await insertPurchase(trx, {
          merchant_id: merchant.id,
          merchant_tx_id: txId ?? null,
          game: input.game,
          partner: input.partner,
          token: input.token,
          platform_id: user?.platformId ?? platformIdOf(input.partner),
          platform_name: storable(user?.name),
          platform_avatar_url: storable(user?.avatarUrl),
          created_at: now,
        });
        if (!p) return undefined; // a twin with this merchant_tx_id committed first

        if (providerDown) {
          const l = input.asset_id !== undefined ? await lockListing(trx, input.asset_id, input.game) : await cheapestByName(trx, input.game, input.name!);
          return failAtCreation(trx, p, 'provider_unavailable', l, l ? salePrice(l.base_price, merchant) : undefined);
        }

        const pick = await pickListing(trx, merchant, input, maxPrice);
        if (!pick.ok) return failAtCreation(trx, p, pick.reason, pick.listing, pick.price);

        // Take the money and reserve the listing together; undo both if the balance is short.
        // Lock hold times: the balances row lock (every money transaction of this merchant) is
        // taken by applyMovement and the catalogue_clock row lock (every catalogue writer) by the
        // listing UPDATE's trigger; both are held until commit. So the jobs are enqueued first
        // (one round trip, before either lock), then the debit, then the listing UPDATE together
        // with the purchase snapshot (one statement), then COMMIT — nothing else in between. The
        // listing is locked by pickListing, so nobody else can take it meanwhile. The savepoint
        // stays open on success (COMMIT ends it; a RELEASE would be one more round trip under
        // both locks).
        await sql`savepoint purchase_reserve`.execute(trx);
        try {
          await addJobs(trx, creationJobs(p.id, new Date(now.getTime() + pendingLimitMs(config))));
          await applyMovement(trx, {
            merchantId: merchant.id,
            key: `purchase:${p.id}:reserve`,
            kind: 'purchase_reserve',
            availableDelta: -pick.price,
            holdDelta: 0,
            refType: 'purchase',
            refId: p.id,
          });
          const reserved = await reserveListingFor(trx, pick.listing.id, p.id, { ...snapshot(pick.listing, pick.price), updated_at: now });
          if (!reserved) {
            await sql`rollback to savepoint purchase_reserve`.execute(trx);
            return failAtCreation(trx, p, 'item_sold', pick.listing, pick.price);
          }
          return reserved;
        } catch (err) {
          if (!(err instanceof InsufficientFundsError)) throw err;
          await sql`rollback to savepoint purchase_reserve`.execute(trx);
          return failAtCreation(trx, p, 'insufficient_balance', pick.listing, pick.price);
        }
      });
      if (row) return { purchase: wire(row), created: true };
      const twin = await findPurchase(db, merchant.id, { merchantTxId: txId });
      if (!twin) throw new Error('purchase: merchant_tx_id conflict without a stored purchase');
      return { purchase: wire(twin), created: false };
    },

    /** GET /merchant/purchase/status: by id and/or merchant_tx_id (both must match when both given). */
    async status(merchantId: number, q: { id?: number; merchantTxId?: string }): Promise<PurchaseWire> {
      if (q.id === undefined && q.merchantTxId === undefined) {
        throw validationError([
          { field: 'PurchaseStatusRequest.id', code: 'required', message: 'id or merchant_tx_id is required' },
          { field: 'PurchaseStatusRequest.merchant_tx_id', code: 'required', message: 'id or merchant_tx_id is required' },
        ]);
      }
      const p = await findPurchase(db, merchantId, q);
      if (!p) throw notFound();
      return wire(p);
    },

    /** GET /merchant/purchase: history with filters, sort and paging. */
    async history(merchantId: number, q: { limit: number; offset: number; status?: PurchaseStatus; dateRange?: number; search?: string; sort: PurchaseSort }) {
      const sinceDate = q.dateRange !== undefined ? new Date(clock.now().getTime() - q.dateRange * 86_400_000) : undefined;
      const { rows, total } = await listPurchases(db, merchantId, { limit: q.limit, offset: q.offset, status: q.status, sinceDate, search: q.search, sort: q.sort });
      return { data: rows.map(wire), total };
    },

    /**
     * Job purchase_dispatch: send the offer. The platform's refusal to answer → failed
     * provider_unavailable; a refusal for the user's trade link → failed trade_url_error; other
     * errors (a timeout, a database error while recording) retry, and the last attempt gives up
     * with timeout_error when the platform call timed out (dispatchCallTimeoutMs), else
     * gateway_too_slow. Either way the amount returns.
     *
     * Retry-safe: the attempt is recorded (guarded on pending, committed) before the platform is
     * called, and sendPurchaseOffer is idempotent per purchase, so a retry after "sent, but not
     * recorded" gets the first offer back. If even the last attempt cannot record its outcome, the
     * pending watchdog fails and refunds the purchase later.
     */
    async dispatch(purchaseId: number, attempt: { attempts: number; maxAttempts: number }): Promise<void> {
      const p = await markDispatchAttempt(db, purchaseId, clock.now());
      if (!p) return; // not pending (any more): nothing may be sent
      let offer: SentOffer;
      const sending = platform.sendPurchaseOffer({
        purchaseId: p.id,
        game: p.game,
        partner: p.partner,
        token: p.token,
        listingId: p.listing_id ?? '',
        ...(p.item_asset_id ? { assetId: p.item_asset_id } : {}),
      });
      try {
        offer = await withTimeout(sending, dispatchCallTimeoutMs(config));
      } catch (err) {
        // The abandoned call goes on: an offer it still sends is withdrawn unless the purchase
        // adopts it (a later attempt gets it back); the cancel job decides when the purchase settles.
        if (err instanceof PlatformTimeoutError) {
          sending.then(
            (late) => {
              log.warn({ purchaseId, tradeOfferId: late.tradeOfferId }, 'purchase offer answered after the dispatch timeout');
              return scheduleOfferCancel(purchaseId, late.tradeOfferId);
            },
            () => {},
          );
        }
        const reason: PurchaseFailReason | undefined =
          err instanceof PlatformUnavailableError ? 'provider_unavailable' : err instanceof PlatformUserError ? 'trade_url_error' : undefined;
        if (!reason && attempt.attempts < attempt.maxAttempts) throw err;
        // The last attempt: the platform was asked and did not answer in time → timeout_error;
        // the attempt failed on our side → gateway_too_slow.
        const last: PurchaseFailReason = reason ?? (err instanceof PlatformTimeoutError ? 'timeout_error' : 'gateway_too_slow');
        if (!reason) log.error({ err, purchaseId, failReason: last }, 'purchase dispatch failed on its last attempt');
        await applyEvent(p.id, 'fail', { failReason: last }).catch(ignoreInvalidTransition);
        return;
      }
      let recorded: PurchaseRow | void;
      try {
        recorded = await applyEvent(p.id, 'send', { offer }).catch(ignoreInvalidTransition);
      } catch (err) {
        // The offer is out but not recorded: the retry adopts it (idempotent send). After the last
        // attempt the pending watchdog settles the purchase (and the cancel job withdraws the offer).
        log.error({ err, purchaseId, tradeOfferId: offer.tradeOfferId, attempt: attempt.attempts }, 'purchase offer sent but not recorded');
        await scheduleOfferCancel(purchaseId, offer.tradeOfferId);
        throw err;
      }
      // The purchase moved on first (the watchdog failed it): withdraw the offer, unless it is the
      // one the purchase already recorded (the cancel job checks).
      if (!recorded) await scheduleOfferCancel(purchaseId, offer.tradeOfferId);
    },

    /**
     * Job purchase_cancel_offer: withdraws `tradeOfferId` unless the purchase recorded it. A
     * purchase still pending may yet adopt it (its dispatch or watchdog is due): look again later.
     */
    async cancelUnrecordedOffer(purchaseId: number, tradeOfferId: string): Promise<'done' | { retryAt: Date }> {
      const cur = await getPurchase(db, purchaseId);
      if (cur?.status === 'pending') return { retryAt: new Date(clock.now().getTime() + 30_000) };
      if (cur && cur.trade_offer_id === tradeOfferId) return 'done';
      await platform.cancelOffer({ offer: 'purchase', recordId: purchaseId, tradeOfferId });
      log.info({ purchaseId, tradeOfferId, status: cur?.status }, 'unrecorded purchase offer canceled');
      return 'done';
    },

    /**
     * Job purchase_pending_watchdog (scheduled at creation, pendingLimitMs later): a purchase still
     * pending then lost its dispatch; it ends failed gateway_too_slow, amount refunded, listing back
     * on sale. Decided under the purchase row lock against the dispatch marker, so it never fails
     * a purchase whose dispatch attempt may still be sending (it comes back later instead).
     */
    async failIfStuckPending(purchaseId: number): Promise<'done' | { retryAt: Date }> {
      for (let attempt = 0; ; attempt++) {
        const r = await db.transaction().execute(async (trx) => {
          const cur = await getPurchaseForUpdate(trx, purchaseId);
          if (!cur || cur.status !== 'pending') return 'done' as const;
          const due = Math.max(
            new Date(cur.created_at).getTime() + pendingLimitMs(config),
            cur.dispatch_started_at ? new Date(cur.dispatch_started_at).getTime() + dispatchInFlightMs(config) : 0,
          );
          if (due > clock.now().getTime()) return { retryAt: new Date(due) };
          const failed = await transitionIn(trx, cur, 'fail', { failReason: 'gateway_too_slow' });
          if (!failed) return undefined;
          log.warn({ purchaseId, attempts: cur.dispatch_attempts }, 'purchase stuck in pending: failed gateway_too_slow and refunded');
          return 'done' as const;
        });
        if (r) return r;
        if (attempt >= 5) throw new Error(`purchase ${purchaseId}: too many concurrent status changes`);
      }
    },

    /** Job purchase_offer_expire: the user did not accept in time → canceled buyer_too_slow. */
    async expireIfDue(purchaseId: number): Promise<'done' | { retryAt: Date }> {
      const p = await getPurchase(db, purchaseId);
      if (!p || p.status !== 'active' || !p.offer_expires_at) return 'done';
      if (new Date(p.offer_expires_at).getTime() > clock.now().getTime()) return { retryAt: new Date(p.offer_expires_at) };
      await applyEvent(p.id, 'expire').catch(ignoreInvalidTransition);
      return 'done';
    },

    /** Job purchase_hold_end: hold_end_date reached → completed. */
    async endHoldIfDue(purchaseId: number): Promise<'done' | { retryAt: Date }> {
      const p = await getPurchase(db, purchaseId);
      if (!p || p.status !== 'hold' || !p.hold_end_date) return 'done';
      if (new Date(p.hold_end_date).getTime() > clock.now().getTime()) return { retryAt: new Date(p.hold_end_date) };
      await applyEvent(p.id, 'release').catch(ignoreInvalidTransition);
      return 'done';
    },

    /**
     * Applies an offer change the platform reported (the sandbox: its test helpers) as the
     * purchase's event: accepted → accepted_hold (hold, default: the game's hold) or accepted;
     * declined → canceled canceled_by_user; expired → canceled buyer_too_slow; canceled (our side
     * withdrew the offer) → canceled canceled_by_gateway; hold_ended → completed; reverted →
     * reverted user_reverted / gateway_reverted. Answers the purchase; 404 for an unknown purchase
     * (or another merchant's, when change.merchantId is set), 409 invalid transition.
     */
    async applyOfferChange(change: OfferChange): Promise<PurchaseWire> {
      const id = change.recordId;
      const merchantId = change.merchantId;
      const cur = merchantId !== undefined ? await findPurchase(db, merchantId, { id }) : await getPurchase(db, id);
      if (!cur || (change.tradeOfferId !== undefined && cur.trade_offer_id !== change.tradeOfferId)) throw notFound();
      const scope: EventOptions = merchantId !== undefined ? { merchantId } : {};
      let row: PurchaseRow;
      switch (change.change) {
        case 'accepted': {
          const seconds = config.holdSeconds[cur.game];
          const event = (change.hold ?? seconds > 0) ? 'accept_hold' : 'accept';
          row = await applyEvent(id, event, { ...scope, holdEndDate: change.holdEndsAt ?? new Date(clock.now().getTime() + seconds * 1000) });
          break;
        }
        case 'declined':
          row = await applyEvent(id, 'decline', scope);
          break;
        case 'expired':
          row = await applyEvent(id, 'expire', scope);
          break;
        case 'canceled':
          row = await applyEvent(id, 'cancel', scope);
          break;
        case 'hold_ended':
          row = await applyEvent(id, 'release', scope);
          break;
        case 'reverted':
          row = await applyEvent(id, 'revert', { ...scope, failReason: change.by === 'gateway' ? 'gateway_reverted' : 'user_reverted' });
          break;
      }
      return wire(row);
    },
  };
  return service;
}

function ignoreInvalidTransition(err: unknown): void {
  // A helper or another job moved the purchase first: nothing left to do.
  if (isAppError(err, 'invalid_transition')) return;
  throw err;
}

export type PurchaseService = ReturnType<typeof createPurchaseService>;
