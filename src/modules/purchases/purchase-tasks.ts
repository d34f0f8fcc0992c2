// Purchase jobs: dispatch (send the offer), offer expiry and hold end by time, and the pending
// watchdog (a purchase whose dispatch was lost ends failed gateway_too_slow, refunded), and the
// withdrawal of offers a purchase never recorded.
import type { TaskList } from 'graphile-worker';
import type { AppContext } from '../../context.js';
import { addJob } from '../../jobs/enqueue.js';
import { PURCHASE_CANCEL_OFFER_TASK, PURCHASE_DISPATCH_TASK, PURCHASE_EXPIRE_TASK, PURCHASE_HOLD_END_TASK, PURCHASE_PENDING_WATCHDOG_TASK } from './purchase-service.js';

function purchaseIdOf(payload: unknown): number | undefined {
  const id = Number((payload as { purchase_id?: unknown })?.purchase_id);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export function purchaseTasks(ctx: AppContext): TaskList {
  return {
    [PURCHASE_DISPATCH_TASK]: async (payload, helpers) => {
      const id = purchaseIdOf(payload);
      if (id === undefined) return;
      await ctx.purchases.dispatch(id, { attempts: helpers.job.attempts, maxAttempts: helpers.job.max_attempts });
    },
    [PURCHASE_EXPIRE_TASK]: async (payload) => {
      const id = purchaseIdOf(payload);
      if (id === undefined) return;
      const r = await ctx.purchases.expireIfDue(id);
      // The service clock can run ahead of or behind the database's: try again at the due time.
      if (r !== 'done') await addJob(ctx.db, PURCHASE_EXPIRE_TASK, { purchase_id: id }, { runAt: r.retryAt, jobKey: `${PURCHASE_EXPIRE_TASK}:${id}` });
    },
    [PURCHASE_PENDING_WATCHDOG_TASK]: async (payload) => {
      const id = purchaseIdOf(payload);
      if (id === undefined) return;
      const r = await ctx.purchases.failIfStuckPending(id);
      // A dispatch attempt may still be in flight (or the clocks differ): look again then.
      if (r !== 'done') await addJob(ctx.db, PURCHASE_PENDING_WATCHDOG_TASK, { purchase_id: id }, { runAt: r.retryAt, jobKey: `${PURCHASE_PENDING_WATCHDOG_TASK}:${id}` });
    },
    [PURCHASE_CANCEL_OFFER_TASK]: async (payload) => {
      const id = purchaseIdOf(payload);
      const offerId = (payload as { trade_offer_id?: unknown } | null)?.trade_offer_id;
      if (id === undefined || typeof offerId !== 'string' || offerId === '') return;
      const r = await ctx.purchases.cancelUnrecordedOffer(id, offerId);
      // Still pending: a later attempt may adopt the offer, or the purchase fails; look again then.
      if (r !== 'done') await addJob(ctx.db, PURCHASE_CANCEL_OFFER_TASK, { purchase_id: id, trade_offer_id: offerId }, { runAt: r.retryAt, jobKey: `purchase:${id}:cancel_offer:${offerId}` });
    },
    [PURCHASE_HOLD_END_TASK]: async (payload) => {
      const id = purchaseIdOf(payload);
      if (id === undefined) return;
      const r = await ctx.purchases.endHoldIfDue(id);
      if (r !== 'done') await addJob(ctx.db, PURCHASE_HOLD_END_TASK, { purchase_id: id }, { runAt: r.retryAt, jobKey: `${PURCHASE_HOLD_END_TASK}:${id}` });
    },
  };
}
