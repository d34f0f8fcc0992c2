// Webhook secrets the official Standard Webhooks library accepts (issue 21): real deliveries of
// real deposits, verified with the `standardwebhooks` npm package for several issued secrets,
// including ones whose base64url form would hold `-` or `_`; secrets issued before (base64url) keep
// verifying; and `sign` cannot be the same for a deposit and a purchase (one id sequence).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { startReceiver, verifySpecSign, verifyStandard, type Receiver } from './receiver.js';

let gw: TestGateway;
let rx: Receiver;
const user = { game: 'csgo', partner: 12345678, token: 'abcdefgh' };

beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_RETRY_SCHEDULE: '0,1' });
  rx = await startReceiver();
});
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

/** A real deposit of the merchant, accepted without hold: its `completed` webhook as received. */
async function completedDeposit(apiKey: string, path: string, txId: string) {
  const inv = await gw.merchant(apiKey, 'POST', '/inventory', user);
  const dep = await gw.merchant(apiKey, 'POST', '/create-deposit', { ...user, merchant_tx_id: txId, asset_ids: [inv.body.data.items[0].id] });
  expect(dep.body.data.status).toBe('active');
  expect((await gw.merchant(apiKey, 'POST', `/sandbox/deposit/${dep.body.data.id}/accept`, { hold: false })).status).toBe(200);
  return eventually(async () => rx.on(path).find((r) => r.body.trade_id === dep.body.data.id && r.body.status === 'completed'), 30_000);
}

describe('Standard Webhooks secrets', () => {
  it('issued secrets are whsec_ + standard base64; the official library verifies real deliveries, including secrets with + and /', async () => {
    const secrets: { id: number; api_key: string; webhook_secret: string }[] = [];
    // Keep issuing until the set holds a secret with '+' and one with '/' (each is in about 50 % of
    // secrets; base64url would have written them as '-' and '_'), and at least four in all.
    for (let i = 0; i < 40 && !(secrets.length >= 4 && secrets.some((s) => s.webhook_secret.includes('+')) && secrets.some((s) => s.webhook_secret.includes('/'))); i++) {
      secrets.push(await gw.createMerchant({ name: `Std ${i}`, webhook_url: rx.url(`/std/${i}`) }));
    }
    expect(secrets.some((s) => s.webhook_secret.includes('+'))).toBe(true);
    expect(secrets.some((s) => s.webhook_secret.includes('/'))).toBe(true);
    const chosen = [secrets.find((s) => s.webhook_secret.includes('+'))!, secrets.find((s) => s.webhook_secret.includes('/'))!, ...secrets.slice(0, 2)];
    for (const [i, m] of chosen.entries()) {
      expect(m.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const path = new URL((await gw.admin('GET', `/merchants/${m.id}`)).body.data.webhook_url).pathname;
      const got = await completedDeposit(m.api_key, path, `std-${i}-${m.id}`);
      const payload = new Webhook(m.webhook_secret).verify(got.raw, got.headers as Record<string, string>);
      expect(payload).toMatchObject({ trade_id: got.body.trade_id, status: 'completed' });
      expect(() => new Webhook(m.webhook_secret).verify(got.raw.replace('"completed"', '"canceled"'), got.headers as Record<string, string>)).toThrow();
    }
    // a rotated secret is of the same form
    const rotated = await gw.admin('POST', `/merchants/${chosen[0].id}/rotate-webhook-secret`);
    expect(rotated.body.data.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(() => new Webhook(rotated.body.data.webhook_secret)).not.toThrow();
  });

  it('a secret issued before (base64url, with - and _) keeps verifying: both signatures, and the library with the converted secret', async () => {
    const m = await gw.createMerchant({ name: 'Old secret', webhook_url: rx.url('/old') });
    let raw: Buffer;
    do raw = crypto.randomBytes(32);
    while (!/[-_]/.test(raw.toString('base64url')));
    const old = 'whsec_' + raw.toString('base64url');
    await sql`update merchants set webhook_secret = ${old} where id = ${m.id}`.execute(gw.ctx.db);
    const got = await completedDeposit(m.api_key, '/old', `old-${m.id}`);
    expect(verifySpecSign(got.body, old)).toBe(true);
    expect(verifyStandard(got, old)).toBe(true);
    const converted = 'whsec_' + Buffer.from(old.slice(6), 'base64url').toString('base64');
    expect(new Webhook(converted).verify(got.raw, got.headers as Record<string, string>)).toMatchObject({ status: 'completed' });
  });
});

describe('sign of a deposit and of a purchase', () => {
  it('deposits and purchases never share an id, so their signs never coincide', async () => {
    const m = await gw.createMerchant({ name: 'Ids' });
    await gw.topUp(m.id, 1000);
    const listings = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=1')).body.data.items;
    const depositIds: number[] = [];
    const purchaseIds: number[] = [];
    for (let i = 0; i < 3; i++) {
      const inv = await gw.merchant(m.api_key, 'POST', '/inventory', user);
      const dep = await gw.merchant(m.api_key, 'POST', '/create-deposit', { ...user, merchant_tx_id: `ids-d${i}`, asset_ids: [inv.body.data.items[i].id] });
      depositIds.push(dep.body.data.id);
      const buy = await gw.merchant(m.api_key, 'POST', '/purchase', { ...user, merchant_tx_id: `ids-p${i}`, asset_id: listings[i].id });
      expect(buy.status, JSON.stringify(buy.body)).toBe(200);
      purchaseIds.push(buy.body.data.id);
    }
    expect(depositIds.filter((id) => purchaseIds.includes(id))).toEqual([]);
    const all = await sql<{ id: number }>`select id from deposits intersect select id from purchases`.execute(gw.ctx.db);
    expect(all.rows).toEqual([]);
  });
});
