// A purchase's time-driven transitions (spec 3.2): an offer the user did not accept in time is
// canceled buyer_too_slow, a hold that ran out completes. The offer expiry is a sweep the
// dispatcher runs (dispatcher.ts), over purchases_offer_expiry_idx, not a job per
// purchase; the hold end is job purchase_hold_end (purchase-tasks.ts), which also runs
// expireIfDue for purchase_offer_expire jobs an older version queued.
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { EXPIRY_LOOK_AGAIN_MAX_MS, EXPIRY_LOOK_AGAIN_MS, EXPIRY_SWEEP_BATCH } from './purchase-jobs.js';
import { getPurchase, lookAtExpiryAgain, takeUpExpiredOffers } from './purchase-repo.js';
import type { PurchaseTransitions } from './purchase-transitions.js';

export interface PurchaseTimerDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  transitions: PurchaseTransitions;
  /** The offer layer's (platform/offers.ts): whether an expired offer may close now. */
  offerGone(purchaseId: number, tradeOfferId: string): Promise<boolean>;
}

export function purchaseTimers(deps: PurchaseTimerDeps) {
  const { db, clock, log, transitions } = deps;

  /** A purchase still not due: its due time; else the caller applies its event (a refusal means someone moved first). */
  const due = (at: Date | string | null) => (at && new Date(at).getTime() > clock.now().getTime() ? { retryAt: new Date(at) } : undefined);

  /** The user did not accept in time → canceled buyer_too_slow. */
  async function expireIfDue(purchaseId: number): Promise<'done' | { retryAt: Date }> {
    const p = await getPurchase(db, purchaseId);
    if (!p || p.status !== 'active' || !p.offer_expires_at) return 'done';
    const later = due(p.offer_expires_at);
    if (later) return later;
    // On a real platform only once it shows the offer withdrawn (a failing cancel throws: retried).
    if (p.trade_offer_id && !(await deps.offerGone(p.id, p.trade_offer_id))) return 'done';
    await transitions.apply(p.id, 'expire');
    return 'done';
  }

  return {
    expireIfDue,

    /**
     * Offer expiry as a sweep (the dispatcher runs it beside the pending watchdog), not a job per
     * purchase: up to `limit` active purchases whose offer expired are taken up for
     * EXPIRY_LOOK_AGAIN_MS or longer, the longer they are overdue (so another instance's sweep
     * leaves them) and go through expireIfDue together. One it does not finish —
     * the platform has not shown the offer withdrawn yet (its own offer change will say), or the
     * call failed — is looked at again after that, not at every pass. Answers how many it took up.
     */
    async sweepExpiredOffers(limit = EXPIRY_SWEEP_BATCH): Promise<number> {
      const now = clock.now();
      const ids = await takeUpExpiredOffers(db, { now, minMs: EXPIRY_LOOK_AGAIN_MS, maxMs: EXPIRY_LOOK_AGAIN_MAX_MS, limit });
      await Promise.all(
        ids.map(async (id) => {
          try {
            const r = await expireIfDue(id);
            if (r !== 'done') await lookAtExpiryAgain(db, id, r.retryAt);
          } catch (err) {
            log.warn({ err, purchaseId: id }, 'purchase offer expiry not settled: looked at again later');
          }
        }),
      );
      return ids.length;
    },

    /** Job purchase_hold_end: hold_end_date reached → completed. */
    async endHoldIfDue(purchaseId: number): Promise<'done' | { retryAt: Date }> {
      const p = await getPurchase(db, purchaseId);
      if (!p || p.status !== 'hold' || !p.hold_end_date) return 'done';
      const later = due(p.hold_end_date);
      if (later) return later;
      await transitions.apply(p.id, 'release');
      return 'done';
    },
  };
}
