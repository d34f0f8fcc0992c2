// The transactional outbox: a status change calls enqueueWebhook inside its own transaction,
// so the event exists if and only if the change committed.
//
// No job and no NOTIFY here (a NOTIFY takes PostgreSQL's cluster-wide commit lock): the
// dispatcher of this instance is woken right after the transaction commits. The insert returns
// the backend pid of its connection; when the pool gets that connection back (Kysely releases it
// after COMMIT or ROLLBACK), the dispatcher claims (see dispatcher.ts `watchCommits`). Other
// instances find the event by their short poll.
import { sql } from 'kysely';
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

/** Backend pids of connections that wrote an event not yet handed back to their pool. */
export const connectionsWithEvents = new Set<number>();
/** A process whose pools never get a dispatcher (CLI, worker-less tests) must not grow the set forever. */
const MAX_TRACKED = 10_000;

/** Returns the event id, or null when neither result_url nor a merchant webhook_url is set. */
export async function enqueueWebhook(trx: Trx, event: WebhookEventInput): Promise<number | null> {
  // One statement: the target (result_url, else the merchant's webhook_url; none: no event), and
  // the time an earlier event of the record waits for its retry, which this one waits for too.
  const r = await sql<{ id: number; pid: number }>`
    insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, not_before)
    select m.id, ${event.kind}, ${event.recordId}, ${event.status}, ${JSON.stringify(event.payload)}::jsonb,
           coalesce(nullif(${event.resultUrl ?? null}::text, ''), nullif(m.webhook_url, '')),
           (select max(p.next_attempt_at) from webhook_events p
             where p.kind = ${event.kind} and p.record_id = ${event.recordId} and p.state = 'pending')
      from merchants m
     where m.id = ${event.merchantId} and coalesce(nullif(${event.resultUrl ?? null}::text, ''), nullif(m.webhook_url, '')) is not null
    returning id, pg_backend_pid() as pid`.execute(trx);
  const row = r.rows[0];
  if (!row) return null;
  if (connectionsWithEvents.size >= MAX_TRACKED) connectionsWithEvents.clear();
  connectionsWithEvents.add(row.pid);
  return Number(row.id);
}
