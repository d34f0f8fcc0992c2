// Job handler registration: `webhook_deliver` {event_id} → one delivery attempt (see webhook-service).
import type { TaskList } from 'graphile-worker';
import type { AppContext } from '../../context.js';
import { WEBHOOK_DELIVER_TASK } from './webhook-jobs.js';

export const webhookTasks = (ctx: AppContext): TaskList => ({
  [WEBHOOK_DELIVER_TASK]: async (payload) => {
    const eventId = Number((payload as { event_id?: unknown } | null)?.event_id);
    if (!Number.isSafeInteger(eventId) || eventId <= 0) return; // malformed job: nothing to deliver
    await ctx.webhooks.deliver(eventId);
  },
});
