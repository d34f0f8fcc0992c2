// The events API (issue 24): a merchant's webhook events, newest first, filtered, paged by cursor,
// one by id with its attempts; another merchant's event is 404. Real gateway, real receiver.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { activeDeposit } from '../deposits/deposit-helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { sendTestEvent } from '../../src/modules/web/dashboard/webhook-test.js';
import { listMerchantEventsQuery } from '../../src/modules/events/events-repo.js';

let gw: TestGateway;
let rx: Receiver;
let A: Awaited<ReturnType<TestGateway['createMerchant']>>;
let B: Awaited<ReturnType<TestGateway['createMerchant']>>;
let d1: { id: number; merchant_tx_id: string };
let d2: { id: number; merchant_tx_id: string };

type Ev = { id: string; type: string; record_kind: string; record_id: number; merchant_tx_id: string | null; created_at: string; data: any; delivery: any; attempts?: any[] };
const list = async (key: string, query = '') => {
  const r = await gw.merchant(key, 'GET', `/events${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as { events: Ev[]; next_cursor: string | null };
};

beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway();
  A = await gw.createMerchant({ name: 'Events A', webhook_url: rx.url('/a') });
  B = await gw.createMerchant({ name: 'Events B', webhook_url: rx.url('/b') });
  d1 = await activeDeposit(gw, A.api_key);
  d2 = await activeDeposit(gw, A.api_key);
  expect((await gw.merchant(A.api_key, 'POST', `/sandbox/deposit/${d1.id}/accept`, { hold: false })).status).toBe(200);
  expect((await gw.merchant(A.api_key, 'POST', `/sandbox/deposit/${d2.id}/decline`, {})).status).toBe(200);
  const ofB = await activeDeposit(gw, B.api_key);
  expect((await gw.merchant(B.api_key, 'POST', `/sandbox/deposit/${ofB.id}/decline`, {})).status).toBe(200);
  // every event of A delivered (the receiver answers 200)
  await eventually(async () => {
    const n = await sql<{ n: number }>`select count(*)::int as n from webhook_events where merchant_id = ${A.id} and state <> 'delivered'`.execute(gw.ctx.db);
    return n.rows[0]!.n === 0;
  }, 30_000);
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

describe('GET /events', () => {
  it("lists the merchant's events newest first, each with its type, record and delivery", async () => {
    const { events, next_cursor } = await list(A.api_key);
    const rows = await gw.ctx.db.selectFrom('webhook_events').select(['id', 'kind', 'record_id', 'status']).where('merchant_id', '=', A.id).orderBy('id', 'desc').execute();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.id)).toEqual(rows.map((r) => `evt_${r.id}`));
    expect(next_cursor).toBeNull();
    const completed = events.find((e) => e.record_id === d1.id && e.type === 'deposit.completed')!;
    expect(completed).toMatchObject({ record_kind: 'deposit', merchant_tx_id: d1.merchant_tx_id, data: { trade_id: d1.id, status: 'completed' }, delivery: { state: 'delivered', attempt_count: 1, last_status_code: 200 } });
    expect(completed.data.sign).toBeUndefined();
    expect(events.some((e) => e.record_id === d2.id && e.type === 'deposit.canceled')).toBe(true);
    // B sees only its own
    const ofB = await list(B.api_key);
    expect(ofB.events.length).toBeGreaterThan(0);
    expect(ofB.events.every((e) => !events.some((a) => a.id === e.id))).toBe(true);
  });

  it('pages with the cursor: limit = count gives no cursor, limit = count - 1 gives one that continues exactly', async () => {
    const all = (await list(A.api_key)).events;
    const n = all.length;
    expect((await list(A.api_key, `?limit=${n}`)).next_cursor).toBeNull();
    const first = await list(A.api_key, `?limit=${n - 1}`);
    expect(first.events.map((e) => e.id)).toEqual(all.slice(0, n - 1).map((e) => e.id));
    expect(first.next_cursor).toBe(all[n - 2]!.id);
    const rest = await list(A.api_key, `?limit=${n}&cursor=${first.next_cursor}`);
    expect(rest.events.map((e) => e.id)).toEqual([all[n - 1]!.id]);
    expect(rest.next_cursor).toBeNull();
    // page by page with limit 1 walks every event once
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p: { events: Ev[]; next_cursor: string | null } = await list(A.api_key, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...p.events.map((e) => e.id));
      cursor = p.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it('filters by type (exact or kind), by record and by creation time', async () => {
    const all = (await list(A.api_key)).events;
    const completed = await list(A.api_key, '?type=deposit.completed');
    expect(completed.events.length).toBeGreaterThan(0);
    expect(completed.events.every((e) => e.type === 'deposit.completed')).toBe(true);
    expect((await list(A.api_key, '?type=deposit')).events.length).toBe(all.filter((e) => e.record_kind === 'deposit').length);
    expect((await list(A.api_key, '?type=purchase')).events).toEqual([]);
    const ofD1 = await list(A.api_key, `?deposit_id=${d1.id}`);
    expect(ofD1.events.map((e) => e.id)).toEqual(all.filter((e) => e.record_id === d1.id).map((e) => e.id));
    expect((await list(A.api_key, `?deposit_id=${d1.id}&type=purchase`)).events).toEqual([]);
    expect((await list(A.api_key, `?purchase_id=${d1.id}`)).events).toEqual([]);
    // time: created_from is inclusive, created_to exclusive (edge and one past it)
    const oldest = all[all.length - 1]!;
    const at = oldest.created_at;
    const plus1 = new Date(Date.parse(at) + 1).toISOString();
    expect((await list(A.api_key, `?created_to=${at}`)).events).toEqual([]);
    expect((await list(A.api_key, `?created_to=${plus1}`)).events.map((e) => e.id)).toContain(oldest.id);
    expect((await list(A.api_key, `?created_from=${at}`)).events.map((e) => e.id)).toContain(oldest.id);
    expect((await list(A.api_key, `?created_from=${plus1}`)).events.map((e) => e.id)).not.toContain(oldest.id);
  });

  it('bad filters are 400 with the field named, never 500', async () => {
    for (const q of ['?limit=0', '?limit=201', '?type=deposit.nope', '?cursor=abc', '?deposit_id=-1', '?created_from=yesterday']) {
      const r = await gw.merchant(A.api_key, 'GET', `/events${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.success).toBe(false);
    }
    expect((await gw.merchant(A.api_key, 'GET', '/events?limit=200')).status).toBe(200);
  });

  it('the list is an index scan of the merchant newest first (no sort), from the cursor on', async () => {
    // enough rows of another merchant that a scan of everything would be the worse plan
    await sql`insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state)
              select ${B.id}, 'deposit', 900000 + g, 'completed', '{}'::jsonb, 'http://127.0.0.1:9/x', 'delivered' from generate_series(1, 20000) g`.execute(gw.ctx.db);
    await sql`analyze webhook_events`.execute(gw.ctx.db);
    for (const f of [{ limit: 51 }, { limit: 51, beforeId: 1_000_000 }, { limit: 51, kind: 'deposit' as const, status: 'completed' }]) {
      const compiled = listMerchantEventsQuery(gw.ctx.db, A.id, f).compile();
      const plan = (await sql.raw(`explain ${compiled.sql.replace(/\$(\d+)/g, (_, i: string) => sqlLiteral(compiled.parameters[Number(i) - 1]))}`).execute(gw.ctx.db)).rows
        .map((r: any) => r['QUERY PLAN'])
        .join('\n');
      expect(plan, plan).toContain('webhook_events_merchant_idx');
      expect(plan, plan).not.toMatch(/Sort|Seq Scan/);
    }
    await sql`delete from webhook_events where merchant_id = ${B.id} and record_id > 900000`.execute(gw.ctx.db);
  });
});

function sqlLiteral(v: unknown): string {
  return typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
}

describe('GET /events/:id', () => {
  it('answers the event with its attempts, by evt_<n> or n', async () => {
    const e = (await list(A.api_key, '?type=deposit.completed')).events[0]!;
    const r = await gw.merchant(A.api_key, 'GET', `/events/${e.id}`);
    expect(r.status).toBe(200);
    const got = r.body.data as Ev;
    expect(got).toMatchObject({ id: e.id, type: 'deposit.completed', record_id: d1.id });
    expect(got.attempts).toHaveLength(1);
    expect(got.attempts![0]).toMatchObject({ attempt: 1, status_code: 200, target_url: rx.url('/a'), error: null });
    // what the receiver got under that webhook-id is the event's data
    const delivered = rx.received.find((x) => x.headers['webhook-id'] === e.id)!;
    const { sign: _s, ...body } = delivered.body;
    expect(got.data).toEqual(body);
    expect((await gw.merchant(A.api_key, 'GET', `/events/${e.id.slice(4)}`)).body.data.id).toBe(e.id);
  });

  it("another merchant's event is 404, as is one that does not exist; a malformed id is 400", async () => {
    const e = (await list(A.api_key)).events[0]!;
    const foreign = await gw.merchant(B.api_key, 'GET', `/events/${e.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ success: false, message: 'not found error' });
    expect((await gw.merchant(A.api_key, 'GET', '/events/evt_999999999')).status).toBe(404);
    expect((await gw.merchant(A.api_key, 'GET', '/events/9999999999999999')).status).toBe(404); // beyond 2^53
    expect((await gw.merchant(A.api_key, 'GET', '/events/evt_0')).status).toBe(400);
    expect((await gw.merchant(A.api_key, 'GET', '/events/whsec_1')).status).toBe(400);
  });
});

describe('test events', () => {
  it('a dashboard test event is listed as type test with its one attempt; the failing one as exhausted', async () => {
    const r = await sendTestEvent(gw.ctx, A.id);
    expect(r.status_code).toBe(200);
    const tests = await list(A.api_key, '?type=test');
    expect(tests.events).toHaveLength(1);
    const t = tests.events[0]!;
    expect(t).toMatchObject({ type: 'test', record_kind: 'test', record_id: 0, delivery: { state: 'delivered', attempt_count: 1, last_status_code: 200 } });
    expect(t.data.sign).toBeUndefined();
    const one = (await gw.merchant(A.api_key, 'GET', `/events/${t.id}`)).body.data as Ev;
    expect(one.attempts).toHaveLength(1);
    expect((await list(A.api_key)).events[0]!.id).toBe(t.id); // newest first
    // a receiver that refuses: recorded exhausted, the answer code kept
    rx.respond = (req) => (req.path === '/a' ? { status: 500, body: 'nope' } : { status: 200 });
    try {
      await sendTestEvent(gw.ctx, A.id);
    } finally {
      rx.respond = () => ({ status: 200 });
    }
    const failed = (await list(A.api_key, '?type=test&limit=1')).events[0]!;
    expect(failed.delivery).toMatchObject({ state: 'exhausted', last_status_code: 500, delivered_at: null });
    // B does not see A's test events
    expect((await list(B.api_key, '?type=test')).events).toEqual([]);
  });
});
