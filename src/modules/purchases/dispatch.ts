// The purchase dispatch stage (spec 3.2; DESIGN 6): the offer's life after creation.
//
// Dispatch (the per-instance dispatcher, dispatcher.ts, runs the steps below) is retry-safe: a
// marker (dispatch_attempts, dispatch_started_at, the lease dispatch_next_at) is committed before
// every attempt, and the platform's sendPurchaseOffer must be idempotent per purchaseId (the sandbox returns the offer it already sent), so a retry after "offer sent, but
// recording it failed" adopts the first offer instead of sending a second. When the platform call of
// the last attempt times out, the purchase ends failed timeout_error (the platform was asked and
// did not answer in time; any other last-attempt error is gateway_too_slow) — except where the
// platform can say what became of the offer (resolveOffer, steam): an offer it shows is recorded,
// and while it cannot say yet the purchase waits pending (never failed and refunded while
// its offer may still be accepted). A purchase still pending long after every attempt should have
// ended (the worker died, the database failed the last attempt's bookkeeping, or it waits for the
// platform) goes to the pending watchdog (the dispatcher's sweep, sweepStuckPending), which asks the
// platform first and fails it (gateway_too_slow, timeout_error after an ambiguous send) and refunds
// it only when no offer is shown; it never fails one while an attempt may be in flight. An offer
// the platform sends for a purchase that never records it (a call answering after its timeout, or
// after the purchase failed) is withdrawn by job purchase_cancel_offer (port cancelOffer), through
// the offer layer (src/platform/offers.ts), which also turns offer changes into transitions.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import type { Clock } from '../../domain/clock.js';
import type { PurchaseFailReason } from '../../domain/purchase-state.js';
import { createOffers } from '../../platform/offers.js';
import { causeOf, platformSilent, refusalOf as platformRefusalOf } from '../../platform/retry.js';
import { type OfferChange, type OfferResolution, type PurchaseOfferRequest, type SentOffer, type TradingPlatform } from '../../platform/port.js';
import {
  DISPATCH_MAX_ATTEMPTS,
  dispatchCallTimeoutMs,
  dispatchInFlightMs,
  dispatchRetryAt,
  pendingLimitMs,
  schedulePurchaseOfferCancel,
} from './purchase-jobs.js';
import {
  claimDuePurchases,
  findPurchase,
  getPurchase,
  getPurchaseForUpdate,
  markDispatchAttempt,
  scheduleDispatchRetry,
  stuckPendingIds,
  type PurchaseRow,
} from './purchase-repo.js';
import type { PurchaseTransitions } from './purchase-transitions.js';
import { purchaseCorrections } from './corrections.js';
import { purchaseTimers } from './timers.js';

export interface DispatchDeps {
  db: Db;
  config: Pick<Config, 'depositTimeoutMs' | 'holdSeconds'>;
  clock: Clock;
  log: Logger;
  platform: Pick<TradingPlatform, 'sendPurchaseOffer' | 'sendPurchaseOffers' | 'cancelOffer' | 'expireOffer' | 'resolveOffer'>;
  transitions: PurchaseTransitions;
}

/** How soon a platform that could not be asked about a purchase's offer is asked again. */
const RESOLVE_RETRY_MS = 30_000;
/** Recording sent offers while the database is away: tries, and the wait between two (about 15 s in all). */
const RECORD_TRIES_WHILE_AWAY = 30;
const RECORD_RETRY_MS = 500;

export function createDispatchStage(deps: DispatchDeps) {
  const { db, config, clock, log, platform, transitions } = deps;
  /** An attempt starting at `now` is leased this long: its call's deadline, twice, and a margin. */
  const leaseFrom = (now: Date) => new Date(now.getTime() + dispatchInFlightMs(config));

  const offers = createOffers<PurchaseRow>(deps, {
    kind: 'purchase',
    find: (id, merchantId) => (merchantId !== undefined ? findPurchase(db, merchantId, { id }) : getPurchase(db, id)),
    gameHoldSeconds: (p) => config.holdSeconds[p.game],
    apply: (p, e, merchantId) =>
      transitions.apply(p.id, e.event, {
        ...(merchantId !== undefined ? { merchantId } : {}),
        ...(e.failReason ? { failReason: e.failReason } : {}),
        holdEndDate: e.holdEndsAt ?? new Date(clock.now().getTime() + config.holdSeconds[p.game] * 1000),
      }),
    scheduleCancel: schedulePurchaseOfferCancel,
    pendingRetryMs: 30_000,
    ...purchaseCorrections({ db, config, clock, log, transitions }),
  });

  const requestOf = (p: PurchaseRow): PurchaseOfferRequest => ({
    purchaseId: p.id,
    game: p.game,
    partner: p.partner,
    token: p.token,
    listingId: p.listing_id ?? '',
    ...(p.item_asset_id ? { assetId: p.item_asset_id } : {}),
  });

  function sendOffer(p: PurchaseRow): Promise<SentOffer> {
    return offers.send(platform.sendPurchaseOffer(requestOf(p)), dispatchCallTimeoutMs(config), p.id);
  }

  /**
   * The offers of several purchases: one platform call when the platform takes batches, else one
   * call each. Each purchase's answer has its own deadline and late-offer withdrawal, as sendOffer.
   */
  function sendOffers(ps: PurchaseRow[]): Array<Promise<SentOffer>> {
    if (!platform.sendPurchaseOffers || ps.length < 2) return ps.map(sendOffer);
    const answers = platform.sendPurchaseOffers(ps.map(requestOf));
    return ps.map((p, i) =>
      offers.send(answers[i] ?? Promise.reject(new Error(`the platform answered ${answers.length} of ${ps.length} purchase offers`)), dispatchCallTimeoutMs(config), p.id),
    );
  }

  /** A refusal that ends the purchase at once (no retry; the one rule of platform/retry.ts), or undefined. */
  const refusalOf = (err: unknown): PurchaseFailReason | undefined => {
    const r = platformRefusalOf(err);
    return r === 'unavailable' ? 'provider_unavailable' : r === 'user' ? 'trade_url_error' : undefined;
  };

  /**
   * What the platform shows of the purchase's offer, where it can say (resolveOffer; undefined
   * elsewhere): an error asking it is "not known yet" (look again later).
   */
  async function resolveOnPlatform(id: number): Promise<OfferResolution | undefined> {
    if (!platform.resolveOffer) return undefined;
    return platform.resolveOffer('purchase', id).catch((err: unknown) => {
      log.warn({ err, purchaseId: id }, 'purchase offer could not be looked up on the platform: looked up again later');
      return { state: 'unknown' as const, retryAt: new Date(clock.now().getTime() + RESOLVE_RETRY_MS) };
    });
  }

  /**
   * The platform shows the purchase's offer (out, confirmed): the purchase follows it (pending →
   * active); one no longer pending does not want it (the cancel job withdraws it). Answers whether recorded.
   */
  async function adopt(p: PurchaseRow, offer: SentOffer, why: string): Promise<boolean> {
    const ok = (await transitions.apply(p.id, 'send', { offer })).ok;
    if (ok) log.warn({ purchaseId: p.id, tradeOfferId: offer.tradeOfferId }, `purchase offer found on the platform ${why}: recorded, not failed`);
    else await offers.scheduleCancel(p.id, offer.tradeOfferId);
    return ok;
  }

  /**
   * The platform cannot say yet whether the purchase's offer exists: the purchase stays pending
   * (never failed while its offer may still be accepted) and the pending sweep asks again at `at`.
   */
  async function waitForPlatform(p: PurchaseRow, at: Date): Promise<{ retryAt: Date }> {
    await scheduleDispatchRetry(db, p.id, p.dispatch_attempts, at);
    log.warn({ purchaseId: p.id, retryAt: at }, 'purchase offer may still appear on the platform: the purchase waits pending for what it shows');
    return { retryAt: at };
  }

  /**
   * The attempt's end: `reason` (a refusal), else — the last attempt failed — timeout_error when
   * the platform was asked and did not answer in time, gateway_too_slow when it failed on our side.
   * A silent last attempt (a timeout, eresult 16, a hang-up) may have put the offer out: where the
   * platform can say (resolveOffer), an offer it shows is recorded instead, and while it cannot say
   * yet the purchase waits pending (the sweep, failIfStuckPending, asks again) — it fails only
   * once the platform shows no offer after the settle window (a later one is withdrawn on sight).
   */
  async function failDispatch(p: PurchaseRow, err: unknown, reason: PurchaseFailReason | undefined): Promise<void> {
    if (!reason && platformSilent(err)) {
      const r = await resolveOnPlatform(p.id);
      if (r?.state === 'sent' && (await adopt(p, r.offer, 'after its last attempt failed silently'))) return;
      if (r?.state === 'unknown') {
        await waitForPlatform(p, r.retryAt);
        return;
      }
    }
    const last: PurchaseFailReason = reason ?? (platformSilent(err) ? 'timeout_error' : 'gateway_too_slow');
    const failCause = causeOf(err, p.dispatch_attempts);
    if (!reason) log.error({ err, purchaseId: p.id, failReason: last, failCause }, 'purchase dispatch failed on its last attempt');
    await transitions.apply(p.id, 'fail', { failReason: last, failCause });
  }

  /** One offer recorded on its own (after its batch failed). */
  async function recordOne({ p, offer }: { p: PurchaseRow; offer: SentOffer }): Promise<void> {
    let recorded: boolean;
    try {
      recorded = (await transitions.apply(p.id, 'send', { offer })).ok;
    } catch (err) {
      // With the database away this is a warning: the lease runs out and the retry adopts the offer.
      const away = noteDatabaseError(db, err);
      log[away ? 'warn' : 'error']({ err, purchaseId: p.id, tradeOfferId: offer.tradeOfferId, attempt: p.dispatch_attempts }, 'purchase offer sent but not recorded');
      await offers.scheduleCancel(p.id, offer.tradeOfferId);
      if (p.dispatch_attempts < DISPATCH_MAX_ATTEMPTS) {
        await scheduleDispatchRetry(db, p.id, p.dispatch_attempts, dispatchRetryAt(p.dispatch_attempts, clock.now())).catch((e: unknown) =>
          noteDatabaseError(db, e) || log.error({ err: e, purchaseId: p.id }, 'purchase dispatch retry not scheduled (its lease will run out)'),
        );
      }
      return;
    }
    if (!recorded) await offers.scheduleCancel(p.id, offer.tradeOfferId);
  }

  /**
   * The pending watchdog (the dispatcher's sweep, sweepStuckPending):
   * a purchase still pending pendingLimitMs after its creation lost its dispatch, or waits for the
   * platform's word after an ambiguous send. Where the platform can say (resolveOffer) it is asked
   * first: the offer it shows → the purchase follows it (active); not known yet → look again at its
   * retryAt; no offer after the settle window → failed (timeout_error when an offer was attempted,
   * else gateway_too_slow), amount refunded, listing back on sale. Decided under the purchase row
   * lock against the dispatch marker, so it never fails a purchase whose dispatch attempt may still
   * be sending (it comes back later instead).
   */
  async function failIfStuckPending(purchaseId: number): Promise<'done' | { retryAt: Date }> {
    const dueAtOf = (cur: PurchaseRow) =>
      Math.max(
        new Date(cur.created_at).getTime() + pendingLimitMs(config),
        cur.dispatch_started_at ? new Date(cur.dispatch_started_at).getTime() + dispatchInFlightMs(config) : 0,
      );
    const p = await getPurchase(db, purchaseId);
    if (!p || p.status !== 'pending') return 'done';
    if (dueAtOf(p) > clock.now().getTime()) return { retryAt: new Date(dueAtOf(p)) };
    // Asked outside any transaction (a platform call); the row lock below re-checks the marker.
    const r = await resolveOnPlatform(p.id);
    if (r?.state === 'sent') {
      await adopt(p, r.offer, 'by the pending sweep');
      return 'done';
    }
    if (r?.state === 'unknown') return waitForPlatform(p, r.retryAt);
    const failReason: PurchaseFailReason = r?.attempted ? 'timeout_error' : 'gateway_too_slow';
    const failCause = r?.attempted ? 'no offer for the purchase on the platform within its settle window' : undefined;
    for (let attempt = 0; ; attempt++) {
      const res = await db.transaction().execute(async (trx) => {
        const cur = await getPurchaseForUpdate(trx, purchaseId);
        if (!cur || cur.status !== 'pending') return 'done' as const;
        // An attempt started since the platform was asked: it decides (or the sweep comes back).
        if (cur.dispatch_attempts !== p.dispatch_attempts || dueAtOf(cur) > clock.now().getTime()) return { retryAt: new Date(dueAtOf(cur)) };
        const failed = await transitions.transitionIn(trx, cur, 'fail', { failReason, ...(failCause ? { failCause } : {}) });
        if (!failed.ok) return failed.reason === 'lost_race' ? undefined : ('done' as const);
        log.warn({ purchaseId, attempts: cur.dispatch_attempts, failReason }, `purchase stuck in pending: failed ${failReason} and refunded`);
        return 'done' as const;
      });
      if (res) return res;
      if (attempt >= 5) throw new Error(`purchase ${purchaseId}: too many concurrent status changes`);
    }
  }

  return {
    /**
     * One attempt at sending the offer of one purchase, its number given by the caller (tests; the
     * dispatcher has its own loop over the same steps). The platform's refusal to answer → failed
     * provider_unavailable; a refusal for the user's trade link → failed trade_url_error; other
     * errors (a timeout, a database error while recording) throw for a retry, and the last attempt
     * gives up with timeout_error when the platform call timed out (dispatchCallTimeoutMs), else
     * gateway_too_slow. Either way the amount returns.
     */
    async dispatch(purchaseId: number, attempt: { attempts: number; maxAttempts: number }): Promise<void> {
      const now = clock.now();
      const p = await markDispatchAttempt(db, purchaseId, now, new Date(now.getTime() + dispatchInFlightMs(config)));
      if (!p) return; // not pending (any more): nothing may be sent
      let offer: SentOffer;
      try {
        offer = await sendOffer(p);
      } catch (err) {
        const reason = refusalOf(err);
        if (!reason && attempt.attempts < attempt.maxAttempts) throw err;
        await failDispatch(p, err, reason);
        return;
      }
      let recorded: boolean;
      try {
        recorded = (await transitions.apply(p.id, 'send', { offer })).ok;
      } catch (err) {
        // The offer is out but not recorded: the retry adopts it (idempotent send). After the last
        // attempt the pending watchdog settles the purchase (and the cancel job withdraws the offer).
        log[noteDatabaseError(db, err) ? 'warn' : 'error']({ err, purchaseId, tradeOfferId: offer.tradeOfferId, attempt: attempt.attempts }, 'purchase offer sent but not recorded');
        await offers.scheduleCancel(purchaseId, offer.tradeOfferId);
        throw err;
      }
      // The purchase moved on first (the watchdog failed it): withdraw the offer, unless it is the
      // one the purchase already recorded (the cancel job checks).
      if (!recorded) await offers.scheduleCancel(purchaseId, offer.tradeOfferId);
    },

    /** The dispatcher's claim (its dispatch markers): due pending purchases, leased for one attempt each. */
    claim(limit: number): Promise<PurchaseRow[]> {
      const now = clock.now();
      return claimDuePurchases(db, { now, leaseUntil: leaseFrom(now), limit, maxAttempts: DISPATCH_MAX_ATTEMPTS });
    },

    /** The lease of an attempt starting now (a creation's, written leased to this instance). */
    leaseUntil(): Date {
      return leaseFrom(clock.now());
    },

    /**
     * A purchase its creation wrote leased to this instance that may be sent without a claim: its
     * first attempt, with more than half its lease left (the call's deadline fits in it). Another
     * (a slow batch, a function of an older version that wrote it unleased) waits for a claim.
     */
    adoptable(p: PurchaseRow): boolean {
      const left = new Date(p.dispatch_next_at).getTime() - clock.now().getTime();
      return p.status === 'pending' && p.dispatch_attempts === 1 && left > dispatchInFlightMs(config) / 2;
    },

    /** The platform calls of claimed purchases' attempts (each within dispatchCallTimeoutMs). */
    sendAll: sendOffers,

    /**
     * A claimed purchase's attempt failed before an offer was recorded: a refusal fails it, another
     * error retries at dispatchRetryAt while attempts are left, else the purchase fails
     * (timeout_error / gateway_too_slow). Throws only if the database does (the lease then runs out).
     */
    async attemptFailed(p: PurchaseRow, err: unknown): Promise<void> {
      const reason = refusalOf(err);
      if (!reason && p.dispatch_attempts < DISPATCH_MAX_ATTEMPTS) {
        if (!noteDatabaseError(db, err)) log.warn({ err, purchaseId: p.id, attempt: p.dispatch_attempts }, 'purchase dispatch attempt failed: retried later');
        await scheduleDispatchRetry(db, p.id, p.dispatch_attempts, dispatchRetryAt(p.dispatch_attempts, clock.now()));
        return;
      }
      await failDispatch(p, err, reason);
    },

    /**
     * Records the offers of claimed purchases: one batched transaction; if it fails, one by one,
     * so one purchase that cannot be recorded does not hold back the others. An offer not
     * recorded is withdrawn once its purchase has settled (cancel job); while attempts are left the
     * purchase is retried (the retry adopts the offer: idempotent send), after the last one the
     * pending watchdog settles it. Never throws.
     */
    async recordSent(batch: Array<{ p: PurchaseRow; offer: SentOffer }>): Promise<void> {
      let moved: Set<number>;
      // While the database is away (a restart, a failover) the offers wait for it to record them
      // (a batch that did commit is found moved: its purchases are no longer pending).
      for (let tries = 1; ; tries++) {
        try {
          moved = new Set((await transitions.sendMany(batch.map(({ p, offer }) => ({ id: p.id, offer })))).map((r) => Number(r.id)));
          break;
        } catch (err) {
          const away = noteDatabaseError(db, err);
          if (away && tries < RECORD_TRIES_WHILE_AWAY) {
            await new Promise((r) => setTimeout(r, RECORD_RETRY_MS));
            continue;
          }
          if (!away) log.error({ err, count: batch.length }, 'recording a batch of purchase offers failed: recording them one by one');
          for (const b of batch) await recordOne(b);
          return;
        }
      }
      for (const { p, offer } of batch) if (!moved.has(p.id)) await offers.scheduleCancel(p.id, offer.tradeOfferId);
    },
    /** Job purchase_cancel_offer. */
    cancelUnrecordedOffer: offers.cancelUnrecorded,

    /** The sweep's decision for one purchase. */
    failIfStuckPending,

    /**
     * The pending watchdog as a sweep (the dispatcher runs it every DISPATCH_SWEEP_MS): every
     * purchase pending past pendingLimitMs goes through failIfStuckPending (which leaves alone one
     * whose attempt may still be in flight). Answers how many it settled.
     */
    async sweepStuckPending(limit = 100): Promise<number> {
      const now = clock.now();
      const ids = await stuckPendingIds(db, {
        createdBy: new Date(now.getTime() - pendingLimitMs(config)),
        startedBy: new Date(now.getTime() - dispatchInFlightMs(config)),
        now,
        limit,
      });
      let settled = 0;
      for (const id of ids) if ((await failIfStuckPending(id)) === 'done') settled++;
      return settled; // below `limit` when some came back later: the sweep stops (no tight loop)
    },

    /** The time-driven transitions: offer expiry (the dispatcher's sweep) and hold end (timers.ts). */
    ...purchaseTimers({ db, clock, log, transitions, offerGone: offers.offerGone }),

    /**
     * An offer change (port OfferChange; wired in the composition root): accepted → accept_hold
     * (hold, default: the game's hold) or accept; declined → decline (canceled_by_user); expired →
     * expire (buyer_too_slow); canceled → cancel (canceled_by_gateway); hold_ended → release;
     * reverted → revert (user_reverted / gateway_reverted).
     */
    applyOfferChange: (change: OfferChange) => offers.applyChange(change),

    /** Whether the purchase still wants this offer (the platform asks before confirming or keeping one). */
    async wantsOffer(purchaseId: number, tradeOfferId: string): Promise<boolean> {
      const p = await getPurchase(db, purchaseId);
      return p?.status === 'pending' || (p?.status === 'active' && p.trade_offer_id === tradeOfferId);
    },
  };
}
