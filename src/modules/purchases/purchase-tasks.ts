// Purchase job handlers (names, payloads and keys: purchase-jobs.ts): offer expiry and hold end by
// time, and the withdrawal of offers a purchase never recorded. Offers are sent, and purchases
// pending too long failed, by the dispatcher (dispatcher.ts), not by a job.
// A handler whose purchase is not due yet (the service clock can run ahead of or behind the
// database's, or a dispatch attempt is still in flight) puts itself back at the due time.
import type { TaskList } from 'graphile-worker';
import type { Db } from '../../db/database.js';
import type { PurchaseService } from './purchase-service.js';
import { idField, stringField } from '../../jobs/enqueue.js';
import { PURCHASE_TASKS, schedulePurchaseExpiry, schedulePurchaseHoldEnd, schedulePurchaseOfferCancel } from './purchase-jobs.js';

export function purchaseTasks(ctx: { db: Db; purchases: PurchaseService }): TaskList {
  return {
    [PURCHASE_TASKS.offerExpire]: async (payload) => {
      const id = idField(payload, 'purchase_id');
      if (id === undefined) return;
      const r = await ctx.purchases.expireIfDue(id);
      if (r !== 'done') await schedulePurchaseExpiry(ctx.db, id, r.retryAt);
    },
    [PURCHASE_TASKS.cancelOffer]: async (payload) => {
      const id = idField(payload, 'purchase_id');
      const offerId = stringField(payload, 'trade_offer_id');
      if (id === undefined || offerId === undefined) return;
      const r = await ctx.purchases.cancelUnrecordedOffer(id, offerId);
      // Still pending: a later attempt may adopt the offer, or the purchase fails; look again then.
      if (r !== 'done') await schedulePurchaseOfferCancel(ctx.db, id, offerId, r.retryAt);
    },
    [PURCHASE_TASKS.holdEnd]: async (payload) => {
      const id = idField(payload, 'purchase_id');
      if (id === undefined) return;
      const r = await ctx.purchases.endHoldIfDue(id);
      if (r !== 'done') await schedulePurchaseHoldEnd(ctx.db, id, r.retryAt);
    },
  };
}
