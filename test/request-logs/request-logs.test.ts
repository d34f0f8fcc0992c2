// Request logs (issue 24): the merchant's own API requests recorded after the answer in batches,
// with the key, the client, the request id, merchant_tx_id and the answer of failed requests;
// shown and searchable in the dashboard, per merchant; pruned by age; off with REQUEST_LOG_DAYS=0.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, type WebClient } from '../dashboard/web-client.js';
import { listRequests } from '../../src/modules/web/dashboard/dashboard-repo.js';

let gw: TestGateway;
let A: Awaited<ReturnType<TestGateway['createMerchant']>>;
let B: Awaited<ReturnType<TestGateway['createMerchant']>>;
let ownerA: WebClient;
let ownerB: WebClient;

beforeAll(async () => {
  gw = await startTestGateway();
  A = await gw.createMerchant({ name: 'Logs A' });
  B = await gw.createMerchant({ name: 'Logs B' });
  [ownerA, ownerB] = await Promise.all([userOf(gw, A.id, 'logs-a@requests.example'), userOf(gw, B.id, 'logs-b@requests.example')]);
  expect((await gw.merchant(A.api_key, 'GET', '/balance', undefined, { 'x-request-id': 'req-balance-1' })).status).toBe(200);
  expect((await gw.merchant(A.api_key, 'POST', '/create-intent', { merchant_tx_id: 'rl-tx-1' })).status).toBe(200);
  expect((await gw.merchant(A.api_key, 'POST', '/create-intent', { merchant_tx_id: 'rl-tx-1' })).status).toBe(409);
  expect((await gw.merchant(A.api_key, 'GET', '/deposit/status?merchant_tx_id=rl-tx-1')).status).toBe(200);
  expect((await gw.merchant(A.api_key, 'POST', '/inventory', { game: 'csgo', partner: 1, token: 'abcdefgh' })).status).toBe(400);
  expect((await gw.merchant(B.api_key, 'GET', '/balance', undefined, { 'x-request-id': 'req-balance-b' })).status).toBe(200);
  await gw.app.requestLog.flush();
}, 120_000);
afterAll(async () => gw?.stop());

describe('recording', () => {
  it('records each request of the merchant with time, method, path, status, duration, request id, key and client', async () => {
    const rows = await listRequests(gw.ctx.db, A.id, { limit: 50 });
    expect(rows.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /api/v1/merchant/inventory 400',
      'GET /api/v1/merchant/deposit/status?merchant_tx_id=rl-tx-1 200',
      'POST /api/v1/merchant/create-intent 409',
      'POST /api/v1/merchant/create-intent 200',
      'GET /api/v1/merchant/balance 200',
    ]);
    const balance = rows[4]!;
    expect(balance).toMatchObject({ request_id: 'req-balance-1', key_prefix: A.api_key_prefix ?? expect.any(String), client_ip: '127.0.0.1', error_body: null, merchant_tx_id: null });
    expect(A.api_key.startsWith(balance.key_prefix)).toBe(true);
    expect(balance.duration_ms).toBeGreaterThanOrEqual(0);
    // merchant_tx_id from the body and from the query
    expect(rows[3]!.merchant_tx_id).toBe('rl-tx-1');
    expect(rows[1]!.merchant_tx_id).toBe('rl-tx-1');
    // the answer of a failed request; none for a successful one
    expect(rows[2]!.error_body).toContain('already exist error');
    expect(rows[0]!.error_body).toContain('validation error');
    expect(rows[3]!.error_body).toBeNull();
  });

  it("a merchant's log has only its own requests", async () => {
    const rows = await listRequests(gw.ctx.db, B.id, { limit: 50 });
    expect(rows.map((r) => r.request_id)).toEqual(['req-balance-b']);
  });

  it('many answers at once are written in a few batches, not a statement each', async () => {
    const before = (await sql<{ n: number }>`select count(*)::int as n from request_logs where merchant_id = ${A.id}`.execute(gw.ctx.db)).rows[0]!.n;
    await Promise.all(Array.from({ length: 200 }, (_, i) => gw.merchant(A.api_key, 'GET', '/balance', undefined, { 'x-request-id': `burst-${i}` })));
    await gw.app.requestLog.flush();
    const after = await sql<{ n: number; xmins: number }>`select count(*)::int as n, count(distinct xmin::text)::int as xmins from request_logs where merchant_id = ${A.id} and request_id like 'burst-%'`.execute(gw.ctx.db);
    expect(after.rows[0]!.n).toBe(200);
    // rows of one INSERT share a transaction id: far fewer transactions than rows
    expect(after.rows[0]!.xmins).toBeLessThan(20);
    expect((await sql<{ n: number }>`select count(*)::int as n from request_logs where merchant_id = ${A.id}`.execute(gw.ctx.db)).rows[0]!.n).toBe(before + 200);
  });

  it('identical 304 answers noted before one flush are one row with their count; another key, client, path or status, or a flush, starts a new row', async () => {
    const C = await gw.createMerchant({ name: 'Logs C' });
    const asC = { id: C.id, api_key_prefix: 'sk_c1' };
    const note = (over: { ip?: string; url?: string; statusCode?: number; prefix?: string }, id: string) =>
      gw.app.requestLog.note({ id, method: 'GET', url: over.url ?? '/api/v1/merchant/purchase/available?game=csgo&page=1', ip: over.ip ?? '10.0.0.1', merchant: { ...asC, api_key_prefix: over.prefix ?? asC.api_key_prefix }, statusCode: over.statusCode ?? 304, responseTime: 0.2 });
    await gw.app.requestLog.flush();
    // One synchronous run: no timer's flush can fall between these.
    for (let i = 0; i < 30; i++) note({}, `same-${i}`);
    note({ ip: '10.0.0.2' }, 'other-client');
    note({ prefix: 'sk_c2' }, 'other-key');
    note({ url: '/api/v1/merchant/purchase/available?game=csgo&page=2' }, 'other-page');
    note({ statusCode: 200 }, 'a-200');
    note({ statusCode: 200 }, 'another-200');
    await gw.app.requestLog.flush();
    note({}, 'after-flush');
    await gw.app.requestLog.flush();
    const rows = (await listRequests(gw.ctx.db, C.id, { limit: 50 })).reverse();
    expect(rows.map((r) => [r.request_id, r.status, r.repeats])).toEqual([
      ['same-0', 304, 30],
      ['other-client', 304, 1],
      ['other-key', 304, 1],
      ['other-page', 304, 1],
      ['a-200', 200, 1],
      ['another-200', 200, 1],
      ['after-flush', 304, 1],
    ]);
    const page = await userOf(gw, C.id, 'logs-c@requests.example').then((c) => c.get('/dashboard/requests'));
    expect(page.body).toContain('×30');
    expect(page.body).not.toContain('×1<');
  });

  it("the catalogue's 304s answered in front of the router are all counted", async () => {
    const D = await gw.createMerchant({ name: 'Logs D' });
    const path = '/purchase/available?game=csgo&page=1';
    const first = await gw.merchant(D.api_key, 'GET', path);
    expect(first.status).toBe(200);
    const polls = await Promise.all(Array.from({ length: 20 }, (_, i) => gw.merchant(D.api_key, 'GET', path, undefined, { 'if-none-match': first.headers.etag, 'x-request-id': `poll-${i}` })));
    expect(polls.map((p) => p.status)).toEqual(Array(20).fill(304));
    await gw.app.requestLog.flush();
    const rows = (await listRequests(gw.ctx.db, D.id, { limit: 50 })).filter((r) => r.status === 304);
    expect(rows.reduce((n, r) => n + r.repeats, 0)).toBe(20);
    expect(rows.every((r) => r.request_id.startsWith('poll-') && r.path === `/api/v1/merchant${path}`)).toBe(true);
  });

  it('prunes by age: older than REQUEST_LOG_DAYS goes, a minute younger stays', async () => {
    const row = (label: string, age: string) => sql`insert into request_logs (merchant_id, at, method, path, status, duration_ms, request_id, key_prefix, client_ip)
      values (${A.id}, now() - ${age}::interval, 'GET', '/old', 200, 1, ${label}, 'sk_x', '127.0.0.1')`.execute(gw.ctx.db);
    await row('old-out', '7 days 1 minute');
    await row('old-in', '6 days 23 hours 59 minutes');
    expect(await gw.app.requestLog.prune()).toBe(1);
    const left = await sql<{ request_id: string }>`select request_id from request_logs where request_id like 'old-%'`.execute(gw.ctx.db);
    expect(left.rows.map((r) => r.request_id)).toEqual(['old-in']);
  });

  it('a prune asked for while one runs is that one (a paced prune may outlast the hour between two)', async () => {
    await sql`insert into request_logs (merchant_id, at, method, path, status, duration_ms, request_id, key_prefix, client_ip)
              select ${A.id}, now() - interval '30 days', 'GET', '/old', 200, 1, 'twice-' || g, 'sk_x', '127.0.0.1' from generate_series(1, 3) g`.execute(gw.ctx.db);
    const [a, b] = await Promise.all([gw.app.requestLog.prune(), gw.app.requestLog.prune()]);
    expect([a, b]).toEqual([3, 3]);
  });
});

describe('the dashboard page', () => {
  it('lists the requests and finds them by request id and by merchant_tx_id; failed ones show their answer', async () => {
    const all = await ownerA.get('/dashboard/requests');
    expect(all.status).toBe(200);
    expect(all.body).toContain('burst-199'); // newest first, 50 a page
    expect(all.body).toContain('rel="next"');
    const byId = await ownerA.get('/dashboard/requests?request_id=req-balance-1');
    expect(byId.body).toContain('req-balance-1');
    expect(byId.body).not.toContain('/api/v1/merchant/create-intent');
    const byTx = await ownerA.get('/dashboard/requests?merchant_tx_id=rl-tx-1');
    expect((byTx.body.match(/rl-tx-1<\/td>/g) ?? []).length).toBe(3);
    expect(byTx.body).toContain('already exist error'); // the 409's answer
    expect(byTx.body).not.toContain('req-balance-1');
    expect((await ownerA.get('/dashboard/requests?request_id=nope')).body).toContain('No request matches.');
  });

  it("another merchant's requests are not shown, even searched by their request id", async () => {
    const r = await ownerB.get('/dashboard/requests?request_id=req-balance-1');
    expect(r.status).toBe(200);
    expect(r.body).not.toContain('/api/v1/merchant/create-intent');
    expect(r.body).toContain('No request matches.');
    expect((await ownerB.get('/dashboard/requests')).body).toContain('req-balance-b');
  });
});

describe('REQUEST_LOG_DAYS=0', () => {
  it('records nothing', async () => {
    const off = await startTestGateway({ REQUEST_LOG_DAYS: '0' }, { worker: false });
    try {
      const m = await off.createMerchant({ name: 'No logs' });
      expect((await off.merchant(m.api_key, 'GET', '/balance')).status).toBe(200);
      await off.app.requestLog.flush();
      expect((await sql<{ n: number }>`select count(*)::int as n from request_logs`.execute(off.ctx.db)).rows[0]!.n).toBe(0);
    } finally {
      await off.stop();
    }
  });
});
