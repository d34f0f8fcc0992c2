// The transactional outbox: a status change calls enqueueWebhook inside its own transaction,
// so the event exists if and only if the change committed.
import type { Trx } from '../../db/database.js';
import { scheduleDelivery } from './webhook-jobs.js';

export interface WebhookEventInput {
  merchantId: number;
  kind: 'deposit' | 'purchase';
  recordId: number;
  status: string;
  /** Per-record override (deposit result_url); else the merchant's webhook_url. */
  resultUrl?: string | null;
  /** The spec body (6.1 / 6.2) without `sign`. */
  payload: Record<string, unknown>;
}


/** Returns the event id, or null when neither result_url nor a merchant webhook_url is set. */
export async function enqueueWebhook(trx: Trx, event: WebhookEventInput): Promise<number | null> {
  let target = event.resultUrl ?? null;
  if (!target) {
    const m = await trx.selectFrom('merchants').select('webhook_url').where('id', '=', event.merchantId).executeTakeFirst();
    target = m?.webhook_url ?? null;
  }
  if (!target) return null;
  const row = await trx
    .insertInto('webhook_events')
    .values({
      merchant_id: event.merchantId,
      kind: event.kind,
      record_id: event.recordId,
      status: event.status,
      payload: JSON.stringify(event.payload) as never,
      target_url: target,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // One keyed job per event. The order of a record's events (a completed never overtakes its hold)
  // is kept by the delivery: an event is not claimed while an earlier one of its record is pending.
  await scheduleDelivery(trx, { id: row.id });
  return row.id;
}
