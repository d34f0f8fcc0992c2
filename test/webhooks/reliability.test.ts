// Delivery under trouble, end to end (real gateway, job worker and dispatcher, real receiver): no
// delivery jobs nor per-record job queues left behind, a worker dying during an attempt, a redelivery during an attempt, a receiver
// whose 2xx body never ends. Small lease and sweep settings so the safety net acts within a test.
import { sql } from 'kysely';
import type { Db, Trx } from '../../src/db/database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { enqueueWebhook, type WebhookEventInput } from '../../src/modules/webhooks/outbox.js';
import * as repo from '../../src/modules/webhooks/webhook-repo.js';
import { INTERRUPTED_ERROR } from '../../src/modules/webhooks/webhook-service.js';
import { startReceiver, verifySpecSign, type Receiver } from './receiver.js';
import { WEBHOOK_PRUNE_TASK, WEBHOOK_SWEEP_TASK } from '../../src/modules/webhooks/webhook-jobs.js';
import { RETENTION_TASKS } from '../../src/modules/retention/retention-jobs.js';

const ENV = {
  WEBHOOK_RETRY_SCHEDULE: '0,1,1',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MARGIN_MS: '300',
  WEBHOOK_SWEEP_INTERVAL_MS: '300',
};
const LEASE_MS = 1300;

let gw: TestGateway;
let rx: Receiver;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let nextRecord = 5000;

beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway(ENV);
  m = await gw.createMerchant({ name: 'Reliability', webhook_url: rx.url('/merchant-hook') });
});
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

const payload = (kind: 'deposit' | 'purchase', id: number, status: string) =>
  kind === 'deposit'
    ? { status, trade_id: id, trade_date: '2026-10-06T10:00:12.512Z', merchant_tx_id: `dep-${id}`, platform_id: '76561197960265736', offer_id: '1', amount: 1.5, amount_currency: 'usd' }
    : { status, purchase_id: id, trade_date: '2026-10-06T10:00:12.512Z', merchant_tx_id: `pur-${id}`, asset_id: '2', offer_id: '3', amount: 2.5, amount_currency: 'usd' };

async function emit(e: Pick<WebhookEventInput, 'kind' | 'recordId' | 'status'> & { resultUrl?: string }) {
  const id = await gw.ctx.db.transaction().execute((trx) => enqueueWebhook(trx, { merchantId: m.id, payload: payload(e.kind, e.recordId, e.status), ...e }));
  return id!;
}

/** An event row written without the outbox (nothing wakes the dispatcher for it). */
async function insertWithoutJob(path: string, recordId: number, extra: Record<string, unknown> = {}, db: Trx | Db = gw.ctx.db) {
  const row = await db
    .insertInto('webhook_events')
    .values({
      merchant_id: m.id,
      kind: 'deposit',
      record_id: recordId,
      status: 'completed',
      payload: JSON.stringify(payload('deposit', recordId, 'completed')) as never,
      target_url: rx.url(path),
      ...extra,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const get = (id: number) => gw.ctx.webhooks.getDelivery(id);
const delivered = (id: number) =>
  eventually(async () => {
    const e = await get(id);
    return e.state === 'delivered' ? e : undefined;
  }, 15_000);

function gate() {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

describe('job queues', () => {
  it('deliveries leave no per-record named queue behind (graphile-worker never deletes queue rows)', async () => {
    const events: number[] = [];
    for (let i = 0; i < 25; i++) {
      const kind = i % 2 ? 'purchase' : 'deposit';
      events.push(await emit({ kind, recordId: nextRecord++, status: 'completed', resultUrl: rx.url('/many') }));
    }
    await eventually(async () => (await Promise.all(events.map(get))).every((e) => e.state === 'delivered'), 20_000);
    expect(rx.on('/many')).toHaveLength(25);
    // The only named queues are the maintenance jobs' own, one per task (a run due while the last
    // still runs waits for it): a fixed handful, never one per record.
    const maintenance = new Set<string>([WEBHOOK_SWEEP_TASK, WEBHOOK_PRUNE_TASK, RETENTION_TASKS.prune, RETENTION_TASKS.fold]);
    const queues = await sql<{ queue_name: string }>`select queue_name from graphile_worker._private_job_queues`.execute(gw.ctx.db);
    expect(queues.rows.map((q) => q.queue_name).filter((name) => !maintenance.has(name))).toEqual([]);
    const queued = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'webhook_deliver'`.execute(gw.ctx.db);
    expect(queued.rows[0]!.n).toBe(0);
  });
});

describe('a worker that dies during an attempt', () => {
  it('the attempt is claimed (leased) but never settled: the sweeper records it as interrupted, and it is retried', async () => {
    // What the dead instance did: claimed attempt 1 (in the transaction that wrote the event, so
    // that this instance's dispatcher cannot take it first). Nothing else will ever happen to it.
    const { id, claimed } = await gw.ctx.db.transaction().execute(async (trx) => {
      // created_at at the transaction's start: an event written at clock time is not due yet within its own transaction
      const eventId = await insertWithoutJob('/crash', nextRecord++, { created_at: sql`now()` }, trx);
      const [row] = await repo.claimDue(trx, { limit: 1, leaseMs: LEASE_MS, eventId });
      return { id: eventId, claimed: row };
    });
    expect(claimed?.attempts).toBe(1);
    expect(claimed?.lease_until).not.toBeNull();
    const ev = await delivered(id);
    expect(ev.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, null, INTERRUPTED_ERROR],
      [2, 200, null],
    ]);
    expect(rx.on('/crash')).toHaveLength(1);
    expect(verifySpecSign(rx.on('/crash')[0]!.body, m.webhook_secret)).toBe(true);
    const row = await repo.findEvent(gw.ctx.db, id);
    expect(row?.lease_until).toBeNull();
  });

  it('a pending event written without the outbox (no wake-up) is found by the poll', async () => {
    const id = await insertWithoutJob('/orphan', nextRecord++, { created_at: sql`now() - interval '10 seconds'` });
    const ev = await delivered(id);
    expect(ev.attempts.map((a) => a.status_code)).toEqual([200]);
    expect(rx.on('/orphan')).toHaveLength(1);
  });
});

describe('redelivery during an attempt in flight', () => {
  it('is not lost when the attempt succeeds: one more attempt follows', async () => {
    const g = gate();
    rx.respond = (r, n) => (r.path === '/inflight' && n === 0 ? { status: 200, until: g.promise } : { status: 200 });
    const id = await emit({ kind: 'deposit', recordId: nextRecord++, status: 'completed', resultUrl: rx.url('/inflight') });
    await eventually(async () => rx.on('/inflight').length === 1);
    const res = await gw.admin('POST', `/webhook-deliveries/${id}/redeliver`);
    expect(res.status).toBe(202);
    g.release();
    await eventually(async () => rx.on('/inflight').length === 2, 10_000);
    const ev = await delivered(id);
    expect(ev.attempt_count).toBe(2);
    expect(ev.attempts.map((a) => a.status_code)).toEqual([200, 200]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.on('/inflight')).toHaveLength(2);
    expect((await get(id)).attempt_count).toBe(2);
  });

  it('is not lost when the attempt in flight was the last one and fails', async () => {
    const g = gate();
    // attempts 1 and 2 fail, attempt 3 (the last of the schedule) is held then fails, the redelivery succeeds
    rx.respond = (r, n) => {
      if (r.path !== '/inflight-last') return { status: 200 };
      if (n < 2) return { status: 500 };
      if (n === 2) return { status: 500, until: g.promise };
      return { status: 200 };
    };
    const id = await emit({ kind: 'purchase', recordId: nextRecord++, status: 'failed', resultUrl: rx.url('/inflight-last') });
    await eventually(async () => rx.on('/inflight-last').length === 3, 10_000);
    expect((await gw.admin('POST', `/webhook-deliveries/${id}/redeliver`)).status).toBe(202);
    g.release();
    const ev = await delivered(id);
    expect(ev.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect(rx.on('/inflight-last')).toHaveLength(4);
  });
});

describe('receiver answers', () => {
  it('a 2xx whose body never ends is acknowledged when its headers arrive (not retried)', async () => {
    rx.respond = (r) => (r.path === '/endless' ? { status: 200, neverEnd: true, body: 'partial' } : { status: 200 });
    const id = await emit({ kind: 'deposit', recordId: nextRecord++, status: 'completed', resultUrl: rx.url('/endless') });
    const ev = await delivered(id);
    expect(ev.attempt_count).toBe(1);
    expect(ev.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null, response_excerpt: 'partial' });
    // (the body never ends: an attempt that waited for it would have failed at its timeout, not be a 200)
    await new Promise((r) => setTimeout(r, 2500)); // past the schedule's retry time
    expect(rx.on('/endless')).toHaveLength(1);
    expect((await get(id)).attempt_count).toBe(1);
  });

  it('a 500 whose body never ends is a failed attempt with its status code, then retried', async () => {
    rx.respond = (r, n) => (r.path === '/endless-500' && n === 0 ? { status: 500, neverEnd: true, body: 'dying' } : { status: 200 });
    const id = await emit({ kind: 'deposit', recordId: nextRecord++, status: 'completed', resultUrl: rx.url('/endless-500') });
    const ev = await delivered(id);
    expect(ev.attempts.map((a) => [a.status_code, a.response_excerpt])).toEqual([
      [500, 'dying'],
      [200, 'ok'],
    ]);
  });
});
