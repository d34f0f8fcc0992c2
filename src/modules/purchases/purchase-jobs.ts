// The purchases feature's jobs: task names, payload types, job keys and the schedule…() functions.
// Handlers: purchase-tasks.ts.
import { jittered } from '../../platform/retry.js';
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/database.js';
import { addJob, addJobs, type JobSpec } from '../../jobs/enqueue.js';

export const PURCHASE_TASKS = {
  /** active → canceled buyer_too_slow when offer_expires_at passes. */
  offerExpire: 'purchase_offer_expire',
  /** hold → completed when hold_end_date passes. */
  holdEnd: 'purchase_hold_end',
  /**
   * Withdraws a purchase offer the platform sent but the purchase never recorded: a dispatch call
   * that answered after its timeout, or an offer that arrived when the purchase had already failed
   * (timeout_error by the last attempt, gateway_too_slow by the watchdog). A purchase still pending
   * may yet adopt the offer (the next attempt gets it back: idempotent send), so the job waits then.
   */
  cancelOffer: 'purchase_cancel_offer',
} as const;

export const DISPATCH_MAX_ATTEMPTS = 5;

/** The backoff between the DISPATCH_MAX_ATTEMPTS attempts: at most e^1 + … + e^4 s ≈ 85 s. */
const DISPATCH_BACKOFF_MS = 90_000;

/**
 * When attempt `attempt` (1-based) failed at `now`, the next one is due between half and all of
 * e^attempt seconds later (jittered: platform/retry.ts, the deposits' rule too).
 */
export function dispatchRetryAt(attempt: number, now: Date, random: () => number = Math.random): Date {
  return new Date(now.getTime() + jittered(Math.exp(Math.min(attempt, 10)) * 1000, random));
}

/** The dispatcher: purchases per claim statement, attempts in flight per instance, its poll. */
export const DISPATCH_CLAIM_BATCH = 128;
export const DISPATCH_CONCURRENCY = 256;
export const DISPATCH_POLL_MS = 500;
/** How often the dispatcher looks for purchases pending past pendingLimitMs (the pending watchdog). */
export const DISPATCH_SWEEP_MS = 5_000;
/**
 * The offer-expiry sweep (timers.ts sweepExpiredOffers, run with the pending watchdog) takes up an
 * expired offer for at least this long: another instance's sweep leaves it, and one it could not
 * finish (the platform has not shown the offer withdrawn, or its call failed) is looked at again
 * after it. The longer an offer has been overdue, the longer the wait — half its time overdue, up
 * to EXPIRY_LOOK_AGAIN_MAX_MS — so an offer the platform keeps showing accepted, or a platform
 * that keeps failing, is asked about less and less often.
 */
export const EXPIRY_LOOK_AGAIN_MS = 60_000;
export const EXPIRY_LOOK_AGAIN_MAX_MS = 3_600_000;
/** How many expired offers the sweep takes up at once; their platform calls run together. */
export const EXPIRY_SWEEP_BATCH = 4;

/**
 * The platform call of one dispatch attempt is abandoned after the gateway's platform timeout
 * (DEPOSIT_TIMEOUT_MS, the same answer time the deposit flow grants the platform); the attempt
 * then counts as failed and is retried (sendPurchaseOffer is idempotent per purchase).
 */
export function dispatchCallTimeoutMs(config: Pick<Config, 'depositTimeoutMs'>): number {
  return config.depositTimeoutMs;
}

/** An attempt started less than this ago may still be sending: 2 × the call timeout + 30 s. */
export function dispatchInFlightMs(config: Pick<Config, 'depositTimeoutMs'>): number {
  return 2 * dispatchCallTimeoutMs(config) + 30_000;
}

/**
 * A purchase may stay pending this long after creation: every dispatch attempt with its call
 * timeout, the retry backoff between them, and a minute of margin (≈ 3.3 minutes by default).
 */
export function pendingLimitMs(config: Pick<Config, 'depositTimeoutMs'>): number {
  return DISPATCH_MAX_ATTEMPTS * dispatchCallTimeoutMs(config) + DISPATCH_BACKOFF_MS + 60_000;
}

export interface PurchaseJobPayload {
  purchase_id: number;
}

export interface PurchaseCancelOfferPayload extends PurchaseJobPayload {
  trade_offer_id: string;
}

declare global {
  namespace GraphileWorker {
    interface Tasks {
      purchase_offer_expire: PurchaseJobPayload;
      purchase_hold_end: PurchaseJobPayload;
      purchase_cancel_offer: PurchaseCancelOfferPayload;
    }
  }
}

/** Job keys (stored in graphile_worker.jobs: never change one for a running deployment). */
export const purchaseJobKey = {
  offerExpire: (id: number) => `${PURCHASE_TASKS.offerExpire}:${id}`,
  holdEnd: (id: number) => `${PURCHASE_TASKS.holdEnd}:${id}`,
  cancelOffer: (id: number, offerId: string) => `purchase:${id}:cancel_offer:${offerId}`,
};

/**
 * A statement that adds pending purchases carries this comment (purchase_create_batch, batched or
 * alone: create-repo.ts): its commit wakes the purchase dispatcher (dispatcher.ts), which
 * sends their offers and sweeps for purchases pending past pendingLimitMs — no job per purchase.
 */
export const PURCHASE_PENDING_WRITE = '/* purchases:pending */';

export function purchaseExpiryJob(purchaseId: number, runAt: Date): JobSpec {
  return { task: PURCHASE_TASKS.offerExpire, payload: { purchase_id: purchaseId }, opts: { runAt, jobKey: purchaseJobKey.offerExpire(purchaseId) } };
}

export function schedulePurchaseExpiry(db: Db | Trx, purchaseId: number, runAt: Date): Promise<void> {
  return addJobs(db, [purchaseExpiryJob(purchaseId, runAt)]);
}

export function purchaseHoldEndJob(purchaseId: number, runAt: Date): JobSpec {
  return { task: PURCHASE_TASKS.holdEnd, payload: { purchase_id: purchaseId }, opts: { runAt, jobKey: purchaseJobKey.holdEnd(purchaseId) } };
}

export function schedulePurchaseHoldEnd(db: Db | Trx, purchaseId: number, runAt: Date): Promise<void> {
  return addJobs(db, [purchaseHoldEndJob(purchaseId, runAt)]);
}

export function schedulePurchaseOfferCancel(db: Db | Trx, purchaseId: number, tradeOfferId: string, runAt?: Date): Promise<void> {
  return addJob(db, PURCHASE_TASKS.cancelOffer, { purchase_id: purchaseId, trade_offer_id: tradeOfferId }, { runAt, jobKey: purchaseJobKey.cancelOffer(purchaseId, tradeOfferId) });
}
