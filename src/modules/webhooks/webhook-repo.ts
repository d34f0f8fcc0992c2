// SQL of the webhook feature: events (the outbox rows) and their attempts.
import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { WebhookAttemptsTable, WebhookEventsTable, WebhookState } from '../../db/tables/webhooks.js';

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

/** Whether an attempt of the event is in flight: none, still within its lease, or lease run out (lost). */
export async function leaseState(db: Db | Trx, id: number): Promise<{ state: 'none' | 'active' | 'expired'; until: Date | null }> {
  const r = await sql<{ until: Date | null; expired: boolean | null }>`
    select lease_until as until, lease_until <= now() as expired from webhook_events where id = ${id}`.execute(db);
  const row = r.rows[0];
  if (!row || row.until === null) return { state: 'none', until: null };
  return { state: row.expired ? 'expired' : 'active', until: new Date(row.until) };
}

/**
 * Claims attempt number `attempts + 1` and leases the event for `leaseMs`. Succeeds for one caller
 * only (compare-and-set on the counter), so two runners that both picked the event cannot both
 * send the same attempt; refused while another attempt is in flight (lease set) and while an
 * earlier event of the same record is pending: the per-record order is decided here, in the same
 * statement that takes the attempt, not by the job queue.
 */
export async function claimAttempt(db: Db | Trx, id: number, seenAttempts: number, leaseMs: number): Promise<WebhookEventRow | undefined> {
  return db
    .updateTable('webhook_events as e')
    .set({
      attempts: sql`e.attempts + 1` as never,
      last_attempt_at: sql`now()` as never,
      next_attempt_at: null,
      lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000}::double precision)` as never,
    })
    .where('e.id', '=', id)
    .where('e.state', '=', 'pending')
    .where('e.attempts', '=', seenAttempts)
    .where('e.lease_until', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_events as p')
            .select('p.id')
            .whereRef('p.kind', '=', 'e.kind')
            .whereRef('p.record_id', '=', 'e.record_id')
            .where('p.state', '=', 'pending')
            .whereRef('p.id', '<', 'e.id'),
        ),
      ),
    )
    .returningAll()
    .executeTakeFirst();
}

/** The event row, locked for the rest of the transaction (settle and redeliver serialise on it). */
export function lockEvent(trx: Trx, id: number): Promise<WebhookEventRow | undefined> {
  return trx.selectFrom('webhook_events').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function insertAttempt(
  trx: Trx,
  a: { event_id: number; attempt: number; target_url: string; status_code: number | null; latency_ms: number; error: string | null; response_excerpt: string | null },
): Promise<boolean> {
  const r = await trx
    .insertInto('webhook_attempts')
    .values(a)
    .onConflict((oc) => oc.columns(['event_id', 'attempt']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** Closes the attempt in flight (lease cleared) and sets the outcome; delivered_at is set on a 2xx. */
export async function settleEvent(
  trx: Trx,
  id: number,
  fields: { state: WebhookState; next_attempt_at: Date | null; last_status_code: number | null; last_error: string | null; acknowledged: boolean },
): Promise<WebhookEventRow | undefined> {
  const { acknowledged, ...rest } = fields;
  return trx
    .updateTable('webhook_events')
    .set({
      ...rest,
      lease_until: null,
      delivered_at: acknowledged ? (sql`now()` as never) : undefined,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Pending again for `maxAttempts`, due now; the generation tells an attempt in flight that this happened. */
export async function reopenEvent(trx: Trx, id: number, maxAttempts: number): Promise<WebhookEventRow | undefined> {
  return trx
    .updateTable('webhook_events')
    .set({
      state: 'pending',
      max_attempts: maxAttempts,
      next_attempt_at: null,
      redeliver_generation: sql`redeliver_generation + 1` as never,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Pending events that nothing will move: an attempt whose lease ran out (the worker died during
 * it), or no attempt in flight and overdue by more than a lease, and in both cases no live delivery
 * job (a waiting runnable one, or one locked less than a lease ago).
 */
export async function stalledEvents(db: Db | Trx, leaseMs: number, limit: number): Promise<number[]> {
  const lease = sql`make_interval(secs => ${leaseMs / 1000}::double precision)`;
  // Two index range scans (webhook_events_lease_idx, webhook_events_overdue_idx), oldest first; the
  // job check is applied before the limit, so events that do have a job never hide those that do not.
  const noLiveJob = sql`not exists (
         select 1 from graphile_worker.jobs j
          where j.key = 'webhook_event:' || e.id
            and ((j.locked_at is null and j.attempts < j.max_attempts) or j.locked_at > now() - ${lease}))`;
  const r = await sql<{ id: number }>`
    select id from (
        (select e.id from webhook_events e
          where e.state = 'pending' and e.lease_until is not null and e.lease_until <= now() and ${noLiveJob}
          order by e.lease_until limit ${limit})
        union all
        (select e.id from webhook_events e
          where e.state = 'pending' and e.lease_until is null
            and coalesce(e.next_attempt_at, e.created_at) < now() - ${lease} and ${noLiveJob}
          order by coalesce(e.next_attempt_at, e.created_at) limit ${limit})
      ) stalled
     order by id
     limit ${limit}`.execute(db);
  return r.rows.map((x) => Number(x.id));
}

/** Deletes up to `limit` delivered events (attempts cascade) delivered more than `days` ago; returns how many. */
export async function pruneDelivered(db: Db | Trx, days: number, limit: number): Promise<number> {
  const r = await sql`
    delete from webhook_events where id in (
      select id from webhook_events
       where state = 'delivered' and delivered_at < now() - make_interval(days => ${days}::int)
       order by delivered_at limit ${limit})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
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
