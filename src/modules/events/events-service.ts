// The events API: every webhook event of the merchant (deposit and purchase status changes, test
// events), whatever became of its delivery, newest first with an id cursor, and one by id with its
// attempts. The events are the webhook outbox's rows: kept until WEBHOOK_RETENTION_DAYS after their
// delivery (undelivered ones are kept).
import type { Db } from '../../db/database.js';
import { isoUtc } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { webhookId } from '../webhooks/signing.js';
import type { WebhookAttemptRow, WebhookEventRow } from '../../db/tables/webhooks.js';
import * as repo from './events-repo.js';

export interface ListEventsInput {
  limit?: number;
  cursor?: string;
  type?: string;
  deposit_id?: number;
  purchase_id?: number;
  created_from?: string;
  created_to?: string;
}

const ts = (d: Date | string | null) => (d === null ? null : isoUtc(d));

/** `evt_123` or `123` → 123; anything else (or beyond 2^53) → undefined. */
export function parseEventId(s: string): number | undefined {
  const n = Number(s.startsWith('evt_') ? s.slice(4) : s);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function present(ev: WebhookEventRow) {
  const data = (ev.payload ?? {}) as Record<string, unknown>;
  return {
    id: webhookId(ev.id),
    type: ev.kind === 'test' ? 'test' : `${ev.kind}.${ev.status}`,
    record_kind: ev.kind,
    record_id: ev.record_id,
    merchant_tx_id: typeof data.merchant_tx_id === 'string' ? data.merchant_tx_id : null,
    created_at: isoUtc(ev.created_at),
    data,
    delivery: {
      state: ev.state,
      target_url: ev.target_url,
      attempt_count: ev.attempts,
      next_attempt_at: ev.state === 'pending' ? ts(ev.next_attempt_at ?? ev.created_at) : null,
      last_attempt_at: ts(ev.last_attempt_at),
      last_status_code: ev.last_status_code,
      last_error: ev.last_error,
      delivered_at: ts(ev.delivered_at),
    },
  };
}

const presentAttempt = (a: WebhookAttemptRow) => ({
  attempt: a.attempt,
  attempted_at: isoUtc(a.attempted_at),
  target_url: a.target_url,
  status_code: a.status_code,
  latency_ms: a.latency_ms,
  error: a.error,
  response_excerpt: a.response_excerpt,
});

/** The kind and status a `type` filter names (`deposit`, `deposit.completed`, `test`). */
function typeFilter(type: string | undefined): Pick<repo.EventFilter, 'kind' | 'status'> {
  if (type === undefined) return {};
  const [kind, status] = type.split('.') as [WebhookEventRow['kind'], string | undefined];
  return status === undefined ? { kind } : { kind, status };
}

/** What the events API needs of webhooks: an event's attempts (the assembly passes the webhook service). */
export interface EventAttempts {
  attemptsOf(eventIds: number[]): Promise<WebhookAttemptRow[]>;
}

export function createEventsService(deps: { db: Db; webhooks: EventAttempts }) {
  const { db } = deps;

  async function list(merchantId: number, q: ListEventsInput) {
    const limit = q.limit ?? 50;
    const beforeId = q.cursor === undefined ? undefined : parseEventId(q.cursor);
    const f: repo.EventFilter = { limit: limit + 1, beforeId, ...typeFilter(q.type) };
    if (q.created_from !== undefined) f.createdFrom = new Date(q.created_from);
    if (q.created_to !== undefined) f.createdTo = new Date(q.created_to);
    // A record filter names its kind: a deposit and a purchase at once, or a record of another kind
    // than `type`, match nothing.
    for (const [kind, recordId] of [['deposit', q.deposit_id], ['purchase', q.purchase_id]] as const) {
      if (recordId === undefined) continue;
      if ((f.kind !== undefined && f.kind !== kind) || f.recordId !== undefined) return { events: [], next_cursor: null };
      f.kind = kind;
      f.recordId = recordId;
    }
    const rows = await repo.listMerchantEvents(db, merchantId, f);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { events: page.map(present), next_cursor: rows.length > limit && last ? webhookId(last.id) : null };
  }

  async function get(merchantId: number, id: string) {
    const n = parseEventId(id);
    const ev = n === undefined ? undefined : await repo.findMerchantEvent(db, merchantId, n);
    if (!ev) throw notFound();
    return { ...present(ev), attempts: (await deps.webhooks.attemptsOf([ev.id])).map(presentAttempt) };
  }

  return { list, get };
}

export type EventsService = ReturnType<typeof createEventsService>;
