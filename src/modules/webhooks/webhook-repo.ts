// SQL of the webhook feature: events (the outbox rows) and their attempts.
import pg from 'pg';
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { WebhookAttemptRow, WebhookEventRow, WebhookState } from '../../db/tables/webhooks.js';

export type { WebhookAttemptRow, WebhookEventRow };

export function findEvent(db: Db | Trx, id: number): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A claimed event: the row after the claim, with the merchant's current webhook secret (null: no merchant). */
export type ClaimedEvent = WebhookEventRow & { webhook_secret: string | null };

const dueAt = sql`greatest(coalesce(e.next_attempt_at, e.created_at), e.not_before)`;

/**
 * Claims up to `limit` due events in one statement and leases each for `leaseMs` (its attempt
 * counter moves by one: the attempt being made). Only the first pending event of each record is
 * eligible, and none with an attempt in flight, so the per-record order is decided here, in the
 * statement that takes the attempt. Rows another claim is locking are skipped (SKIP LOCKED): two
 * dispatchers never take the same attempt, and a row claimed meanwhile fails the re-check of
 * `lease_until is null` when its lock is granted.
 */
export async function claimDue(db: Db | Trx, opts: ClaimOptions): Promise<ClaimedEvent[]> {
  if (!opts.perMerchant) return (await claimDueStatement(opts).execute(db)).rows;
  const claim = async (trx: Trx) => {
    await fairShareClaimPlan.execute(trx);
    return (await claimDueStatement(opts).execute(trx)).rows;
  };
  return db.isTransaction ? claim(db as Trx) : db.transaction().execute(claim);
}

/**
 * The fair-share claim is planned without sorts where PostgreSQL has another way (SET LOCAL: its own
 * transaction only). Its reads are right only in webhook_events_claimable_idx's order: the
 * merchants by a loose scan, each one's due events up to its share. Statistics taken before a
 * backlog arrived say nothing is pending, and on them PostgreSQL may read the pending index whole and
 * sort it instead, for the loose scan and again for each merchant: 60–140 ms and 100 000 buffers per
 * claim, seen on the grown bench database after the accept runs (the drain fell to 660/s).
 */
const CLAIM_PLAN_SETTING = 'enable_sort = off';
export const fairShareClaimPlan = sql.raw(`set local ${CLAIM_PLAN_SETTING}`);

/**
 * The dispatcher's claims on a connection of their own, planned as fairShareClaimPlan plans them but
 * for the whole session (SET once per connection): each claim is ONE round trip with its own commit,
 * not four (BEGIN, SET LOCAL, the claim, COMMIT). On a busy 2-core machine a round trip that wakes
 * a PostgreSQL backend costs more CPU than the claim's own work (bench/RESULTS.md). Claims
 * of one dispatcher never overlap, so one connection is enough; a lost one is opened again.
 */
export function createClaimSession(poolOptions: pg.PoolConfig, db: Db) {
  // The SET runs before the connection serves its first claim; if it fails, so does that claim
  // (logged, retried at the next poll), on a connection opened again.
  const onConnect = async (client: pg.ClientBase) => {
    client.on('error', () => {});
    // The generic plan always (not only when its estimate wins, plan_cache_mode's auto): the plan
    // that runs is the one claim-plan.test.ts checks.
    await client.query(`set ${CLAIM_PLAN_SETTING}; set plan_cache_mode = force_generic_plan`);
  };
  const pool = new pg.Pool({ ...poolOptions, max: 1, idleTimeoutMillis: 0, onConnect: onConnect as (client: pg.ClientBase) => void });
  pool.on('error', () => {}); // an idle connection lost: the next claim opens another
  return {
    async claim(opts: ClaimOptions & { perMerchant: NonNullable<ClaimOptions['perMerchant']> }): Promise<ClaimedEvent[]> {
      // A named prepared statement (its text is the same for every claim): planned once on the
      // connection, not at every claim; its generic plan is checked in claim-plan.test.ts.
      const q = claimDueStatement(opts).compile(db);
      return (await pool.query<ClaimedEvent>({ name: 'webhook_claim_fair_share', text: q.sql, values: q.parameters as unknown[] })).rows;
    },
    /** What the session's claims are planned with (diagnostics, tests). */
    async planSetting(): Promise<string> {
      return (await pool.query<{ s: string }>(`select current_setting('enable_sort') as s`)).rows[0]!.s;
    },
    end: () => pool.end(),
  };
}
export type ClaimSession = ReturnType<typeof createClaimSession>;

export interface ClaimOptions {
  limit: number;
  leaseMs: number;
  eventId?: number;
  perMerchant?: { cap: number; busy: ReadonlyMap<number, number> };
}

/** The claim statement of claimDue (its plan is tested against stale statistics). */
export function claimDueStatement(opts: ClaimOptions) {
  const only = opts.eventId === undefined ? sql`` : sql`and e.id = ${opts.eventId}`;
  if (!opts.perMerchant) {
    return sql<ClaimedEvent>`
      with due as (
        select e.id from webhook_events e
         where e.state = 'pending' and e.lease_until is null and ${dueAt} <= now() ${only} and ${firstOfRecord}
         order by ${dueAt}
         limit ${opts.limit}
         for update of e skip locked)
      ${leaseAndReturn(opts.leaseMs)}`;
  }
  // Fair share (the dispatcher): a merchant gets at most `cap` attempts in flight on this instance,
  // counting the `busy` ones it has already, so one merchant's slow or dead endpoint cannot take
  // every slot. Read merchant by merchant (webhook_events_claimable_idx): the merchants with claimable
  // events by a loose scan (one probe each), then each one's oldest due events, at most its free
  // share (none for a merchant at its cap: its backlog is not read at all), the oldest of all first.
  const { cap, busy } = opts.perMerchant;
  const ids = [...busy.keys()];
  const counts = ids.map((id) => busy.get(id)!);
  return sql<ClaimedEvent>`
    with recursive claimable (merchant_id) as (
      (select e.merchant_id from webhook_events e where e.state = 'pending' and e.lease_until is null order by e.merchant_id limit 1)
      union all
      select (select e.merchant_id from webhook_events e
               where e.state = 'pending' and e.lease_until is null and e.merchant_id > c.merchant_id
               order by e.merchant_id limit 1)
        from claimable c where c.merchant_id is not null
    ),
    busy (merchant_id, n) as (select * from unnest(${ids}::bigint[], ${counts}::int[])),
    oldest as (
      select o.id from claimable c
        left join busy b on b.merchant_id = c.merchant_id
        cross join lateral (
          select e.id, ${dueAt} as due from webhook_events e
           where e.merchant_id = c.merchant_id and e.state = 'pending' and e.lease_until is null and ${dueAt} <= now() and ${firstOfRecordInScan}
           order by ${dueAt}, e.id
           limit greatest(${cap}::int - coalesce(b.n, 0), 0)) o
       where c.merchant_id is not null
       order by o.due, o.id
       limit ${opts.limit}),
    due as (
      select e.id from webhook_events e
       where e.id = any(array(select id from oldest))
         and e.state = 'pending' and e.lease_until is null and ${firstOfRecord}
       for update of e skip locked)
    ${leaseAndReturn(opts.leaseMs)}`;
}

/**
 * Only the first pending event of its record is due (the per-record order). Written as the record's
 * lowest pending id, a subquery with LIMIT that PostgreSQL runs as one probe of
 * webhook_events_pending_idx per candidate: as NOT EXISTS it may become an anti join, and on
 * statistics taken before a backlog arrived that join scanned the whole pending index for every
 * candidate (test/webhooks/claim-plan.test.ts).
 */
const lowestPendingOfRecord = sql`(select p.id from webhook_events p
                                    where p.kind = e.kind and p.record_id = e.record_id and p.state = 'pending'
                                    order by p.id limit 1)`;
const firstOfRecord = sql`e.id = ${lowestPendingOfRecord}`;
/**
 * The same test for a scan that stops at a share: for a pending event `<=` is `=` (no pending id of
 * its record is lower than the lowest), but an equality on id is estimated to keep one row in the
 * whole table, and on that estimate a merchant's backlog was read whole by a bitmap scan, every
 * event probed and sorted, instead of walked in due order up to the share (the claim-plan test's
 * fresh statistics); an inequality keeps a third.
 */
const firstOfRecordInScan = sql`e.id <= ${lowestPendingOfRecord}`;

/** The UPDATE that takes the attempts of the ids in CTE `due` (by primary key: rows it locked after re-checking them). */
const leaseAndReturn = (leaseMs: number) => sql`
    update webhook_events e
       set attempts = e.attempts + 1, last_attempt_at = now(), next_attempt_at = null, not_before = null,
           lease_until = now() + make_interval(secs => ${leaseMs / 1000}::double precision)
     where e.id = any(array(select id from due))
    returning e.*, (select m.webhook_secret from merchants m where m.id = e.merchant_id) as webhook_secret`;

/** What one attempt came to: acknowledged, failed and retryable (after delayMs), or failed for good. */
export interface AttemptOutcome {
  eventId: number;
  attempt: number;
  /** redeliver_generation when the attempt was claimed. */
  generation: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  excerpt: string | null;
  outcome: 'ack' | 'retry' | 'final';
  /** Before the next attempt, when 'retry' and attempts remain. */
  delayMs: number;
}

export interface SettledEvent {
  id: number;
  state: WebhookState;
  next_attempt_at: Date | null;
  merchant_id: number;
  attempts: number;
}

// PostgreSQL text cannot hold NUL: a receiver's answer must not make its settle fail.
const pgText = (s: string | null) => (s === null ? null : s.replace(/\u0000/g, ''));

/**
 * Settles a batch of attempts in one statement: records each attempt (the first record of an
 * attempt number wins: a result arriving after its attempt was given up as interrupted is not
 * applied), and for those still open (pending, this attempt, lease set) decides delivered, retry at
 * now + delay, or exhausted (the last attempt of `max_attempts`, else of the schedule of
 * `scheduleLength` entries). A redelivery during the attempt (generation moved) leaves the event
 * pending and due now. The later pending events of each settled record wait for its retry
 * (not_before) or, when it left pending, not at all. Returns the events settled; the others were
 * given up meanwhile.
 */
export async function settleAttempts(db: Db | Trx, batch: AttemptOutcome[], scheduleLength: number): Promise<SettledEvent[]> {
  if (batch.length === 0) return [];
  return (await settleStatement(batch, scheduleLength).execute(db)).rows;
}

/**
 * The statement of settleAttempts, for a non-empty batch (its plan is tested against stale
 * statistics, custom and generic). A named prepared statement (db/prepared.ts): its text is the same
 * for every batch (the batch is in arrays), and planning it was ≈ 0.55 ms a settle, as much as
 * executing a settle of four events. PostgreSQL keeps the generic plan after five runs when its
 * estimate is not much above the custom plans' (plan_cache_mode auto); in the bench the settle left
 * the planning list (BENCH_PG_BY=plan, bench/RESULTS.md).
 */
export function settleStatement(batch: AttemptOutcome[], scheduleLength: number) {
  const col = <K extends keyof AttemptOutcome>(k: K) => batch.map((b) => b[k]);
  return sql<SettledEvent>`/* prepared:webhook_settle */
    with r as (
      select * from unnest(${col('eventId')}::bigint[], ${col('attempt')}::int[], ${col('generation')}::int[],
                           ${col('statusCode')}::int[], ${col('latencyMs')}::int[], ${batch.map((b) => pgText(b.error))}::text[],
                           ${batch.map((b) => pgText(b.excerpt))}::text[], ${col('outcome')}::text[], ${col('delayMs')}::float8[])
        as r(id, attempt, gen, status_code, latency_ms, error, excerpt, outcome, delay_ms)),
    ins as (
      insert into webhook_attempts (event_id, attempt, target_url, status_code, latency_ms, error, response_excerpt)
      select r.id, r.attempt, e.target_url, r.status_code, r.latency_ms, r.error, r.excerpt
        from r join webhook_events e on e.id = r.id and e.id = any(${col('eventId')}::bigint[])
      on conflict (event_id, attempt) do nothing
      returning event_id),
    upd as (
      update webhook_events e set
        state = case when e.redeliver_generation <> r.gen then 'pending'
                     when r.outcome = 'ack' then 'delivered'
                     when r.outcome = 'final' or r.attempt >= coalesce(e.max_attempts, ${scheduleLength}) then 'exhausted'
                     else 'pending' end,
        next_attempt_at = case when e.redeliver_generation = r.gen and r.outcome = 'retry' and r.attempt < coalesce(e.max_attempts, ${scheduleLength})
                               then now() + make_interval(secs => r.delay_ms / 1000) end,
        lease_until = null,
        last_status_code = r.status_code,
        last_error = r.error,
        delivered_at = case when r.outcome = 'ack' then now() else e.delivered_at end
        from r
       -- Each settled event by its primary key from r: the state test is written so that no partial
       -- index (pending, lease) can serve it, and the ids are not repeated as an array. The generic
       -- plan a connection keeps otherwise read the whole array through the pending index once per
       -- event (45 218 buffers for 200 on stale statistics: claim-plan.test.ts).
       where e.id = r.id
         and e.state || '' = 'pending' and e.attempts = r.attempt and e.lease_until is not null
         and exists (select 1 from ins where ins.event_id = e.id)
      returning e.id, e.kind, e.record_id, e.state, e.next_attempt_at, e.merchant_id, e.attempts),
    -- Each settled record's later pending events, by one probe of webhook_events_pending_idx per
    -- record, then by primary key. OFFSET 0 keeps the lateral subquery a per-record probe: joined
    -- in, PostgreSQL walked the whole pending index for every settled record when its statistics
    -- predated a backlog (test/webhooks/claim-plan.test.ts).
    waiting as (
      select w.id, u.wait from (select upd.*, case when upd.state = 'pending' then upd.next_attempt_at end as wait from upd) u
        cross join lateral (
          select l.id from webhook_events l
           where l.kind = u.kind and l.record_id = u.record_id and l.state = 'pending' and l.id > u.id
             and l.not_before is distinct from u.wait
          offset 0) w
       where w.id not in (select id from r)),
    later as (
      update webhook_events l set not_before = w.wait
        from waiting w
       where l.id = w.id and l.id = any(array(select id from waiting))
      returning l.id)
    select id, state, next_attempt_at, merchant_id, attempts from upd`;
}

/** Pending events whose attempt lease ran out without a result (the instance died during it), oldest first. */
export async function expiredLeases(db: Db | Trx, limit: number): Promise<Pick<WebhookEventRow, 'id' | 'attempts' | 'redeliver_generation'>[]> {
  return db
    .selectFrom('webhook_events')
    .select(['id', 'attempts', 'redeliver_generation'])
    .where('state', '=', 'pending')
    .where('lease_until', 'is not', null)
    .where('lease_until', '<=', sql<Date>`now()`)
    .orderBy('lease_until')
    .limit(limit)
    .execute();
}

/** The event row, locked for the rest of the transaction (redeliver serialises on it). */
export function lockEvent(trx: Trx, id: number): Promise<WebhookEventRow | undefined> {
  return trx.selectFrom('webhook_events').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Pending again for `maxAttempts`, due now; the generation tells an attempt in flight that this
 * happened. Later pending events of the record stop waiting for this one's old retry time.
 */
export async function reopenEvent(trx: Trx, ev: WebhookEventRow, maxAttempts: number): Promise<void> {
  await trx
    .updateTable('webhook_events')
    .set({ state: 'pending', max_attempts: maxAttempts, next_attempt_at: null, not_before: null, redeliver_generation: sql`redeliver_generation + 1` as never })
    .where('id', '=', ev.id)
    .execute();
  await trx
    .updateTable('webhook_events')
    .set({ not_before: null })
    .where('kind', '=', ev.kind)
    .where('record_id', '=', ev.record_id)
    .where('state', '=', 'pending')
    .where('id', '>', ev.id)
    .where('not_before', 'is not', null)
    .execute();
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

export async function attemptsOf(db: Db | Trx, eventIds: number[]): Promise<WebhookAttemptRow[]> {
  if (eventIds.length === 0) return [];
  return db.selectFrom('webhook_attempts').selectAll().where('event_id', 'in', eventIds).orderBy('event_id').orderBy('attempt').execute();
}

/** A dashboard test event as sent (one attempt, already settled): the events API lists it. */
export interface SentTestEvent {
  merchantId: number;
  webhookId: string;
  url: string;
  /** The body sent (its `sign` is not stored). */
  body: string;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  excerpt: string | null;
}

export async function recordTestEvent(db: Db, t: SentTestEvent): Promise<void> {
  const { sign: _sign, ...payload } = JSON.parse(t.body) as Record<string, unknown>;
  void _sign;
  const delivered = t.statusCode !== null && t.statusCode >= 200 && t.statusCode < 300;
  await sql`
    with ev as (
      insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state, attempts, max_attempts,
                                  last_attempt_at, last_status_code, last_error, delivered_at, webhook_id)
      values (${t.merchantId}, 'test', 0, 'test', ${JSON.stringify(payload)}::jsonb, ${t.url}, ${delivered ? 'delivered' : 'exhausted'}, 1, 1,
              now(), ${t.statusCode}, ${pgText(t.error)}, ${delivered ? sql`now()` : null}, ${t.webhookId})
      returning id)
    insert into webhook_attempts (event_id, attempt, target_url, status_code, latency_ms, error, response_excerpt)
    select ev.id, 1, ${t.url}, ${t.statusCode}, ${Math.round(t.latencyMs)}, ${pgText(t.error)}, ${pgText(t.excerpt)} from ev`.execute(db);
}
