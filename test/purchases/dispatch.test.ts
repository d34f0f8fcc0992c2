// Dispatch is retry-safe (marker before sending, idempotent sandbox send), a purchase stuck in
// pending is failed gateway_too_slow and refunded by the watchdog, and platform strings lose NUL.
// No job worker here: the tests run dispatch and the watchdog by hand, with a movable clock.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { failRecording, installRecordFault } from './record-fault.js';
import { OffsetClock } from '../../src/domain/clock.js';
import { createPurchaseService, dispatchInFlightMs, pendingLimitMs } from '../../src/modules/purchases/purchase-service.js';
import type { TradingPlatform } from '../../src/platform/port.js';

let gw: TestGateway;
let m: { id: number; api_key: string; webhook_secret: string };
const clock = new OffsetClock();
const USER = { partner: 23456789, token: 'dispatch' };
const ATTEMPT = (n: number) => ({ attempts: n, maxAttempts: 5 });

beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: false, clock });
  m = await gw.createMerchant({ name: 'Dispatch', webhook_url: 'http://127.0.0.1:9/hook' });
  await gw.topUp(m.id, 10_000);
  await installRecordFault(gw.ctx.db);
});
afterAll(async () => gw?.stop());

const used = new Set<string>();
async function buy(extra: Record<string, unknown> = {}) {
  const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string; price: number }>;
  const l = items.find((i) => !used.has(i.id))!;
  used.add(l.id);
  const res = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id, ...extra });
  expect(res.body.data.status).toBe('pending');
  return { p: res.body.data as { id: number; amount: number }, l };
}
const row = (id: number) => gw.ctx.db.selectFrom('purchases').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const sandboxOffers = async (id: number) =>
  (await sql<{ trade_offer_id: string }>`select trade_offer_id from sandbox_purchase_offers where purchase_id = ${id}`.execute(gw.ctx.db)).rows;
const available = async () => (await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available as number;
const listingStatus = async (id: string) => (await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

describe('sandbox sendPurchaseOffer', () => {
  it('is idempotent per purchase: the same offer again, another purchase gets another', async () => {
    const req = { purchaseId: 900001, game: 'csgo' as const, partner: USER.partner, token: USER.token, listingId: 'abc' };
    const a = await gw.ctx.platform.sendPurchaseOffer(req);
    const b = await gw.ctx.platform.sendPurchaseOffer(req);
    expect(b).toEqual(a);
    const [c, d] = await Promise.all([900002, 900002].map((purchaseId) => gw.ctx.platform.sendPurchaseOffer({ ...req, purchaseId })));
    expect(d.tradeOfferId).toBe(c.tradeOfferId);
    expect(c.tradeOfferId).not.toBe(a.tradeOfferId);
  });
});

describe('purchase dispatch', () => {
  it('offer sent but recording it failed: the retry adopts the first offer, never sends a second', async () => {
    const { p } = await buy();
    await sql`create sequence test_once_a`.execute(gw.ctx.db);
    await failRecording(gw.ctx.db, p.id, 'test_once_a');

    await expect(gw.ctx.purchases.dispatch(p.id, ATTEMPT(1))).rejects.toThrow(/injected/);
    const afterFirst = await row(p.id);
    expect(afterFirst).toMatchObject({ status: 'pending', dispatch_attempts: 1, trade_offer_id: null });
    expect(afterFirst.dispatch_started_at).not.toBeNull();
    const sent = await sandboxOffers(p.id);
    expect(sent.length).toBe(1);

    await gw.ctx.purchases.dispatch(p.id, ATTEMPT(2));
    const active = await row(p.id);
    expect(active).toMatchObject({ status: 'active', dispatch_attempts: 2, trade_offer_id: sent[0].trade_offer_id });
    expect(await sandboxOffers(p.id)).toEqual(sent);

    // a late duplicate run of the job: not pending any more, nothing sent, nothing counted
    await gw.ctx.purchases.dispatch(p.id, ATTEMPT(3));
    expect((await row(p.id)).dispatch_attempts).toBe(2);
  });

  it('a purchase that is no longer pending is never sent', async () => {
    const { p } = await buy();
    await gw.ctx.purchases.applyEvent(p.id, 'cancel');
    await gw.ctx.purchases.dispatch(p.id, ATTEMPT(1));
    expect(await sandboxOffers(p.id)).toEqual([]);
    expect((await row(p.id)).dispatch_attempts).toBe(0);
  });
});

describe('pending watchdog (the dispatcher\'s sweep)', () => {
  it('is no job: the dispatcher sweeps for purchases pending past pendingLimitMs and fails them, not before', async () => {
    const { p } = await buy();
    await gw.flushJobs();
    const job = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where key like ${`%:${p.id}`}`.execute(gw.ctx.db);
    expect(job.rows[0].n).toBe(0);
    expect(pendingLimitMs(gw.ctx.config)).toBeGreaterThanOrEqual(2 * gw.ctx.config.depositTimeoutMs + 60_000);
    expect(pendingLimitMs(gw.ctx.config)).toBeLessThanOrEqual(10 * 60_000);
    const dispatcher = gw.ctx.purchases.dispatcher;
    const created = new Date((await row(p.id)).created_at).getTime();
    clock.advance(created + pendingLimitMs(gw.ctx.config) - 1000 - clock.now().getTime());
    await dispatcher.sweep();
    expect((await row(p.id)).status).toBe('pending'); // a second early
    clock.advance(2000);
    await dispatcher.sweep();
    expect(await row(p.id)).toMatchObject({ status: 'failed', fail_reason: 'gateway_too_slow', dispatch_attempts: 0 });
  });

  it('the last attempt cannot record its offer → stuck pending → failed gateway_too_slow, refunded, listing back on sale', async () => {
    const before = await available();
    const { p, l } = await buy({ merchant_tx_id: 'stuck-1' });
    expect(await available()).toBeCloseTo(before - l.price, 3);
    await failRecording(gw.ctx.db, p.id);
    for (let n = 1; n <= 5; n++) await expect(gw.ctx.purchases.dispatch(p.id, ATTEMPT(n))).rejects.toThrow(/injected/);
    expect(await row(p.id)).toMatchObject({ status: 'pending', dispatch_attempts: 5 });
    expect((await sandboxOffers(p.id)).length).toBe(1); // one offer for five attempts

    // not yet: the watchdog comes back at its time
    expect(await gw.ctx.purchases.failIfStuckPending(p.id)).toEqual({ retryAt: expect.any(Date) });
    await gw.ctx.purchases.dispatcher.sweep();
    expect((await row(p.id)).status).toBe('pending');

    clock.advance(pendingLimitMs(gw.ctx.config) + 1000);
    await gw.ctx.purchases.dispatcher.sweep();
    const failed = await gw.merchant(m.api_key, 'GET', '/purchase/status?merchant_tx_id=stuck-1');
    expect(failed.body.data).toMatchObject({ status: 'failed', fail_reason: 'gateway_too_slow', amount: l.price });
    expect(await available()).toBeCloseTo(before, 3);
    expect(await listingStatus(l.id)).toBe('live');
    const ledger = await gw.ctx.db.selectFrom('ledger_entries').select(['key', 'available_delta']).where('ref_type', '=', 'purchase').where('ref_id', '=', p.id).orderBy('id').execute();
    expect(ledger.map((e) => e.key)).toEqual([`purchase:${p.id}:reserve`, `purchase:${p.id}:refund`]);
    const hooks = await gw.ctx.db.selectFrom('webhook_events').select(['status', 'payload']).where('kind', '=', 'purchase').where('record_id', '=', p.id).execute();
    expect(hooks.map((h) => h.status)).toEqual(['failed']);
    expect((hooks[0].payload as any).fail_reason).toBe('gateway_too_slow');

    // repeats are no-ops; a late dispatch sends nothing
    expect(await gw.ctx.purchases.failIfStuckPending(p.id)).toBe('done');
    await gw.ctx.purchases.dispatch(p.id, ATTEMPT(5));
    expect((await row(p.id)).dispatch_attempts).toBe(5);
  });

  it('never fails a purchase while a dispatch attempt may be in flight; leaves other statuses alone', async () => {
    const { p } = await buy();
    clock.advance(pendingLimitMs(gw.ctx.config) + 1000);
    // an attempt started just now (the worker was late): wait for it
    const started = clock.now();
    await sql`update purchases set dispatch_attempts = 1, dispatch_started_at = ${started.toISOString()}::timestamptz where id = ${p.id}`.execute(gw.ctx.db);
    const r = await gw.ctx.purchases.failIfStuckPending(p.id);
    expect(r).not.toBe('done');
    expect((r as { retryAt: Date }).retryAt.getTime()).toBe(started.getTime() + dispatchInFlightMs(gw.ctx.config));
    expect((await row(p.id)).status).toBe('pending');
    // the sweep leaves it for that time
    await gw.ctx.purchases.dispatcher.sweep();
    expect((await row(p.id)).status).toBe('pending');
    clock.advance(dispatchInFlightMs(gw.ctx.config) + 1000);
    expect(await gw.ctx.purchases.failIfStuckPending(p.id)).toBe('done');
    expect(await row(p.id)).toMatchObject({ status: 'failed', fail_reason: 'gateway_too_slow' });

    // an active purchase is not the watchdog's business
    const { p: q } = await buy();
    await gw.ctx.purchases.dispatch(q.id, ATTEMPT(1));
    clock.advance(pendingLimitMs(gw.ctx.config) * 2);
    expect(await gw.ctx.purchases.failIfStuckPending(q.id)).toBe('done');
    expect((await row(q.id)).status).toBe('active');
  });
});

describe('platform-supplied strings', () => {
  it('NUL characters in the platform name and avatar are stripped before storing', async () => {
    const platform: TradingPlatform = {
      ...gw.ctx.platform,
      checkTradeLink: async (_game, partner, token) => ({ partner, token, platformId: '76561198000000001', name: 'Jo\u0000hn\u0000', avatarUrl: '\u0000' }),
    };
    const svc = createPurchaseService({ config: gw.ctx.config, db: gw.ctx.db, clock, log: gw.ctx.log, platform });
    const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string }>;
    const l = items.find((i) => !used.has(i.id))!;
    used.add(l.id);
    const { purchase } = await svc.create({ id: m.id, purchase_markup: 1 }, { ...USER, game: 'csgo', asset_id: l.id });
    expect(purchase.status).toBe('pending');
    expect(purchase.platform_name).toBe('John');
    expect(purchase).not.toHaveProperty('platform_avatar_url');
    expect(await row(purchase.id)).toMatchObject({ platform_name: 'John', platform_avatar_url: null });
  });
});
