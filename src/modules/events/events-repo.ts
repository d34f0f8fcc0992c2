// SQL of the events API: a merchant's webhook events (the webhook feature's tables, read only).
import type { Db } from '../../db/database.js';
import type { WebhookEventRow } from '../../db/tables/webhooks.js';

export interface EventFilter {
  limit: number;
  /** Only events with a smaller id (the cursor: newest first). */
  beforeId?: number;
  kind?: WebhookEventRow['kind'];
  status?: string;
  recordId?: number;
  createdFrom?: Date;
  createdTo?: Date;
}

/**
 * A merchant's events, newest first. Served by webhook_events_merchant_idx (merchant_id, id desc)
 * from the cursor on, or with a record by webhook_events_record_idx (kind, record_id, id); the
 * other filters are checked on the rows the index gives (test/events/events-api.test.ts reads the plans).
 */
export function listMerchantEventsQuery(db: Db, merchantId: number, f: EventFilter) {
  let q = db.selectFrom('webhook_events').selectAll().where('merchant_id', '=', merchantId);
  if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
  if (f.kind !== undefined) q = q.where('kind', '=', f.kind);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.recordId !== undefined) q = q.where('record_id', '=', f.recordId);
  if (f.createdFrom !== undefined) q = q.where('created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) q = q.where('created_at', '<', f.createdTo);
  return q.orderBy('id', 'desc').limit(f.limit);
}

export function listMerchantEvents(db: Db, merchantId: number, f: EventFilter): Promise<WebhookEventRow[]> {
  return listMerchantEventsQuery(db, merchantId, f).execute();
}

/** The merchant's event by id; another merchant's is undefined. */
export function findMerchantEvent(db: Db, merchantId: number, id: number): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}
