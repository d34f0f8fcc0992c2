// Purchase offers the gateway never recorded are withdrawn (port cancelOffer, job
// purchase_cancel_offer): sandbox partner 90000013 answers a new offer only after the dispatch's
// call timeout (DEPOSIT_TIMEOUT_MS) + a little. No job worker: dispatch and the cancel job run by hand.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { OffsetClock } from '../../src/domain/clock.js';
import { createPurchaseService, dispatchInFlightMs, pendingLimitMs } from '../../src/modules/purchases/purchase-service.js';
import type { TradingPlatform } from '../../src/platform/port.js';

const clock = new OffsetClock();
let gw: TestGateway;
let m: { id: number; api_key: string };
const LATE = { partner: 90000013, token: 'abcdefgh' };
const ATTEMPT = (n: number) => ({ attempts: n, maxAttempts: 5 });

beforeAll(async () => {
  gw = await startTestGateway({ DEPOSIT_TIMEOUT_MS: '200' }, { worker: false, clock });
  m = await gw.createMerchant({ name: 'Late purchase offers' });
  await gw.topUp(m.id, 10_000);
});
afterAll(async () => gw?.stop());

const used = new Set<string>();
async function buy(user: { partner: number; token: string }) {
  const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string }>;
  const l = items.find((i) => !used.has(i.id))!;
  used.add(l.id);
  const res = await gw.merchant(m.api_key, 'POST', '/purchase', { ...user, game: 'csgo', asset_id: l.id });
  expect(res.status).toBe(200);
  expect(res.body.data.status).toBe('pending');
  return res.body.data.id as number;
}
const status = async (id: number) => (await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${id}`)).body.data;
const sandboxOffer = async (id: number) =>
  (await sql<{ trade_offer_id: string; canceled_at: Date | null }>`select trade_offer_id, canceled_at from sandbox_purchase_offers where purchase_id = ${id}`.execute(gw.ctx.db)).rows[0];
/** The queued cancel job of a purchase (its key names the offer: purchase:<id>:cancel_offer:<offer>). */
const cancelJob = async (id: number) => {
  await gw.flushJobs();
  const row = (await sql<{ key: string }>`select key from graphile_worker.jobs where key like ${`purchase:${id}:cancel_offer:%`}`.execute(gw.ctx.db)).rows[0];
  return row && { payload: { trade_offer_id: row.key.split(':')[3] } };
};

describe('partner 90000013: a purchase offer answered after the dispatch timeout', () => {
  it('the last attempt times out → failed timeout_error; the late offer is then canceled', async () => {
    const id = await buy(LATE);
    await gw.ctx.purchases.dispatch(id, ATTEMPT(5));
    expect(await status(id)).toMatchObject({ status: 'failed', fail_reason: 'timeout_error' });
    // the offer still went out, late; a cancel job is queued for it
    const job = await eventually(() => cancelJob(id));
    const offer = await sandboxOffer(id);
    expect(job.payload.trade_offer_id).toBe(offer.trade_offer_id);
    expect(offer.canceled_at).toBeNull();
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(id, offer.trade_offer_id)).toBe('done');
    expect((await sandboxOffer(id)).canceled_at).toBeInstanceOf(Date);
    // a repeat (the job retried) changes nothing
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(id, offer.trade_offer_id)).toBe('done');
    const st = await status(id);
    expect(st).toMatchObject({ status: 'failed', fail_reason: 'timeout_error' });
    expect(st.trade_offer_id ?? null).toBeNull();
  });

  it('an early attempt times out, the next adopts the late offer: it stays (not canceled)', async () => {
    const id = await buy(LATE);
    await expect(gw.ctx.purchases.dispatch(id, ATTEMPT(1))).rejects.toThrow(/did not answer within 200 ms/);
    const job = await eventually(() => cancelJob(id));
    // still pending: the job waits for the purchase to settle
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(id, job.payload.trade_offer_id)).toMatchObject({ retryAt: expect.any(Date) });
    await gw.ctx.purchases.dispatch(id, ATTEMPT(2));
    expect(await status(id)).toMatchObject({ status: 'active', trade_offer_id: job.payload.trade_offer_id });
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(id, job.payload.trade_offer_id)).toBe('done');
    expect((await sandboxOffer(id)).canceled_at).toBeNull();
  });
});

describe('the watchdog failed the purchase while its offer was on its way', () => {
  it('offer_sent loses → the offer is canceled; the purchase stays failed gateway_too_slow', async () => {
    const platform: TradingPlatform = {
      ...gw.ctx.platform,
      sendPurchaseOffer: async (req) => {
        const offer = await gw.ctx.platform.sendPurchaseOffer(req);
        clock.advance(pendingLimitMs(gw.ctx.config) + dispatchInFlightMs(gw.ctx.config) + 1000);
        expect(await gw.ctx.purchases.failIfStuckPending(req.purchaseId)).toBe('done');
        return offer;
      },
    };
    const svc = createPurchaseService({ config: gw.ctx.config, db: gw.ctx.db, clock: gw.ctx.clock, log: gw.ctx.log, platform });
    const id = await buy({ partner: 24681358, token: 'lateoffr' });
    await svc.dispatch(id, ATTEMPT(1));
    const st = await status(id);
    expect(st).toMatchObject({ status: 'failed', fail_reason: 'gateway_too_slow' });
    expect(st.trade_offer_id ?? null).toBeNull();
    const job = await cancelJob(id);
    const offer = await sandboxOffer(id);
    expect(job.payload.trade_offer_id).toBe(offer.trade_offer_id);
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(id, offer.trade_offer_id)).toBe('done');
    expect((await sandboxOffer(id)).canceled_at).toBeInstanceOf(Date);
  });

  it('the books balance', async () => {
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });
});
