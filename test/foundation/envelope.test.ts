import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ BODY_LIMIT_BYTES: '4096' });
});
afterAll(async () => gw?.stop());

const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

describe('envelope and errors (spec 7)', () => {
  it('unknown routes answer 404 in the envelope', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, message: 'not found error' });
  });

  it('malformed JSON → 400 invalid request body', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: adminHeaders, payload: '{"name": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, message: 'invalid request body' });
  });

  it('an empty JSON body → 400 invalid request body', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: adminHeaders, payload: '' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('invalid request body');
  });

  it('a body over the limit → 413 in the envelope', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: adminHeaders, payload: JSON.stringify({ name: 'x'.repeat(10_000) }) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ success: false, message: 'request body too large' });
  });

  it('a non-JSON content type → 415 in the envelope', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, payload: '<name>x</name>' });
    expect(res.statusCode).toBe(415);
    expect(res.json().success).toBe(false);
  });

  it('validation errors list every failure as {field, code, message} with the schema title', async () => {
    const res = await gw.admin('POST', '/merchants', { max_items: 0, webhook_url: 'ftp://x', deposit_preview_enabled: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toBe('validation error');
    const byField = Object.fromEntries(res.body.data.map((e: any) => [e.field, e.code]));
    expect(byField['CreateMerchantRequest.name']).toBe('required');
    expect(byField['CreateMerchantRequest.max_items']).toBe('min');
    expect(byField['CreateMerchantRequest.deposit_preview_enabled']).toBe('type');
    expect(Object.keys(byField).some((f) => f.startsWith('CreateMerchantRequest.webhook_url'))).toBe(true);
    for (const e of res.body.data) expect(typeof e.message).toBe('string');
  });

  it('codes: len for strings, max for numbers', async () => {
    const res = await gw.admin('POST', '/merchants', { name: 'x'.repeat(201), max_items: 1001 });
    const byField = Object.fromEntries(res.body.data.map((e: any) => [e.field, e.code]));
    expect(byField['CreateMerchantRequest.name']).toBe('len');
    expect(byField['CreateMerchantRequest.max_items']).toBe('max');
  });

  it('wrong JSON types (array, string, null body) are validation errors, not 500s', async () => {
    for (const payload of ['[]', '"x"', 'null', '123']) {
      const res = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: adminHeaders, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().success).toBe(false);
    }
  });

  it('unicode and injection strings are stored verbatim, not interpreted', async () => {
    const name = "Robert'); DROP TABLE merchants;-- 🎮 ünïcødé";
    const created = await gw.admin('POST', '/merchants', { name });
    expect(created.status).toBe(201);
    const fetched = await gw.admin('GET', `/merchants/${created.body.data.id}`);
    expect(fetched.body.data.name).toBe(name);
  });

  it('NUL characters anywhere in the input are a validation error, never a 500', async () => {
    const body = await gw.admin('POST', '/merchants', { name: 'a\u0000b' });
    expect(body.status).toBe(400);
    expect(body.body.message).toBe('validation error');
    expect(body.body.data[0]).toMatchObject({ field: 'CreateMerchantRequest.name', code: 'format' });
    const nested = await gw.admin('POST', '/merchants', { name: 'ok', ip_whitelist: ['1.2.3.4', 'x\u0000'] });
    expect(nested.body.data[0].field).toBe('CreateMerchantRequest.ip_whitelist[1]');
    const query = await gw.app.inject({ method: 'GET', url: '/api/admin/merchants?limit=%00', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(query.statusCode).toBe(400);
    expect(query.json().data[0].field).toBe('limit');
  });

  it('unknown fields are ignored by the merchant API (forward compatible), refused by the operator API, never a 500', async () => {
    const m = await gw.createMerchant();
    const res = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: 'extra-1', something_new: { deep: [1, 2] } });
    expect(res.status).toBe(200);
    const op = await gw.admin('POST', '/merchants', { name: 'extra', something_new: { deep: [1, 2] } });
    expect(op.status).toBe(400);
    expect(op.body.data).toEqual([{ field: 'CreateMerchantRequest.something_new', code: 'unknown', message: 'something_new is not a known field' }]);
  });

  it('path ids out of range are validation errors', async () => {
    for (const id of ['0', '-1', 'abc', '99999999999999999999']) {
      const res = await gw.admin('GET', `/merchants/${id}`);
      expect(res.status, id).toBe(400);
    }
    expect((await gw.admin('GET', '/merchants/424242')).status).toBe(404);
  });

  it('every answer carries an x-request-id', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });
});

describe('a thrown bug is a 500 internal error with nothing leaked', () => {
  it('answers 500 internal error when the database breaks underneath', async () => {
    const broken = await startTestGateway({}, { worker: false });
    try {
      const m = await broken.createMerchant();
      await sql`alter table balances rename column available to available_gone`.execute(broken.ctx.db);
      const res = await broken.merchant(m.api_key, 'GET', '/balance');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, message: 'internal error' });
      expect(JSON.stringify(res.body)).not.toMatch(/available_gone|column|sql/i);
    } finally {
      await broken.stop();
    }
  });
});

describe('operational endpoints', () => {
  it('healthz and readyz', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await gw.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data.database).toBe('ok');
  });

  it('/metrics is Prometheus text with request counters, latency and queue depth', async () => {
    await gw.app.inject({ method: 'GET', url: '/healthz' });
    const res = await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('gateway_http_requests_total{method="GET",route="/healthz",status="200"}');
    expect(res.body).toContain('gateway_http_request_duration_seconds_bucket');
    expect(res.body).toContain('# TYPE gateway_job_queue_depth gauge');
    expect(res.body).toContain('gateway_webhook_events_undelivered{state="exhausted"} 0');
  });

  it('/metrics counts each answer once by method, route and status, with a cumulative latency histogram', async () => {
    const scrape = async () => (await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}()[\]|+.]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    const before = await scrape();
    for (let i = 0; i < 3; i++) await gw.app.inject({ method: 'GET', url: '/readyz' });
    await gw.app.inject({ method: 'GET', url: '/no-such-route' });
    const after = await scrape();
    const ok = 'gateway_http_requests_total{method="GET",route="/readyz",status="200"}';
    expect(value(after, ok) - value(before, ok)).toBe(3);
    const unmatched = 'gateway_http_requests_total{method="GET",route="unmatched",status="404"}';
    expect(value(after, unmatched) - value(before, unmatched)).toBe(1);
    expect(after).toContain('# TYPE gateway_http_request_duration_seconds histogram');
    const h = (le: string) => value(after, `gateway_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/readyz"}`);
    const count = value(after, 'gateway_http_request_duration_seconds_count{method="GET",route="/readyz"}');
    expect(count).toBeGreaterThanOrEqual(3);
    expect(h('+Inf')).toBe(count);
    const les = ['0.002', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
    for (let i = 1; i < les.length; i++) expect(h(les[i])).toBeGreaterThanOrEqual(h(les[i - 1]));
    expect(value(after, 'gateway_http_request_duration_seconds_sum{method="GET",route="/readyz"}')).toBeGreaterThan(0);
  });

  it('/openapi.json documents the merchant and admin routes; /docs serves the UI', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/api/v1/merchant/balance']).toBeDefined();
    expect(doc.paths['/api/admin/merchants']).toBeDefined();
    const docs = await gw.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBeLessThan(400);
  });
});

describe('logs', () => {
  it('mask hosted page tokens in request URLs', async () => {
    const { maskTokens } = await import('../../src/assembly/server.js');
    expect(maskTokens('/deposit/abcDEF123_-xyz')).toBe('/deposit/***');
    expect(maskTokens('/api/v1/hosted/abcDEF123/status?x=1')).toBe('/api/v1/hosted/***/status?x=1');
    expect(maskTokens('/api/v1/merchant/balance')).toBe('/api/v1/merchant/balance');
  });
});
