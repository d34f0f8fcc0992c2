// The transactional outbox: a status change calls enqueueWebhook inside its own transaction,
// so the event exists if and only if the change committed.
//
// No job and no NOTIFY here (a NOTIFY takes PostgreSQL's cluster-wide commit lock): the
// dispatcher of this instance is woken right after the transaction commits, by the commit tap on
// the statement's marker (src/db/commit-taps.ts, as the job relay is). Other instances find the
// event by their short poll.
import { sql, type RawBuilder } from 'kysely';
import type { Trx } from '../../db/database.js';

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

/** Names the event insert for the commit taps: its commit wakes the dispatcher. */
export const WEBHOOK_EVENTS_WRITE = '/* webhook_events:write */';

/**
 * The event insert: the target is result_url, else the merchant's webhook_url (none: no event),
 * and the event waits for the retry time of an earlier pending event of the record. Carries the
 * WEBHOOK_EVENTS_WRITE marker.
 */
function webhookInsert(event: WebhookEventInput): RawBuilder<unknown> {
  return sql`${sql.raw(WEBHOOK_EVENTS_WRITE)}
    insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, not_before)
    select m.id, ${event.kind}, ${event.recordId}, ${event.status}, ${JSON.stringify(event.payload)}::jsonb,
           coalesce(nullif(${event.resultUrl ?? null}::text, ''), nullif(m.webhook_url, '')),
           (select max(p.next_attempt_at) from webhook_events p
             where p.kind = ${event.kind} and p.record_id = ${event.recordId} and p.state = 'pending')
      from merchants m
     where m.id = ${event.merchantId} and coalesce(nullif(${event.resultUrl ?? null}::text, ''), nullif(m.webhook_url, '')) is not null`;
}

/** Returns the event id, or null when neither result_url nor a merchant webhook_url is set. */
export async function enqueueWebhook(trx: Trx, event: WebhookEventInput): Promise<number | null> {
  const r = await sql<{ id: number }>`${webhookInsert(event)} returning id`.execute(trx);
  const row = r.rows[0];
  if (!row) return null;
  return Number(row.id);
}

/**
 * Several events in one statement (a batch of transitions of different records, each record at
 * most once), each as webhookInsert would write it. Carries the WEBHOOK_EVENTS_WRITE marker.
 */
export async function enqueueWebhooks(trx: Trx, events: WebhookEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await webhooksInsertStatement(events).execute(trx);
}

/**
 * enqueueWebhooks's statement: one text whatever the number of events (they go as one JSON array), a
 * named prepared statement (db/prepared.ts). As a VALUES list it was a text per batch size, each
 * planned at every call (≈ 0.5 ms: bench/RESULTS.md); as jsonb_to_recordset the generic plan
 * is kept (db/prepared.ts).
 */
export function webhooksInsertStatement(events: readonly WebhookEventInput[]) {
  const rows = events.map((e, i) => ({
    ord: i, merchant_id: e.merchantId, kind: e.kind, record_id: e.recordId, status: e.status, payload: e.payload, result_url: e.resultUrl ?? null,
  }));
  return sql`/* prepared:webhook_events_insert */ ${sql.raw(WEBHOOK_EVENTS_WRITE)}
    insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, not_before)
    select m.id, v.kind, v.record_id, v.status, v.payload,
           coalesce(nullif(v.result_url, ''), nullif(m.webhook_url, '')),
           (select max(p.next_attempt_at) from webhook_events p
             where p.kind = v.kind and p.record_id = v.record_id and p.state = 'pending')
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
             as v (ord int, merchant_id bigint, kind text, record_id bigint, status text, payload jsonb, result_url text)
      join merchants m on m.id = v.merchant_id
     where coalesce(nullif(v.result_url, ''), nullif(m.webhook_url, '')) is not null
     order by v.ord`;
}
