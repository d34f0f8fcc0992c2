// The webhooks section of the document is the truth: real webhook requests of deposits and
// purchases match the documented bodies exactly (no undocumented field), and the verification
// recipe printed in the document, run as it is, accepts both signatures.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { compileStrict } from './response-check.js';

let gw: TestGateway;
let rx: Receiver;
let doc: any;
let m: { id: number; api_key: string; webhook_secret: string };
beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_RETRY_SCHEDULE: '0,1' });
  rx = await startReceiver();
  doc = await (await fetch(`${gw.url}/openapi.json`)).json();
  m = await gw.createMerchant({ name: 'Hook shop', webhook_url: rx.url('/hooks') });
  await gw.topUp(m.id, 5000);
});
afterAll(async () => {
  await gw?.stop();
  await rx?.close();
});

const user = { game: 'csgo', partner: 12345678, token: 'abcdefgh' };

/** The JavaScript recipe of the document's Webhooks page, loaded as a module with the merchant's secret. */
async function documentedRecipe(secret: string) {
  const code = /```js\n([\s\S]*?)```/.exec(doc.info.description)?.[1];
  expect(code).toBeTruthy();
  const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'recipe-')), 'verify.mjs');
  await fs.writeFile(file, code!.replace('process.env.WEBHOOK_SECRET', JSON.stringify(secret)));
  return (await import(/* @vite-ignore */ file)) as { verifySign(body: unknown): boolean; verifyStandard(h: unknown, raw: string): boolean };
}

describe('webhooks as documented', () => {
  it('deposit (hold, completed) and purchase (active, completed, failed) bodies match the schemas; both signatures verify with the documented recipe', async () => {
    const inv = await gw.merchant(m.api_key, 'POST', '/inventory', user);
    const dep = await gw.merchant(m.api_key, 'POST', '/create-deposit', { ...user, merchant_tx_id: 'hook-dep', asset_ids: [inv.body.data.items[0].id] });
    expect(dep.body.data.status).toBe('active');
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${dep.body.data.id}/accept`, { hold: true })).status).toBe(200);
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${dep.body.data.id}/release`)).status).toBe(200);

    const buy = await gw.merchant(m.api_key, 'POST', '/purchase', { ...user, name: undefined, merchant_tx_id: 'hook-buy', ...(await cheapest()) });
    expect(buy.status).toBe(200);
    const purchaseId = buy.body.data.id;
    await eventually(async () => rx.received.some((r) => r.body.purchase_id === purchaseId && r.body.status === 'active'), 20_000);
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/purchase/${purchaseId}/accept`, { hold: false })).status).toBe(200);
    const failing = await gw.merchant(m.api_key, 'POST', '/purchase', { ...user, partner: 90000011, merchant_tx_id: 'hook-fail', ...(await cheapest()) });
    const failId = failing.body.data.id;

    await eventually(
      async () =>
        rx.received.some((r) => r.body.trade_id === dep.body.data.id && r.body.status === 'completed') &&
        rx.received.some((r) => r.body.purchase_id === purchaseId && r.body.status === 'completed') &&
        rx.received.some((r) => r.body.purchase_id === failId && r.body.status === 'failed'),
      20_000,
    );

    const depositSchema = compileStrict(doc, doc.components.schemas.DepositWebhook);
    const purchaseSchema = compileStrict(doc, doc.components.schemas.PurchaseWebhook);
    const recipe = await documentedRecipe(m.webhook_secret);
    const statuses: string[] = [];
    for (const r of rx.received) {
      const isDeposit = 'trade_id' in r.body;
      expect((isDeposit ? depositSchema : purchaseSchema)(r.body), r.raw).toBeUndefined();
      expect(recipe.verifySign(r.body), r.raw).toBe(true);
      expect(recipe.verifyStandard(r.headers, r.raw), r.raw).toBe(true);
      for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(r.headers[h]).toBeTruthy();
      statuses.push(`${isDeposit ? 'deposit' : 'purchase'}:${r.body.status}`);
    }
    expect(statuses).toEqual(expect.arrayContaining(['deposit:hold', 'deposit:completed', 'purchase:active', 'purchase:completed', 'purchase:failed']));
    expect(rx.received.find((r) => r.body.status === 'failed')!.body.fail_reason).toBe('trade_url_error');

    // The recipe refuses a tampered body and a wrong secret.
    const one = rx.received[0];
    expect(recipe.verifyStandard(one.headers, one.raw.replace('"amount":', '"amount": '))).toBe(false);
    expect((await documentedRecipe('whsec_' + Buffer.alloc(32, 1).toString('base64url'))).verifySign(one.body)).toBe(false);
  });
});

async function cheapest() {
  const page = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=1');
  return { asset_id: page.body.data.items[0].id as string };
}
