// The deposits feature's jobs: task names, payload types, job keys and the schedule…() functions.
// Every job is added in the caller's transaction (or on the pool), keyed per deposit, so a
// re-schedule moves the one waiting job instead of adding another. Handlers: deposit-tasks.ts.
import type { Db, Trx } from '../../db/database.js';
import { addJob, addJobs, type JobSpec } from '../../jobs/enqueue.js';

export const DEPOSIT_TASKS = {
  /** active → canceled when trade_offer_expiry_at passes. */
  offerExpire: 'deposit_offer_expire',
  /** hold → completed when hold_end_date passes. */
  holdEnd: 'deposit_hold_end',
  /** Fails a deposit left pending by a crash between commit and perform. */
  pendingWatchdog: 'deposit_pending_watchdog',
  /**
   * Withdraws an offer the platform sent but the deposit never recorded (it answered after
   * DEPOSIT_TIMEOUT_MS, or after the watchdog had failed the deposit). A job, so a platform that
   * fails the cancel is asked again (graphile-worker's retries).
   */
  cancelOffer: 'deposit_cancel_offer',
} as const;

export interface DepositJobPayload {
  deposit_id: number;
}

export interface DepositCancelOfferPayload extends DepositJobPayload {
  trade_offer_id: string;
}

declare global {
  namespace GraphileWorker {
    interface Tasks {
      deposit_offer_expire: DepositJobPayload;
      deposit_hold_end: DepositJobPayload;
      deposit_pending_watchdog: DepositJobPayload;
      deposit_cancel_offer: DepositCancelOfferPayload;
    }
  }
}

/** Job keys (stored in graphile_worker.jobs: never change one for a running deployment). */
export const depositJobKey = {
  offerExpire: (id: number) => `deposit:${id}:expire`,
  holdEnd: (id: number) => `deposit:${id}:hold_end`,
  pendingWatchdog: (id: number) => `deposit:${id}:pending`,
  cancelOffer: (id: number, offerId: string) => `deposit:${id}:cancel_offer:${offerId}`,
};

/** The timed jobs a transition adds, as specs (added in the transition's effects statement). */
export const depositJob = {
  offerExpiry: (depositId: number, runAt: Date): JobSpec => ({ task: DEPOSIT_TASKS.offerExpire, payload: { deposit_id: depositId }, opts: { runAt, jobKey: depositJobKey.offerExpire(depositId) } }),
  holdEnd: (depositId: number, runAt: Date): JobSpec => ({ task: DEPOSIT_TASKS.holdEnd, payload: { deposit_id: depositId }, opts: { runAt, jobKey: depositJobKey.holdEnd(depositId) } }),
  pendingWatchdog: (depositId: number, runAt: Date): JobSpec => ({ task: DEPOSIT_TASKS.pendingWatchdog, payload: { deposit_id: depositId }, opts: { runAt, jobKey: depositJobKey.pendingWatchdog(depositId) } }),
};

export function schedulePendingWatchdog(trx: Trx, depositId: number, runAt: Date): Promise<void> {
  return addJobs(trx, [depositJob.pendingWatchdog(depositId, runAt)]);
}

/** The watchdog of a deposit whose ambiguous send is not resolved yet: it looks again at `runAt`. */
export function reschedulePendingWatchdog(db: Db, depositId: number, runAt: Date): Promise<void> {
  const spec = depositJob.pendingWatchdog(depositId, runAt);
  return addJob(db, spec.task, spec.payload as DepositJobPayload, spec.opts);
}

/** The hold end of a deposit the platform cannot clear yet (reversal window): looked at again at `runAt`. */
export function rescheduleHoldEnd(db: Db, depositId: number, runAt: Date): Promise<void> {
  const spec = depositJob.holdEnd(depositId, runAt);
  return addJob(db, spec.task, spec.payload as DepositJobPayload, spec.opts);
}

export function scheduleDepositOfferCancel(db: Db | Trx, depositId: number, tradeOfferId: string, runAt?: Date): Promise<void> {
  return addJob(db, DEPOSIT_TASKS.cancelOffer, { deposit_id: depositId, trade_offer_id: tradeOfferId }, { runAt, jobKey: depositJobKey.cancelOffer(depositId, tradeOfferId) });
}
