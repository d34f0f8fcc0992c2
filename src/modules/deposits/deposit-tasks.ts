// Time-driven deposit transitions (DESIGN 6): offer expiry and hold end, scheduled with run_at
// when the deposit enters active / hold; and the withdrawal of offers a deposit never recorded.
// Idempotent: a deposit that moved on is left alone.
import type { TaskList } from 'graphile-worker';
import type { AppContext } from '../../context.js';
import { addJob } from '../../jobs/enqueue.js';
import { DEPOSIT_CANCEL_OFFER_TASK, DEPOSIT_HOLD_END_TASK, DEPOSIT_OFFER_EXPIRE_TASK, DEPOSIT_PENDING_WATCHDOG_TASK } from './deposit-service.js';

function depositIdOf(payload: unknown): number | undefined {
  const id = (payload as { deposit_id?: unknown } | null)?.deposit_id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export function depositTasks(ctx: AppContext): TaskList {
  return {
    [DEPOSIT_OFFER_EXPIRE_TASK]: async (payload) => {
      const id = depositIdOf(payload);
      if (id !== undefined) await ctx.deposits.tryTransition(id, 'expire');
    },
    [DEPOSIT_PENDING_WATCHDOG_TASK]: async (payload) => {
      const id = depositIdOf(payload);
      if (id === undefined) return;
      // Only a deposit still pending (never new: an untouched draft or intent is not ours to fail).
      const d = await ctx.db.selectFrom('deposits').select('status').where('id', '=', id).executeTakeFirst();
      if (d?.status === 'pending') await ctx.deposits.tryTransition(id, 'fail', { failReason: 'service_unavailable' });
    },
    [DEPOSIT_CANCEL_OFFER_TASK]: async (payload) => {
      const id = depositIdOf(payload);
      const offerId = (payload as { trade_offer_id?: unknown } | null)?.trade_offer_id;
      if (id === undefined || typeof offerId !== 'string' || offerId === '') return;
      const r = await ctx.deposits.cancelUnrecordedOffer(id, offerId);
      // The deposit is still pending (it may yet record or fail): look again then.
      if (r !== 'done') await addJob(ctx.db, DEPOSIT_CANCEL_OFFER_TASK, { deposit_id: id, trade_offer_id: offerId }, { runAt: r.retryAt, jobKey: `deposit:${id}:cancel_offer:${offerId}` });
    },
    [DEPOSIT_HOLD_END_TASK]: async (payload) => {
      const id = depositIdOf(payload);
      if (id !== undefined) await ctx.deposits.tryTransition(id, 'release');
    },
  };
}
