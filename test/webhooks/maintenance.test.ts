// Webhook machinery driven by hand (no job worker, no dispatcher running): the ordering claim, the
// sweeper's choice of events, the per-attempt deadline covering the name lookup, retention pruning.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { enqueueWebhook } from '../../src/modules/webhooks/outbox.js';
import * as repo from '../../src/modules/webhooks/webhook-repo.js';
import { createWebhookService } from '../../src/modules/webhooks/webhook-service.js';
import { webhookTasks } from '../../src/modules/webhooks/webhook-tasks.js';
import { WEBHOOK_PRUNE_TASK, WEBHOOK_SWEEP_TASK } from '../../src/modules/webhooks/webhook-jobs.js';

const ENV = { WEBHOOK_RETRY_SCHEDULE: '0,1,1', WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_LEASE_MARGIN_MS: '200' };
const LEASE_MS = 500;

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let nextRecord = 9000;

beforeAll(async () => {
  gw = await startTestGateway(ENV, { worker: false });
  m = await gw.createMerchant({ name: 'Maintenance', webhook_url: 'http://127.0.0.1:9/hook' });
});
afterAll(async () => gw?.stop());

const payload = (id: number, status = 'completed') => ({ status, trade_id: id, trade_date: '2026-10-06T10:00:12.512Z', merchant_tx_id: `t-${id}`, amount: 1, amount_currency: 'usd' });

async function emit(recordId: number, status = 'completed', resultUrl?: string) {
  const id = await gw.ctx.db.transaction().execute((trx) =>
    enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId, status, resultUrl, payload: payload(recordId, status) }),
  );
  return id!;
}

/** Claims the event's next attempt (as a dispatcher would), leased for `leaseMs`; undefined when not claimable. */
const claim = async (eventId: number, leaseMs = LEASE_MS) => (await repo.claimDue(gw.ctx.db, { limit: 10, leaseMs, eventId }))[0];

describe('per-record order is decided by the claim', () => {
  it('a later event of a record cannot be claimed while an earlier one is pending; other records are unaffected', async () => {
    const record = nextRecord++;
    const hold = await emit(record, 'hold');
    const completed = await emit(record, 'completed');
    const other = await emit(nextRecord++, 'completed');
    expect(await claim(completed)).toBeUndefined();
    expect((await claim(other))?.attempts).toBe(1);
    const claimed = await claim(hold);
    expect(claimed?.attempts).toBe(1);
    expect(claimed?.lease_until).not.toBeNull();
    expect(claimed?.webhook_secret).toBe(m.webhook_secret);
    // no second attempt while one is in flight
    expect(await claim(hold)).toBeUndefined();
    expect(await claim(completed)).toBeUndefined();
    // the hold is settled: the completed goes
    await gw.ctx.db.updateTable('webhook_events').set({ state: 'delivered', lease_until: null }).where('id', '=', hold).execute();
    expect((await claim(completed))?.attempts).toBe(1);
    await gw.ctx.db.updateTable('webhook_events').set({ state: 'delivered', lease_until: null }).where('id', 'in', [completed, other]).execute();
  });
});

describe('sweeper', () => {
  // Adapted from the job-per-event design: there is no delivery job to lose any more (the
  // dispatcher claims every due event), so the sweeper only deals with attempts whose lease ran out.
  it('records an attempt whose lease ran out as interrupted and schedules its retry; leaves a lease in force and unclaimed events alone', async () => {
    const crashed = await emit(nextRecord++);
    expect((await claim(crashed))?.attempts).toBe(1); // the instance died during this attempt
    const inFlight = await emit(nextRecord++);
    await claim(inFlight, 60_000);
    const waiting = await emit(nextRecord++); // never claimed: the dispatcher's business, not the sweeper's
    await gw.ctx.db.updateTable('webhook_events').set({ created_at: sql`now() - interval '1 minute'` as never }).where('id', '=', waiting).execute();

    await new Promise((r) => setTimeout(r, LEASE_MS + 100));
    expect(await gw.ctx.webhooks.sweep()).toEqual([crashed]);
    const ev = await gw.ctx.webhooks.getDelivery(crashed);
    expect(ev.state).toBe('pending');
    expect(ev.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: null, error: expect.stringMatching(/^interrupted/) })]);
    expect(ev.next_attempt_at).not.toBeNull(); // the schedule's 1 s
    expect((await repo.findEvent(gw.ctx.db, crashed))?.lease_until).toBeNull();
    // settled once: sweeping again finds nothing, and the retry is not due yet
    expect(await gw.ctx.webhooks.sweep()).toEqual([]);
    expect(await gw.ctx.webhooks.deliver(crashed)).toBe('skipped');
    // an attempt in flight is left alone
    expect(await gw.ctx.webhooks.deliver(inFlight)).toBe('skipped');
    expect((await gw.ctx.webhooks.getDelivery(inFlight)).attempts).toHaveLength(0);
    // a late result of the interrupted attempt is not applied (the first record of attempt 1 won)
    const late = await repo.settleAttempts(gw.ctx.db, [{ eventId: crashed, attempt: 1, generation: 0, statusCode: 200, latencyMs: 5, error: null, excerpt: 'ok', outcome: 'ack', delayMs: 0 }], 3);
    expect(late).toEqual([]);
    expect((await gw.ctx.webhooks.getDelivery(crashed)).state).toBe('pending');
    await gw.ctx.db.updateTable('webhook_events').set({ state: 'delivered', lease_until: null }).where('id', 'in', [crashed, inFlight, waiting]).execute();
  });

  it('start-up keeps one sweep job and one prune job scheduled', async () => {
    await gw.flushJobs();
    const keys = (await sql<{ key: string }>`select key from graphile_worker.jobs where key in (${WEBHOOK_SWEEP_TASK}, ${WEBHOOK_PRUNE_TASK}) order by key`.execute(gw.ctx.db)).rows;
    expect(keys.map((k) => k.key)).toEqual([WEBHOOK_PRUNE_TASK, WEBHOOK_SWEEP_TASK]);
  });
});

describe('settling in batches', () => {
  const outcome = (eventId: number, extra: Partial<repo.AttemptOutcome> = {}): repo.AttemptOutcome => ({
    eventId, attempt: 1, generation: 0, statusCode: 500, latencyMs: 3, error: null, excerpt: 'boom', outcome: 'retry', delayMs: 3_600_000, ...extra,
  });

  it('a later event waits for the retry of the earlier one (not_before), and stops waiting when the earlier one is redelivered', async () => {
    const record = nextRecord++;
    const hold = await emit(record, 'hold');
    expect((await claim(hold))?.attempts).toBe(1);
    const [settled] = await repo.settleAttempts(gw.ctx.db, [outcome(hold)], 3);
    expect(settled).toMatchObject({ id: hold, state: 'pending' });
    const completed = await emit(record, 'completed');
    const waiting = await repo.findEvent(gw.ctx.db, completed);
    expect(waiting?.not_before).toEqual(settled!.next_attempt_at); // an hour away: out of the claim's scan until then
    expect(await claim(completed)).toBeUndefined();
    await gw.admin('POST', `/webhook-deliveries/${hold}/redeliver`);
    expect((await repo.findEvent(gw.ctx.db, completed))?.not_before).toBeNull();
    expect(await claim(completed)).toBeUndefined(); // still behind the hold, which is due now
    expect((await claim(hold))?.attempts).toBe(2);
    // the hold delivered: the completed goes at once
    await repo.settleAttempts(gw.ctx.db, [outcome(hold, { attempt: 2, generation: 1, statusCode: 200, outcome: 'ack' })], 3);
    expect((await claim(completed))?.attempts).toBe(1);
    await gw.ctx.db.updateTable('webhook_events').set({ state: 'delivered', lease_until: null }).where('id', 'in', [hold, completed]).execute();
  });

  it('one statement settles many attempts; a NUL byte in an answer does not break it; exhaustion follows max attempts', async () => {
    const ids = [await emit(nextRecord++), await emit(nextRecord++), await emit(nextRecord++)];
    for (const id of ids) await claim(id);
    const settled = await repo.settleAttempts(
      gw.ctx.db,
      [
        outcome(ids[0]!, { statusCode: 200, outcome: 'ack', excerpt: 'o\u0000k' }),
        outcome(ids[1]!, { outcome: 'final', error: 'payload refused: x' }),
        outcome(ids[2]!),
      ],
      1, // a one-entry schedule: the first failed attempt is the last
    );
    expect(Object.fromEntries(settled.map((x) => [x.id, x.state]))).toEqual({ [ids[0]!]: 'delivered', [ids[1]!]: 'exhausted', [ids[2]!]: 'exhausted' });
    expect((await gw.ctx.webhooks.getDelivery(ids[0]!)).attempts[0]!.response_excerpt).toBe('ok');
    // settled already: the same results again change nothing
    expect(await repo.settleAttempts(gw.ctx.db, [outcome(ids[2]!)], 3)).toEqual([]);
  });
});

describe('the attempt deadline covers the name lookup', () => {
  it('a resolver slower than WEBHOOK_TIMEOUT_MS fails the attempt at the deadline, and it is retried', async () => {
    let calls = 0;
    const slow = (host: string) => {
      calls++;
      expect(host).toBe('slow-dns.example');
      return new Promise<{ address: string; family: 4 }[]>(() => {}); // never answers: only the deadline ends the attempt
    };
    const svc = createWebhookService(gw.ctx, { lookup: slow });
    const id = await emit(nextRecord++, 'completed', 'http://slow-dns.example/hook');
    expect(await svc.deliver(id)).toBe('pending');
    expect(calls).toBe(1);
    const ev = await svc.getDelivery(id);
    expect(ev.attempts).toHaveLength(1);
    expect(ev.attempts[0]).toMatchObject({ status_code: null, error: 'timeout after 300 ms (resolving slow-dns.example)' });
    expect(ev.attempts[0]!.latency_ms).toBeGreaterThanOrEqual(250);
    expect(ev.next_attempt_at).not.toBeNull();
    await gw.ctx.db.updateTable('webhook_events').set({ state: 'delivered' }).where('id', '=', id).execute();
  });
});

describe('retention', () => {
  async function agedEvent(state: 'delivered' | 'exhausted' | 'pending', daysAgo: number) {
    const id = await emit(nextRecord++);
    await gw.ctx.db
      .updateTable('webhook_events')
      .set({
        state,
        attempts: 1,
        created_at: sql`now() - make_interval(days => ${daysAgo})` as never,
        delivered_at: state === 'delivered' ? (sql`now() - make_interval(days => ${daysAgo})` as never) : null,
      })
      .where('id', '=', id)
      .execute();
    await gw.ctx.db.insertInto('webhook_attempts').values({ event_id: id, attempt: 1, target_url: 'http://127.0.0.1:9/hook', status_code: 200, latency_ms: 1, error: null, response_excerpt: 'ok' }).execute();
    return id;
  }
  const exists = async (id: number) => !!(await repo.findEvent(gw.ctx.db, id));
  const attemptCount = async (id: number) =>
    Number((await gw.ctx.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll().as('n')).where('event_id', '=', id).executeTakeFirstOrThrow()).n);

  it('deletes delivered events older than WEBHOOK_RETENTION_DAYS (30) with their attempts; keeps recent, exhausted and pending ones', async () => {
    expect(gw.ctx.config.webhookRetentionDays).toBe(30);
    const old = await agedEvent('delivered', 31);
    const older = await agedEvent('delivered', 400);
    const recent = await agedEvent('delivered', 29);
    const oldExhausted = await agedEvent('exhausted', 60);
    const oldPending = await agedEvent('pending', 60);

    // the job handler prunes, and puts itself back for the next hour
    await webhookTasks(gw.ctx)[WEBHOOK_PRUNE_TASK]!({}, {} as never);
    expect(await exists(old)).toBe(false);
    expect(await exists(older)).toBe(false);
    expect(await attemptCount(old)).toBe(0);
    for (const id of [recent, oldExhausted, oldPending]) expect(await exists(id)).toBe(true);
    expect(await attemptCount(recent)).toBe(1);
    await gw.flushJobs();
    const next = (await sql<{ run_at: Date }>`select run_at from graphile_worker.jobs where key = ${WEBHOOK_PRUNE_TASK}`.execute(gw.ctx.db)).rows[0];
    expect(next).toBeDefined();

    // a shorter retention given explicitly; 0 keeps everything
    expect(await gw.ctx.webhooks.prune(0)).toBe(0);
    expect(await exists(recent)).toBe(true);
    expect(await gw.ctx.webhooks.prune(7)).toBe(1);
    expect(await exists(recent)).toBe(false);
    await gw.ctx.db.updateTable('webhook_events').set({ state: 'delivered', delivered_at: sql`now()` as never }).where('id', '=', oldPending).execute();
  });

  it('a stop ends the prune between batches of 1 000; the next prune takes the rest', async () => {
    const first = nextRecord;
    nextRecord += 1500;
    await sql`insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state, attempts, created_at, delivered_at)
              select ${m.id}, 'deposit', ${first} + g, 'completed', '{}'::jsonb, 'http://127.0.0.1:9/hook', 'delivered', 1,
                     now() - interval '90 days', now() - interval '90 days'
                from generate_series(0, 1499) g`.execute(gw.ctx.db);
    const aged = async () => Number((await sql<{ n: string }>`select count(*) as n from webhook_events where record_id >= ${first} and record_id < ${first + 1500}`.execute(gw.ctx.db)).rows[0]!.n);
    const stop = new AbortController();
    stop.abort(); // as the job's abortSignal does at a stop
    expect(await gw.ctx.webhooks.prune(30, stop.signal)).toBe(1000);
    expect(await aged()).toBe(500);
    expect(await gw.ctx.webhooks.prune(30)).toBe(500);
    expect(await aged()).toBe(0);
  });
});
