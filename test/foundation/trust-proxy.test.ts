import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';

let direct: TestGateway;
let proxied: TestGateway;
beforeAll(async () => {
  direct = await startTestGateway({}, { worker: false });
  proxied = await startTestGateway({ TRUST_PROXY: '127.0.0.1' }, { worker: false, databaseUrl: direct.databaseUrl });
});
afterAll(async () => {
  await proxied?.stop();
  await direct?.stop();
});

describe('IP whitelist behind a proxy (TRUST_PROXY)', () => {
  it('without TRUST_PROXY, X-Forwarded-For is ignored: the socket address decides', async () => {
    const m = await direct.createMerchant({ ip_whitelist: ['203.0.113.7'] });
    const res = await direct.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': m.api_key, 'x-forwarded-for': '203.0.113.7' }, remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('IP not whitelisted: 127.0.0.1');
  });

  it('with TRUST_PROXY naming the proxy, the forwarded client address is checked', async () => {
    const m = await proxied.createMerchant({ ip_whitelist: ['203.0.113.7'] });
    const ok = await proxied.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': m.api_key, 'x-forwarded-for': '203.0.113.7' }, remoteAddress: '127.0.0.1' });
    expect(ok.statusCode).toBe(200);
    const other = await proxied.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': m.api_key, 'x-forwarded-for': '198.51.100.1' }, remoteAddress: '127.0.0.1' });
    expect(other.statusCode).toBe(403);
    expect(other.json().message).toBe('IP not whitelisted: 198.51.100.1');
  });

  it('a client that is not the trusted proxy cannot spoof X-Forwarded-For', async () => {
    const m = await proxied.createMerchant({ ip_whitelist: ['203.0.113.7'] });
    const res = await proxied.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': m.api_key, 'x-forwarded-for': '203.0.113.7' }, remoteAddress: '198.51.100.9' });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('IP not whitelisted: 198.51.100.9');
  });
});
