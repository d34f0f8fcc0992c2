// The delivery job: one keyed job per event (`webhook_event:<id>`), so whoever (re)schedules an
// event moves its single waiting job instead of adding another. No named queue: graphile-worker
// never deletes queue rows, and a queue per record made every job fetch scan all of them. The
// order of one record's events is kept by the delivery itself (claimAttempt refuses an event while
// an earlier one of its record is pending).
//
// Two maintenance jobs, each one keyed job for all instances that reschedules itself:
// `webhook_sweep` (lost attempts, events without a job) and `webhook_prune` (retention).
import type { Db, Trx } from '../../db/database.js';
import { addJob } from '../../jobs/enqueue.js';

export const WEBHOOK_DELIVER_TASK = 'webhook_deliver';
export const WEBHOOK_SWEEP_TASK = 'webhook_sweep';
export const WEBHOOK_PRUNE_TASK = 'webhook_prune';
export const WEBHOOK_PRUNE_EVERY_MS = 3_600_000;

declare global {
  namespace GraphileWorker {
    interface Tasks {
      webhook_deliver: { event_id: number };
      webhook_sweep: Record<string, never>;
      webhook_prune: Record<string, never>;
    }
  }
}

export const jobKeyOf = (eventId: number) => `webhook_event:${eventId}`;

/**
 * Queue (or move) the event's job to `runAt` (now when omitted). 'replace' moves a waiting job (a
 * wake-up, a redelivery); 'preserve_run_at' keeps a waiting job's time (a handler putting itself
 * back must not undo a wake-up that arrived meanwhile). A running (locked) job is never moved:
 * graphile-worker adds a new one next to it.
 */
export async function scheduleDelivery(
  db: Db | Trx,
  ev: { id: number },
  runAt?: Date,
  mode: 'replace' | 'preserve_run_at' = 'replace',
): Promise<void> {
  await addJob(db, WEBHOOK_DELIVER_TASK, { event_id: ev.id }, { jobKey: jobKeyOf(ev.id), jobKeyMode: mode, runAt });
}

/** Keeps one maintenance job of `task` waiting at `runAt` (an earlier waiting one is kept). */
export async function scheduleMaintenance(db: Db | Trx, task: typeof WEBHOOK_SWEEP_TASK | typeof WEBHOOK_PRUNE_TASK, runAt: Date): Promise<void> {
  await addJob(db, task, {}, { jobKey: task, jobKeyMode: 'preserve_run_at', runAt });
}
