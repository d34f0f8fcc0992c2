// Deposit job handlers (names, payloads and keys: deposit-jobs.ts): offer expiry and hold end by
// time, the pending watchdog, and the withdrawal of offers a deposit never recorded.
// Idempotent: a deposit that moved on is left alone.
import type { TaskList } from 'graphile-worker';
import type { Db } from '../../db/database.js';
import type { DepositService } from './deposit-service.js';
import { idField, stringField } from '../../jobs/enqueue.js';
import { DEPOSIT_TASKS, rescheduleHoldEnd, reschedulePendingWatchdog, scheduleDepositOfferCancel } from './deposit-jobs.js';

export function depositTasks(ctx: { db: Db; deposits: DepositService }): TaskList {
  return {
    [DEPOSIT_TASKS.offerExpire]: async (payload) => {
      const id = idField(payload, 'deposit_id');
      // On a real platform only once it shows the offer withdrawn (a failing cancel throws: retried).
      if (id !== undefined) await ctx.deposits.expireIfGone(id);
    },
    [DEPOSIT_TASKS.pendingWatchdog]: async (payload) => {
      const id = idField(payload, 'deposit_id');
      if (id === undefined) return;
      // Only a deposit still pending (never new: an untouched draft or intent is not ours to fail);
      // after an ambiguous send it follows what the platform shows, looking again while unknown.
      const r = await ctx.deposits.resolvePending(id);
      if (r !== 'done') await reschedulePendingWatchdog(ctx.db, id, r.retryAt);
    },
    [DEPOSIT_TASKS.cancelOffer]: async (payload) => {
      const id = idField(payload, 'deposit_id');
      const offerId = stringField(payload, 'trade_offer_id');
      if (id === undefined || offerId === undefined) return;
      const r = await ctx.deposits.cancelUnrecordedOffer(id, offerId);
      // The deposit is still pending (it may yet record or fail): look again then.
      if (r !== 'done') await scheduleDepositOfferCancel(ctx.db, id, offerId, r.retryAt);
    },
    [DEPOSIT_TASKS.holdEnd]: async (payload) => {
      const id = idField(payload, 'deposit_id');
      if (id === undefined) return;
      // On a real platform only once the trade is past its reversal window, read in the trade history.
      const r = await ctx.deposits.endHoldIfClear(id);
      if (r !== 'done') await rescheduleHoldEnd(ctx.db, id, r.retryAt);
    },
  };
}
