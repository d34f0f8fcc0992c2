// A POST without a body but with `Content-Type: application/json` (many HTTP clients send the header
// on every POST) is read as {} where the body is optional, and still refused where it is required.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let merchant: { id: number; api_key: string };
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  merchant = await gw.createMerchant();
});
afterAll(async () => gw?.stop());

const post = (path: string, headers: Record<string, string>, body?: string) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('bodiless POST with Content-Type: application/json', () => {
  it('rotate-key answers 200 with a new key', async () => {
    const res = await post(`/api/admin/merchants/${merchant.id}/rotate-key`, admin);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.api_key).toMatch(/^sk_/);
    merchant.api_key = body.data.api_key;
  });

  it('rotate-webhook-secret and a withdrawal transition read it as {} too', async () => {
    expect((await post(`/api/admin/merchants/${merchant.id}/rotate-webhook-secret`, admin)).status).toBe(200);
    // An unknown withdrawal: the route ran (404), the body was not refused (400).
    const res = await post('/api/admin/withdrawals/999999/complete', admin);
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe('not found error');
  });

  it('a sandbox helper runs its action (here: 404 for an unknown deposit, not 400 invalid request body)', async () => {
    const res = await post('/api/v1/merchant/sandbox/deposit/999999/accept', { 'x-api-key': merchant.api_key });
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe('not found error');
  });

  it('a route whose body is required still answers 400 invalid request body', async () => {
    const res = await post('/api/v1/merchant/create-deposit', { 'x-api-key': merchant.api_key });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, message: 'invalid request body' });
  });

  it('malformed JSON on an optional-body route is still 400 invalid request body', async () => {
    const res = await post(`/api/admin/merchants/${merchant.id}/rotate-key`, admin, '{');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, message: 'invalid request body' });
  });

  it('a JSON body is still read on an optional-body route (sandbox accept with a bad hold)', async () => {
    const res = await post('/api/v1/merchant/sandbox/deposit/999999/accept', { 'x-api-key': merchant.api_key }, '{"hold":"yes"}');
    expect(res.status).toBe(400);
    expect((await res.json()).data[0]).toMatchObject({ field: 'SandboxDepositRequest.hold', code: 'type' });
  });

  it('a JSON prototype-poisoning body is still refused', async () => {
    const res = await post(`/api/admin/merchants/${merchant.id}/rotate-key`, admin, '{"__proto__":{"x":1}}');
    expect(res.status).toBe(400);
  });
});
