// SQL of the webhook feature: events (the outbox rows) and their attempts.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Trx } from '../ledger/ledger-repo.js';
import type { WebhookAttemptsTable, WebhookEventsTable, WebhookState } from './webhook-types.js';

export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

export function findEvent(db: Db | Trx, id: number): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The oldest still-pending event of the same record before `event` (it must be delivered first). */
export function earlierPending(db: Db | Trx, event: WebhookEventRow): Promise<WebhookEventRow | undefined> {
  return pendingNeighbour(db, event, 'before');
}

/** The next pending event of the same record after `event` (woken when `event` settles). */
export function laterPending(db: Db | Trx, event: WebhookEventRow): Promise<WebhookEventRow | undefined> {
  return pendingNeighbour(db, event, 'after');
}

function pendingNeighbour(db: Db | Trx, event: WebhookEventRow, side: 'before' | 'after') {
  return db
    .selectFrom('webhook_events')
    .selectAll()
    .where('kind', '=', event.kind)
    .where('record_id', '=', event.record_id)
    .where('state', '=', 'pending')
    .where('id', side === 'before' ? '<' : '>', event.id)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The database's "now" plus a delay: run_at and next_attempt_at are both on the database clock. */
export async function dbNowPlus(db: Db | Trx, ms: number): Promise<Date> {
  const r = await sql<{ at: Date }>`select now() + make_interval(secs => ${ms / 1000}::double precision) as at`.execute(db);
  return new Date(r.rows[0]!.at);
}

/** True when the event's next attempt is due (with a little slack for job-runner timing). */
export async function isDue(db: Db | Trx, id: number): Promise<boolean> {
  const r = await sql<{ due: boolean }>`
    select (next_attempt_at is null or next_attempt_at <= now() + interval '200 milliseconds') as due
      from webhook_events where id = ${id}`.execute(db);
  return r.rows[0]?.due ?? false;
}

/**
 * Claims attempt number `attempts + 1`: succeeds for one caller only (compare-and-set on the
 * counter), so two runners that both picked the event cannot both send the same attempt.
 */
export async function claimAttempt(db: Db | Trx, id: number, seenAttempts: number): Promise<WebhookEventRow | undefined> {
  return db
    .updateTable('webhook_events')
    .set({ attempts: sql`attempts + 1` as never, last_attempt_at: sql`now()` as never, next_attempt_at: null })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where('attempts', '=', seenAttempts)
    .returningAll()
    .executeTakeFirst();
}

export async function insertAttempt(
  trx: Trx,
  a: { event_id: number; attempt: number; target_url: string; status_code: number | null; latency_ms: number; error: string | null; response_excerpt: string | null },
): Promise<void> {
  await trx.insertInto('webhook_attempts').values(a).onConflict((oc) => oc.columns(['event_id', 'attempt']).doNothing()).execute();
}

export async function settleEvent(
  trx: Trx,
  id: number,
  fields: { state: WebhookState; next_attempt_at: Date | null; last_status_code: number | null; last_error: string | null },
): Promise<WebhookEventRow | undefined> {
  return trx
    .updateTable('webhook_events')
    .set({
      ...fields,
      delivered_at: fields.state === 'delivered' ? (sql`now()` as never) : undefined,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function reopenEvent(trx: Trx, id: number, maxAttempts: number): Promise<WebhookEventRow | undefined> {
  return trx
    .updateTable('webhook_events')
    .set({ state: 'pending', max_attempts: maxAttempts, next_attempt_at: null })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function listEvents(
  db: Db,
  merchantId: number,
  opts: { limit: number; offset: number; status?: WebhookState },
): Promise<WebhookEventRow[]> {
  let q = db.selectFrom('webhook_events').selectAll().where('merchant_id', '=', merchantId);
  if (opts.status) q = q.where('state', '=', opts.status);
  return q.orderBy('id', 'desc').limit(opts.limit).offset(opts.offset).execute();
}

export async function attemptsOf(db: Db, eventIds: number[]): Promise<WebhookAttemptRow[]> {
  if (eventIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('event_id', 'in', eventIds).orderBy('event_id').orderBy('attempt').execute();
}
