// The delivery job: one keyed job per event (`webhook_event:<id>`), so whoever (re)schedules an
// event moves its single waiting job instead of adding another; queued on the record's named
// queue (`webhook:<kind>:<record_id>`) so one record's events run one at a time.
import type { Db } from '../../db/database.js';
import { addJob } from '../../jobs/enqueue.js';
import type { Trx } from '../ledger/ledger-repo.js';

export const WEBHOOK_DELIVER_TASK = 'webhook_deliver';

export const queueNameOf = (ev: { kind: string; record_id: number }) => `webhook:${ev.kind}:${ev.record_id}`;
export const jobKeyOf = (eventId: number) => `webhook_event:${eventId}`;

/** Queue (or move) the event's job to `runAt` (now when omitted). */
export async function scheduleDelivery(db: Db | Trx, ev: { id: number; kind: string; record_id: number }, runAt?: Date): Promise<void> {
  await addJob(db, WEBHOOK_DELIVER_TASK, { event_id: ev.id }, { queueName: queueNameOf(ev), jobKey: jobKeyOf(ev.id), jobKeyMode: 'replace', runAt });
}
