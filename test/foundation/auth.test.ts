import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;

beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'Auth merchant' });
});
afterAll(async () => gw?.stop());

describe('merchant authentication (spec 5)', () => {
  it('401 missing authorization header without X-Api-Key', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, message: 'missing authorization header' });
  });

  it('401 invalid API key for an unknown key', async () => {
    const res = await gw.merchant('sk_not-a-real-key', 'GET', '/balance');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'invalid API key' });
  });

  it('does not accept the Authorization: Bearer scheme', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { authorization: `Bearer ${m.api_key}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('missing authorization header');
  });

  it('answers the balance with a valid key', async () => {
    const res = await gw.merchant(m.api_key, 'GET', '/balance');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe('balance retrieved');
    expect(res.body.data).toEqual({ total: 0, hold: 0, available: 0 });
  });

  it('401 before validation: auth errors win over bad bodies', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    expect(res.statusCode).toBe(401);
  });

  it('403 merchant account is disabled, and works again when re-enabled', async () => {
    const other = await gw.createMerchant({ name: 'Disabled' });
    expect((await gw.admin('PATCH', `/merchants/${other.id}`, { enabled: false })).status).toBe(200);
    const res = await gw.merchant(other.api_key, 'GET', '/balance');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, message: 'merchant account is disabled' });
    await gw.admin('PATCH', `/merchants/${other.id}`, { enabled: true });
    expect((await gw.merchant(other.api_key, 'GET', '/balance')).status).toBe(200);
  });

  it('IP whitelist: exact addresses, others get 403 IP not whitelisted: <ip>', async () => {
    const w = await gw.createMerchant({ name: 'Whitelisted', ip_whitelist: ['10.1.2.3'] });
    const denied = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': w.api_key }, remoteAddress: '10.1.2.4' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ success: false, message: 'IP not whitelisted: 10.1.2.4' });
    const allowed = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': w.api_key }, remoteAddress: '10.1.2.3' });
    expect(allowed.statusCode).toBe(200);
    // IPv4-mapped IPv6 is the same client
    const mapped = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': w.api_key }, remoteAddress: '::ffff:10.1.2.3' });
    expect(mapped.statusCode).toBe(200);
  });

  it('an empty whitelist allows any IP', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': m.api_key }, remoteAddress: '203.0.113.9' });
    expect(res.statusCode).toBe(200);
  });

  it('rejects CIDR ranges in the whitelist with a validation error', async () => {
    const res = await gw.admin('POST', '/merchants', { name: 'x', ip_whitelist: ['10.0.0.0/8'] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data[0]).toMatchObject({ field: 'ip_whitelist[0]', code: 'ip' });
  });

  it('a rotated key stops working at once; the new one works', async () => {
    const r = await gw.createMerchant({ name: 'Rotating' });
    const rotated = await gw.admin('POST', `/merchants/${r.id}/rotate-key`);
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.data.api_key as string;
    expect(newKey).not.toBe(r.api_key);
    expect((await gw.merchant(r.api_key, 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(newKey, 'GET', '/balance')).status).toBe(200);
  });

  it('a rotated key stops working on a second instance sharing the database', async () => {
    const second = await startTestGateway({}, { databaseUrl: gw.databaseUrl, worker: false });
    try {
      const r = await gw.createMerchant({ name: 'Two instances' });
      expect((await second.merchant(r.api_key, 'GET', '/balance')).status).toBe(200);
      await gw.admin('POST', `/merchants/${r.id}/rotate-key`);
      // the second instance's key cache is told by NOTIFY, which crosses a socket: a moment
      await eventually(async () => (await second.merchant(r.api_key, 'GET', '/balance')).status === 401, 1000, 5);
    } finally {
      await second.stop();
    }
  });

  it('keys are random, at least 32 bytes, and stored only as a hash', async () => {
    const a = await gw.createMerchant();
    const b = await gw.createMerchant();
    expect(a.api_key).not.toBe(b.api_key);
    expect(Buffer.from(a.api_key.replace(/^sk_/, ''), 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(a.webhook_secret.replace(/^whsec_/, ''), 'base64url').length).toBeGreaterThanOrEqual(32);
    const rows = await gw.ctx.db.selectFrom('merchants').selectAll().where('id', '=', a.id).execute();
    expect(JSON.stringify(rows)).not.toContain(a.api_key);
    const fetched = await gw.admin('GET', `/merchants/${a.id}`);
    expect(JSON.stringify(fetched.body)).not.toContain(a.api_key);
    expect(JSON.stringify(fetched.body)).not.toContain(a.webhook_secret);
  });
});

describe('operator authentication', () => {
  it('401 without a bearer token and with a wrong one', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/api/admin/merchants' })).statusCode).toBe(401);
    const wrong = await gw.app.inject({ method: 'GET', url: '/api/admin/merchants', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ success: false, message: 'invalid admin token' });
  });
  it('a merchant API key is not an admin token', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/api/admin/merchants', headers: { authorization: `Bearer ${m.api_key}` } });
    expect(res.statusCode).toBe(401);
  });
});
