// A disabled merchant, everywhere (issue 21; src/modules/merchants/disabled.ts): API 403, hosted pages
// 403, dashboard read-only for its users (their own account still theirs), console unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, text, WebClient } from './web-client.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
let owner: WebClient;
let hostedToken: string;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'Frozen' });
  await gw.topUp(m.id, 100);
  const intent = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: 'frozen-1', game: 'csgo', partner: 12345678, token: 'abcdefgh' });
  hostedToken = new URL(intent.body.data.url).pathname.split('/').pop()!;
  owner = await userOf(gw, m.id, 'owner@frozen.example', 'owner');
  expect((await gw.admin('PATCH', `/merchants/${m.id}`, { enabled: false })).status).toBe(200);
});
afterAll(async () => gw?.stop());

describe('a disabled merchant', () => {
  it('API keys answer 403 merchant account is disabled', async () => {
    const r = await gw.merchant(m.api_key, 'GET', '/balance');
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('merchant account is disabled');
  });

  it('hosted pages answer 403: the page, its state and its actions', async () => {
    const page = await fetch(`${gw.url}/deposit/${hostedToken}`);
    expect(page.status).toBe(403);
    const state = await fetch(`${gw.url}/api/v1/hosted/${hostedToken}`);
    expect(state.status).toBe(403);
    expect(((await state.json()) as { message: string }).message).toBe('merchant account is disabled');
  });

  it('dashboard: reads work; withdrawal, key rotation, secret rotation and team changes are refused; the own account is not', async () => {
    expect((await owner.get('/dashboard')).status).toBe(200);
    expect((await owner.get('/dashboard/ledger.csv')).status).toBe(200);
    for (const [page, action, form] of [
      ['/dashboard/withdrawals', '/dashboard/withdrawals', { amount: '1' }],
      ['/dashboard/developers', '/dashboard/developers/rotate-key', {}],
      ['/dashboard/webhooks', '/dashboard/webhooks/rotate-secret', {}],
      ['/dashboard/team', '/dashboard/team/invite', { email: 'new@frozen.example', role: 'viewer' }],
    ] as [string, string, Record<string, string>][]) {
      await owner.get(page);
      const r = await owner.post(action, form);
      expect(r.status, action).toBe(403);
      expect(text(r.body)).toContain('merchant account is disabled');
    }
    const bal = await gw.admin('GET', `/merchants/${m.id}`);
    expect(bal.body.data.balance.available).toBe(100); // nothing left
    await owner.get('/dashboard/account');
    expect((await owner.post('/dashboard/account/totp/start')).status).toBe(200);
  });

  it('enabled again, the same actions work', async () => {
    expect((await gw.admin('PATCH', `/merchants/${m.id}`, { enabled: true })).status).toBe(200);
    await owner.get('/dashboard/withdrawals');
    expect((await owner.post('/dashboard/withdrawals', { amount: '1' })).status).toBe(200);
    expect((await fetch(`${gw.url}/api/v1/hosted/${hostedToken}`)).status).toBe(200);
  });
});

describe('unknown dashboard and console paths', () => {
  it('answer an HTML 404 with the pages\' security headers', async () => {
    for (const path of ['/dashboard/nope', '/dashboard/deposits/1/nope', '/console/nope']) {
      for (const method of ['GET', 'POST'] as const) {
        const r = await gw.app.inject({ method, url: path });
        expect(r.statusCode, `${method} ${path}`).toBe(404);
        expect(r.headers['content-security-policy'], path).toContain("default-src 'none'");
        expect(r.headers['x-frame-options']).toBe('DENY');
        expect(r.headers['cache-control']).toBe('no-store');
        expect(String(r.headers['content-type'])).toContain('text/html');
      }
    }
  });
});
