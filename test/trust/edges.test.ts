// Regression tests of the hardened edges (issue 9): operator writes take only documented fields,
// exact money text, lone surrogates, router and parser errors in the envelope, strict URLs,
// protected /metrics without per-scrape queries, plain-digit integer parameters.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { rawConnect, parseResponse } from './raw-http.js';

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

beforeAll(async () => {
  gw = await startTestGateway({ METRICS_REFRESH_MS: '3600000' });
  m = await gw.createMerchant({ name: 'Edges' });
});
afterAll(async () => gw?.stop());

async function adminRaw(method: string, url: string, payload: string) {
  const res = await gw.app.inject({ method: method as 'POST', url: `/api/admin${url}`, headers: admin, payload });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

async function merchantRow(id: number) {
  return gw.ctx.db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('operator merchant writes take only documented fields', () => {
  it.each([
    ['api_key_hash', { api_key_hash: 'a'.repeat(64) }],
    ['api_key_hash', { api_key_hash: null }],
    ['webhook_secret', { webhook_secret: '' }],
    ['webhook_secret', { webhook_secret: 'whsec_chosen' }],
    ['id', { id: 900000 }],
    ['created_at', { created_at: '2000-01-01T00:00:00Z' }],
    ['no_such_column', { no_such_column: 1 }],
    ['api_key_prefix', { api_key_prefix: 'sk_x', name: 'valid name' }],
  ])('PATCH with %s → 400 naming it, nothing stored', async (field, body) => {
    const before = await merchantRow(m.id);
    const res = await gw.admin('PATCH', `/merchants/${m.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message: 'validation error' });
    expect(res.body.data).toContainEqual({ field: `UpdateMerchantRequest.${field}`, code: 'unknown', message: `${field} is not a known field` });
    expect(await merchantRow(m.id)).toEqual(before);
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(200);
  });

  it('lists every unknown field at once', async () => {
    const res = await gw.admin('PATCH', `/merchants/${m.id}`, { api_key_hash: 'x', webhook_secret: 'y', name: 'ok' });
    expect(res.status).toBe(400);
    expect(res.body.data.map((e: { field: string }) => e.field).sort()).toEqual(['UpdateMerchantRequest.api_key_hash', 'UpdateMerchantRequest.webhook_secret']);
  });

  it('POST /merchants refuses the same extras', async () => {
    const res = await gw.admin('POST', '/merchants', { name: 'sneaky', api_key_hash: 'a'.repeat(64), webhook_secret: 'whsec_x' });
    expect(res.status).toBe(400);
    expect(res.body.data.map((e: { code: string }) => e.code)).toEqual(['unknown', 'unknown']);
    expect(await gw.ctx.db.selectFrom('merchants').select('id').where('name', '=', 'sneaky').execute()).toEqual([]);
  });

  it('a 20 000-deep object is a 400, not a 500', async () => {
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    for (const [method, url, payload] of [
      ['PATCH', `/merchants/${m.id}`, `{"name":${deep}}`],
      ['PATCH', `/merchants/${m.id}`, `{"x":${deep}}`],
      ['POST', '/merchants', `{"name":"d","ip_whitelist":${deep}}`],
    ] as const) {
      const res = await adminRaw(method, url, payload);
      expect(res.status, payload.slice(0, 30)).toBe(400);
      expect(res.body.success).toBe(false);
    }
  });

  it('documented fields still update, and the answer carries no secret', async () => {
    const res = await gw.admin('PATCH', `/merchants/${m.id}`, { max_items: 7, deposit_preview_enabled: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: m.id, max_items: 7, deposit_preview_enabled: true });
    expect(res.body.data.api_key_hash).toBeUndefined();
    expect(res.body.data.webhook_secret).toBeUndefined();
  });

  it('rates finer than the column (numeric(10,6)) are refused, not rounded to 0 (found by the fuzz suite)', async () => {
    for (const field of ['deposit_multiplier', 'purchase_markup']) {
      for (const v of ['1e-10', '1.0000001']) {
        const res = await adminRaw('PATCH', `/merchants/${m.id}`, `{"${field}":${v}}`);
        expect(res.status, `${field}=${v}`).toBe(400);
        // 1e-10 is also below the smallest rate (0.5, issue 21), which the schema refuses first
        if (v !== '1e-10') expect(res.body.data[0]).toEqual({ field, code: 'numeric', message: `${field} has more than 6 decimals` });
      }
      const ok = await adminRaw('PATCH', `/merchants/${m.id}`, `{"${field}":1.000001}`);
      expect(ok.status).toBe(200);
      expect(ok.body.data[field]).toBe(1.000001);
    }
    expect((await adminRaw('POST', '/merchants', '{"name":"r","deposit_multiplier":1e-10}')).status).toBe(400);
    await gw.admin('PATCH', `/merchants/${m.id}`, { deposit_multiplier: 1, purchase_markup: 1 });
  });

  it('the service itself writes only editable columns (defence in depth)', async () => {
    const before = await merchantRow(m.id);
    await gw.ctx.merchants.update(m.id, { name: 'Edges', api_key_hash: 'f'.repeat(64), webhook_secret: '' } as never);
    const after = await merchantRow(m.id);
    expect(after.api_key_hash).toBe(before.api_key_hash);
    expect(after.webhook_secret).toBe(before.webhook_secret);
  });
});

describe('money text is decided exactly', () => {
  it.each(['1e-10', '0.0001', '1000000.0006', '0.0005', '12.3456', '1e-3000'])('top-up %s → 400 validation error on amount', async (amount) => {
    const res = await adminRaw('POST', `/merchants/${m.id}/top-ups`, `{"amount":${amount}}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message: 'validation error' });
    expect(res.body.data[0]).toMatchObject({ code: expect.stringMatching(/numeric|min/) });
  });

  it('withdrawal of 1e-10 → 400, not 500', async () => {
    const res = await adminRaw('POST', `/merchants/${m.id}/withdrawals`, '{"amount":1e-10}');
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ field: 'amount', code: 'numeric', message: 'amount: amount has more than 3 decimals' });
  });

  it('exactly 3 decimals are taken to the mill', async () => {
    const other = await gw.createMerchant({ name: 'Exact' });
    for (const [amount, mills] of [['1000000.001', 1_000_000_001], ['0.001', 1], ['1e-3', 1], ['2.5e2', 250_000]] as const) {
      const res = await adminRaw('POST', `/merchants/${other.id}/top-ups`, `{"amount":${amount},"reference":"exact-${amount}"}`);
      expect(res.status, amount).toBe(201);
      const entry = await gw.ctx.db.selectFrom('top_ups').select('amount').where('merchant_id', '=', other.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(Number(entry.amount), amount).toBe(mills);
    }
  });
});

describe('lone surrogates are refused, never stored as U+FFFD', () => {
  it('two references differing only in a lone surrogate do not collide: both are refused', async () => {
    for (const ref of ['\\ud800', '\\udc00', 'a\\udbffb']) {
      const res = await adminRaw('POST', `/merchants/${m.id}/top-ups`, `{"amount":1,"reference":"${ref}"}`);
      expect(res.status, ref).toBe(400);
      expect(res.body.data[0]).toMatchObject({ field: 'TopUpRequest.reference', code: 'format', message: 'lone UTF-16 surrogates (\\ud800-\\udfff) are not allowed' });
    }
  });

  it('a merchant_tx_id with a lone surrogate → 400; a proper pair (an emoji) is fine', async () => {
    const bad = await gw.app.inject({ method: 'POST', url: '/api/v1/merchant/create-intent', headers: { 'x-api-key': m.api_key, 'content-type': 'application/json' }, payload: '{"merchant_tx_id":"tx-\\ud800"}' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data[0]).toMatchObject({ field: 'CreateIntentRequest.merchant_tx_id', code: 'format' });
    const good = await gw.app.inject({ method: 'POST', url: '/api/v1/merchant/create-intent', headers: { 'x-api-key': m.api_key, 'content-type': 'application/json' }, payload: '{"merchant_tx_id":"tx-\\ud83d\\ude00"}' });
    expect(good.statusCode).toBe(200);
  });

  it('in object keys too', async () => {
    const key = await adminRaw('POST', `/merchants/${m.id}/top-ups`, '{"amount":1,"\\udc00":1}');
    expect(key.status).toBe(400);
    expect(key.body.data[0]).toMatchObject({ code: 'format', message: 'lone UTF-16 surrogates (\\ud800-\\udfff) are not allowed' });
  });

  it('a JSON body that is not valid UTF-8 → 400, so bytes ff and fe cannot both mean U+FFFD', async () => {
    for (const bad of [Buffer.from([0xff]), Buffer.from([0xfe]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc3])]) {
      const payload = Buffer.concat([Buffer.from('{"amount":1,"reference":"r'), bad, Buffer.from('"}')]);
      const res = await gw.app.inject({ method: 'POST', url: `/api/admin/merchants/${m.id}/top-ups`, headers: admin, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, message: 'invalid request body: not valid UTF-8' });
    }
    const utf8 = await gw.app.inject({ method: 'POST', url: `/api/admin/merchants/${m.id}/top-ups`, headers: admin, payload: Buffer.from('{"amount":1,"reference":"r\u00e9\u20ac"}') });
    expect(utf8.statusCode).toBe(201);
    // prototype poisoning is still refused by the parser
    const proto = await adminRaw('POST', `/merchants/${m.id}/top-ups`, '{"amount":1,"__proto__":{"x":1}}');
    expect(proto.status).toBe(400);
  });

  it('a query percent-encoding that is not UTF-8 (%ff, an encoded surrogate) → 400, so a%ff and a%fe cannot both mean a\ufffd', async () => {
    const ok = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: 'q\ufffd' });
    expect(ok.status).toBe(200);
    expect((await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${encodeURIComponent('q\ufffd')}`)).status).toBe(200);
    for (const q of ['merchant_tx_id=q%ff', 'merchant_tx_id=q%fe', 'merchant_tx_id=q%ED%A0%80', 'q%ff=1']) {
      const res = await gw.merchant(m.api_key, 'GET', `/deposit/status?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.data[0]).toEqual({ field: 'query', code: 'format', message: 'the query string has a percent-encoding that is not valid UTF-8' });
    }
  });
});

describe('router and parser errors answer in the envelope with x-request-id', () => {
  it('bad percent-encoding in the path → 400 envelope', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/hosted/%E0%A4%A/status' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, message: 'invalid URL: bad percent-encoding' });
    expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  });

  it('a path parameter over the router limit → 414 envelope', async () => {
    const res = await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${'a'.repeat(600)}` });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ success: false, message: 'URI too long' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('headers over the limit → 431 envelope (real socket)', async () => {
    const c = await rawConnect(gw.url);
    c.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const r = parseResponse((await c.closed(5000)).text);
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body)).toEqual({ success: false, message: 'request headers too large' });
    expect(r.headers['x-request-id']).toBeTruthy();
  });

  it('a URL over the header limit → 431 envelope (real socket)', async () => {
    const c = await rawConnect(gw.url);
    c.write(`GET /api/v1/merchant/balance?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const r = parseResponse((await c.closed(5000)).text);
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body).success).toBe(false);
  });

  it('malformed HTTP → 400 envelope (real socket)', async () => {
    for (const garbage of ['GARBAGE\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']) {
      const c = await rawConnect(gw.url);
      c.write(garbage);
      const r = parseResponse((await c.closed(5000)).text);
      expect(r.status, garbage).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ success: false, message: 'malformed HTTP request' });
      expect(r.headers['x-request-id']).toBeTruthy();
    }
  });
});

describe('ambiguous framing (request smuggling shapes) is refused by the parser, in the envelope', () => {
  it.each([
    ['two Content-Length', 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['Content-Length and Transfer-Encoding', 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['bad chunk size', 'POST /api/admin/merchants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['space before colon', 'GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n'],
    ['control character in a header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
  ])('%s → 400 envelope, connection closed', async (_label, raw) => {
    const c = await rawConnect(gw.url);
    c.write(raw);
    const r = parseResponse((await c.closed(5000)).text);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ success: false, message: 'malformed HTTP request' });
  });
});

describe('success_url and fail_url must be absolute http(s) URLs with //host', () => {
  it.each(['http:127.0.0.1/x', 'https:shop.example/ok', 'http:/shop.example', 'http:\\\\shop.example\\x', 'javascript:alert(1)', 'http://', 'http:// shop.example'])('%s → 400 url', async (url) => {
    for (const field of ['success_url', 'fail_url', 'result_url']) {
      const res = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: `u-${field}-${url}`.slice(0, 100), [field]: url });
      expect(res.status, `${field}=${url}`).toBe(400);
      expect(res.body.data[0]).toMatchObject({ field: `CreateIntentRequest.${field}`, code: 'url' });
    }
  });

  it('a proper URL is taken', async () => {
    const res = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: 'u-ok', success_url: 'https://shop.example/ok?x=1', fail_url: 'http://127.0.0.1:3000/fail' });
    expect(res.status).toBe(200);
  });
});

describe('/metrics', () => {
  it('refuses no token, a merchant key and a wrong token; answers the admin token', async () => {
    const none = await gw.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ success: false, message: 'missing authorization header' });
    const merchantKey = await gw.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': m.api_key } });
    expect(merchantKey.statusCode).toBe(401);
    const wrong = await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${m.api_key}` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ success: false, message: 'invalid metrics token' });
    const ok = await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ok.statusCode).toBe(200);
  });

  it('a scrape does not query the database: gauges change only on the refresh timer', async () => {
    const scrape = async () => (await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    const before = await scrape();
    expect(before).not.toContain('task="metrics_probe"');
    await sql`select graphile_worker.add_job('metrics_probe', '{}'::json, run_at := now() + interval '1 hour')`.execute(gw.ctx.db);
    for (let i = 0; i < 3; i++) expect(await scrape()).not.toContain('task="metrics_probe"');
  });

  it('with METRICS_TOKEN only that token opens it, and the gauges refresh on their interval', async () => {
    const g2 = await startTestGateway({ METRICS_TOKEN: 'metrics-token-0123456789abcdefghij', METRICS_REFRESH_MS: '200' }, { worker: false });
    try {
      const admin2 = await g2.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(admin2.statusCode).toBe(401);
      await sql`select graphile_worker.add_job('metrics_probe', '{}'::json, run_at := now() + interval '1 hour')`.execute(g2.ctx.db);
      await eventually(async () => {
        const res = await g2.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789abcdefghij' } });
        return res.statusCode === 200 && res.body.includes('gateway_job_queue_depth{task="metrics_probe"} 1');
      }, 5000);
    } finally {
      await g2.stop();
    }
  });
});

describe('metrics: the job outbox', () => {
  it('counts jobs of committed transactions that the relay has not moved yet, by task', async () => {
    const g3 = await startTestGateway({ METRICS_REFRESH_MS: '200' }, { worker: false });
    try {
      await g3.ctx.jobRelay.stop(); // a relay that does not run: what a stuck one looks like
      await sql`insert into job_outbox (task, payload) values ('outbox_probe', '{}'), ('outbox_probe', '{}')`.execute(g3.ctx.db);
      await eventually(async () => {
        const res = await g3.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        return res.body.includes('gateway_job_outbox_rows{task="outbox_probe"} 2');
      }, 5000);
    } finally {
      await g3.stop();
    }
  });
});

describe('integer path and query parameters are plain digits', () => {
  it.each(['0x10', '2e0', '%202', '2%20', '+2', '2.0', '0b1', '1_0', '%EF%BC%92'])('/merchants/%s → 400 numeric', async (id) => {
    const res = await gw.app.inject({ method: 'GET', url: `/api/admin/merchants/${id}`, headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json().data[0]).toMatchObject({ field: 'Params.id', code: 'numeric' });
  });

  it('the plain id still works, leading zeros included', async () => {
    expect((await gw.app.inject({ method: 'GET', url: `/api/admin/merchants/${m.id}`, headers: admin })).statusCode).toBe(200);
    expect((await gw.app.inject({ method: 'GET', url: `/api/admin/merchants/0${m.id}`, headers: admin })).statusCode).toBe(200);
  });

  it('query integers too (limit=0x10, limit=1e1), on merchant routes as well', async () => {
    for (const q of ['limit=0x10', 'limit=1e1', 'limit=%201']) {
      const res = await gw.app.inject({ method: 'GET', url: `/api/admin/merchants?${q}`, headers: admin });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().data[0]).toMatchObject({ code: 'numeric' });
    }
    const dep = await gw.merchant(m.api_key, 'GET', '/deposit/status?id=0x10');
    expect(dep.status).toBe(400);
    const pur = await gw.merchant(m.api_key, 'GET', '/purchase/status?id=2e0');
    expect(pur.status).toBe(400);
  });
});
