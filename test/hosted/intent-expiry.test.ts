// Issue 9 item 8: hosted links do not live forever. An intent's hosted page takes deposits for
// INTENT_TTL_SECONDS after create-intent; then the page says so and the hosted API refuses any
// deposit through it. An intent already in a deposit follows that deposit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../src/domain/clock.js';
import { loadConfig } from '../../src/config.js';
import { findById } from '../../src/modules/merchants/merchant-repo.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { describeError } from '../../src/modules/hosted-page/browser/messages.js';

const TTL = 600;
const clock = new OffsetClock();
let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let seq = 0;
const txId = () => `exp-${Date.now()}-${++seq}`;
const LINK = { partner: 41234567, token: 'AbCd1234', game: 'csgo' };

beforeAll(async () => {
  gw = await startTestGateway({ INTENT_TTL_SECONDS: String(TTL), QUOTE_TTL_SECONDS: '36000' }, { clock });
  m = await gw.createMerchant({ name: 'Expiring links' });
});
afterAll(async () => gw?.stop());

async function intent(body: Record<string, unknown> = {}) {
  const res = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: txId(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...res.body.data, token: new URL(res.body.data.url).pathname.split('/').pop()! } as { id: number; merchant_tx_id: string; token: string };
}
async function hosted(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await gw.app.inject({
    method,
    url: `/api/v1/hosted/${path}`,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
}
const EXPIRED = { field: 'intent', code: 'link_expired', message: 'this deposit link has expired; start the deposit again from the merchant site' };

describe('INTENT_TTL_SECONDS', () => {
  it('defaults to one day; must be a positive integer', () => {
    expect(loadConfig({}).intentTtlSeconds).toBe(86400);
    expect(loadConfig({ INTENT_TTL_SECONDS: '60' }).intentTtlSeconds).toBe(60);
    expect(() => loadConfig({ INTENT_TTL_SECONDS: '0' })).toThrow(/INTENT_TTL_SECONDS/);
    expect(() => loadConfig({ INTENT_TTL_SECONDS: 'soon' })).toThrow(/INTENT_TTL_SECONDS/);
  });
});

describe('an expired hosted link', () => {
  it('the state shows expires_at (create time + TTL) and expired false, then true one second past it', async () => {
    const t0 = clock.now().getTime();
    const i = await intent();
    const s = await hosted('GET', i.token);
    expect(s.status).toBe(200);
    expect(s.body.data.expired).toBe(false);
    const exp = Date.parse(s.body.data.expires_at);
    expect(exp - t0).toBeGreaterThanOrEqual(TTL * 1000);
    expect(exp - t0).toBeLessThan(TTL * 1000 + 5000);
    clock.advance(exp - clock.now().getTime() - 1000); // one second before: still usable
    expect((await hosted('GET', i.token)).body.data.expired).toBe(false);
    expect((await hosted('POST', `${i.token}/inventory`, LINK)).status).toBe(200);
    clock.advance(1000); // at the expiry instant: expired
    const after = await hosted('GET', i.token);
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ expired: true, status: 'new' });
  });

  it('refuses inventory and deposit with 400 link_expired; nothing is stored, the intent stays new; the page sentence says so', async () => {
    const i = await intent();
    // a snapshot taken while the link was valid
    const inv = await hosted('POST', `${i.token}/inventory`, LINK);
    expect(inv.status).toBe(200);
    const assetIds = inv.body.data.items.slice(0, 1).map((x: { id: string }) => x.id);
    clock.advance(TTL * 1000);
    const again = await hosted('POST', `${i.token}/inventory`, LINK);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ success: false, message: 'validation error', data: [EXPIRED] });
    const dep = await hosted('POST', `${i.token}/deposit`, { ...LINK, asset_ids: assetIds });
    expect(dep.status).toBe(400);
    expect(dep.body.data).toEqual([EXPIRED]);
    expect(describeError(dep.body, 400)).toBe('This deposit link has expired. Go back to the site you came from and start the deposit again.');
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${i.id}`);
    expect(st.body.data).toMatchObject({ status: 'new', trade_offer_id: null });
    const items = await gw.ctx.db.selectFrom('deposit_items').select('id').where('deposit_id', '=', i.id).execute();
    expect(items).toEqual([]);
  });

  it('the commit itself re-checks the expiry (a page loaded before, submitted after)', async () => {
    const i = await intent();
    const inv = await hosted('POST', `${i.token}/inventory`, LINK);
    const merchant = (await findById(gw.ctx.db, m.id))!;
    clock.advance(TTL * 1000);
    await expect(
      gw.ctx.deposits.createDeposit(merchant, { merchant_tx_id: i.merchant_tx_id, ...LINK, game: 'csgo', asset_ids: [inv.body.data.items[0].id] }, { intentId: i.id }),
    ).rejects.toMatchObject({ kind: 'validation', data: [EXPIRED] });
    expect((await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${i.id}`)).body.data.status).toBe('new');
  });

  it('an intent already in a deposit follows that deposit after the expiry', async () => {
    const i = await intent();
    const inv = await hosted('POST', `${i.token}/inventory`, LINK);
    const dep = await hosted('POST', `${i.token}/deposit`, { ...LINK, asset_ids: [inv.body.data.items[0].id] });
    expect(dep.body.data.status).toBe('active');
    clock.advance(TTL * 1000 + 1000);
    const s = await hosted('GET', i.token);
    expect(s.body.data).toMatchObject({ status: 'active', expired: false });
    // the user accepts after the link's expiry: the page follows the deposit to completed
    const acc = await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${i.id}/accept`, { hold: false });
    expect(acc.body.data.status).toBe('completed');
    expect((await hosted('GET', i.token)).body.data).toMatchObject({ status: 'completed', expired: false });
    // and a second deposit through it is still refused as already submitted
    const twice = await hosted('POST', `${i.token}/deposit`, { ...LINK, asset_ids: [inv.body.data.items[1].id] });
    expect(twice.body.data[0]).toMatchObject({ code: 'denied' });
  });

  it('the expiry is fixed at creation: intents created later get their own full TTL', async () => {
    const a = await intent();
    clock.advance((TTL - 10) * 1000);
    const b = await intent();
    clock.advance(20 * 1000);
    expect((await hosted('GET', a.token)).body.data.expired).toBe(true);
    expect((await hosted('GET', b.token)).body.data.expired).toBe(false);
  });
});
