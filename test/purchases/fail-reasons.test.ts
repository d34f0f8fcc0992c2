// Purchase fail reasons of spec 3.3 after creation that need the platform's help to reach:
// canceled_by_gateway (sandbox helper cancel), trade_url_error (partner 90000011: the trade link
// checks out at creation, sending the offer is refused), timeout_error (partner 90000012: the
// platform never answers the offer; the last attempt's call timeout ends it), and gateway_too_slow
// for any other error on the last attempt. No job worker: dispatch runs by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { createPurchaseService } from '../../src/modules/purchases/purchase-service.js';
import { PlatformUserError, type TradingPlatform } from '../../src/platform/port.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
const USER = { partner: 24681357, token: 'failfail' };
const ATTEMPT = (n: number) => ({ attempts: n, maxAttempts: 5 });

beforeAll(async () => {
  gw = await startTestGateway({ DEPOSIT_TIMEOUT_MS: '200', WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: false });
  m = await gw.createMerchant({ name: 'Fail reasons', webhook_url: 'http://127.0.0.1:9/hook' });
  await gw.topUp(m.id, 10_000);
});
afterAll(async () => gw?.stop());

const used = new Set<string>();
async function buy(user: { partner: number; token: string } = USER) {
  const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string; price: number }>;
  const l = items.find((i) => !used.has(i.id))!;
  used.add(l.id);
  const res = await gw.merchant(m.api_key, 'POST', '/purchase', { ...user, game: 'csgo', asset_id: l.id });
  expect(res.status).toBe(200);
  expect(res.body.data.status).toBe('pending');
  return { id: res.body.data.id as number, l };
}
const status = async (id: number) => (await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${id}`)).body.data;
const available = async () => (await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available as number;
const listingStatus = async (id: string) => (await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const hooks = (id: number) =>
  gw.ctx.db.selectFrom('webhook_events').select(['status', 'payload']).where('kind', '=', 'purchase').where('record_id', '=', id).orderBy('id').execute();
const cancel = (id: number, key = m.api_key) => gw.merchant(key, 'POST', `/sandbox/purchase/${id}/cancel`);

/** Ends failed/canceled with `reason`: full amount back, listing live again, one webhook. */
async function expectRefunded(id: number, listingId: string, before: number, want: { status: string; fail_reason: string }) {
  expect(await status(id)).toMatchObject(want);
  expect(await available()).toBeCloseTo(before, 3);
  expect(await listingStatus(listingId)).toBe('live');
  const ledger = await gw.ctx.db.selectFrom('ledger_entries').select('key').where('ref_type', '=', 'purchase').where('ref_id', '=', id).orderBy('id').execute();
  expect(ledger.map((e) => e.key)).toEqual([`purchase:${id}:reserve`, `purchase:${id}:refund`]);
  expect((await hooks(id)).map((h) => h.status).filter((s) => s !== 'active')).toEqual([want.status]);
}

describe('canceled_by_gateway: sandbox helper cancel', () => {
  it('pending → canceled canceled_by_gateway: refunded, listing back on sale; the dispatch then sends nothing', async () => {
    const before = await available();
    const { id, l } = await buy();
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('purchase');
    expect(res.body.data).toMatchObject({ id, status: 'canceled', fail_reason: 'canceled_by_gateway' });
    await expectRefunded(id, l.id, before, { status: 'canceled', fail_reason: 'canceled_by_gateway' });
    await gw.ctx.purchases.dispatch(id, ATTEMPT(1));
    expect((await status(id)).status).toBe('canceled');
  });

  it('active → canceled canceled_by_gateway; terminal → 409; another merchant → 404', async () => {
    const before = await available();
    const { id, l } = await buy();
    await gw.ctx.purchases.dispatch(id, ATTEMPT(1));
    expect((await status(id)).status).toBe('active');
    const other = await gw.createMerchant({ name: 'Other' });
    expect((await cancel(id, other.api_key)).status).toBe(404);
    expect((await cancel(id)).body.data).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_gateway' });
    await expectRefunded(id, l.id, before, { status: 'canceled', fail_reason: 'canceled_by_gateway' });
    const again = await cancel(id);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('invalid transition');

    const { id: done } = await buy();
    await gw.ctx.purchases.dispatch(done, ATTEMPT(1));
    await gw.merchant(m.api_key, 'POST', `/sandbox/purchase/${done}/accept`, { hold: true });
    expect((await cancel(done)).status).toBe(409); // a hold is not canceled: it is reverted
    expect((await status(done)).status).toBe('hold');
  });
});

describe('trade_url_error: partner 90000011 (trade link reset after the purchase was created)', () => {
  it('the sandbox checks the link fine, refuses the offer with trade_link_revoked', async () => {
    const p = gw.ctx.platform;
    await expect(p.checkTradeLink('csgo', 90000011, 'abcdefgh')).resolves.toMatchObject({ partner: 90000011 });
    await expect(p.loadInventory('csgo', 90000011, 'abcdefgh')).resolves.toEqual(expect.any(Array));
    const req = { game: 'csgo' as const, partner: 90000011, token: 'abcdefgh' };
    await expect(p.sendPurchaseOffer({ ...req, purchaseId: 1, listingId: 'x' })).rejects.toMatchObject({ code: 'trade_link_revoked' });
    await expect(p.sendDepositOffer({ ...req, depositId: 1, assets: [{ assetId: '1', marketHashName: 'x' }] })).rejects.toBeInstanceOf(PlatformUserError);
  });

  it('created pending, the first dispatch attempt ends it failed trade_url_error: refunded, listing back', async () => {
    const before = await available();
    const { id, l } = await buy({ partner: 90000011, token: 'abcdefgh' });
    await gw.ctx.purchases.dispatch(id, ATTEMPT(1));
    await expectRefunded(id, l.id, before, { status: 'failed', fail_reason: 'trade_url_error' });
    expect((await hooks(id))[0].payload).toMatchObject({ status: 'failed', fail_reason: 'trade_url_error' });
  });
});

describe('timeout_error: partner 90000012 (the platform never answers a purchase offer)', () => {
  it('each attempt times out and retries; the last one ends failed timeout_error, refunded', async () => {
    const before = await available();
    const { id, l } = await buy({ partner: 90000012, token: 'abcdefgh' });
    for (let n = 1; n <= 4; n++) {
      const t0 = Date.now();
      await expect(gw.ctx.purchases.dispatch(id, ATTEMPT(n))).rejects.toThrow(/did not answer within 200 ms/);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
      expect((await status(id)).status).toBe('pending');
    }
    await gw.ctx.purchases.dispatch(id, ATTEMPT(5));
    await expectRefunded(id, l.id, before, { status: 'failed', fail_reason: 'timeout_error' });
    const row = await gw.ctx.db.selectFrom('purchases').select(['dispatch_attempts', 'trade_offer_id']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ dispatch_attempts: 5, trade_offer_id: null });
    // the watchdog later finds nothing to do
    expect(await gw.ctx.purchases.failIfStuckPending(id)).toBe('done');
    expect((await status(id)).fail_reason).toBe('timeout_error');
  });

  it('any other error on the last attempt (not a platform timeout) → gateway_too_slow', async () => {
    const platform: TradingPlatform = {
      ...gw.ctx.platform,
      sendPurchaseOffer: async () => {
        throw new Error('something broke on our side');
      },
    };
    const svc = createPurchaseService({ config: gw.ctx.config, db: gw.ctx.db, clock: gw.ctx.clock, log: gw.ctx.log, platform });
    const before = await available();
    const { id, l } = await buy();
    await expect(svc.dispatch(id, ATTEMPT(4))).rejects.toThrow(/broke/);
    await svc.dispatch(id, ATTEMPT(5));
    await expectRefunded(id, l.id, before, { status: 'failed', fail_reason: 'gateway_too_slow' });
  });

  it('the books balance', async () => {
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });
});
