// The purchase dispatcher (src/modules/purchases/dispatcher.ts): batched claims that are each
// purchase's dispatch marker and lease, concurrent sends, batched records. Two dispatchers (as two
// instances: separate in-memory state, one database) never send a purchase twice; one purchase's
// failure holds up no other; attempts, backoff and the last attempt's fail reason; a backlog is
// sent oldest first. No job worker: the tests drain dispatchers by hand, with a movable clock.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { failRecording, installRecordFault } from './record-fault.js';
import { createDispatchStage } from '../../src/modules/purchases/dispatch.js';
import { createCreationBatcher } from '../../src/modules/purchases/create-batcher.js';
import type { CreationInput } from '../../src/modules/purchases/create-repo.js';
import { createPurchaseDispatcher } from '../../src/modules/purchases/dispatcher.js';
import { createPurchaseTransitions } from '../../src/modules/purchases/purchase-transitions.js';
import { OffsetClock } from '../../src/domain/clock.js';
import { createPurchaseService } from '../../src/modules/purchases/purchase-service.js';
import { DISPATCH_CLAIM_BATCH, DISPATCH_MAX_ATTEMPTS, EXPIRY_LOOK_AGAIN_MAX_MS, EXPIRY_LOOK_AGAIN_MS } from '../../src/modules/purchases/purchase-jobs.js';
import { claimDuePurchases } from '../../src/modules/purchases/purchase-repo.js';
import { PlatformTimeoutError } from '../../src/platform/offers.js';
import { PlatformUnavailableError, type TradingPlatform } from '../../src/platform/port.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
const clock = new OffsetClock();
const USER = { partner: 23456789, token: 'dispatch' };

beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_ALLOW_PRIVATE: 'true', SANDBOX_CATALOGUE_SIZE: '1500' }, { worker: false, clock });
  m = await gw.createMerchant({ name: 'Dispatcher', webhook_url: 'http://127.0.0.1:9/hook' });
  await gw.topUp(m.id, 10_000_000);
  await installRecordFault(gw.ctx.db);
});
afterAll(async () => gw?.stop());

/** A service of its own (its own dispatcher: another instance, as far as the dispatcher knows). */
function instance(platform: TradingPlatform = gw.ctx.platform) {
  const svc = createPurchaseService({ config: gw.ctx.config, db: gw.ctx.db, clock, log: gw.ctx.log, platform });
  return { svc, dispatcher: svc.dispatcher };
}

/** Clears what earlier tests left pending, so each test's claims see only its own purchases. */
async function settleLeftovers() {
  await sql`update purchases set status = 'canceled', fail_reason = 'canceled_by_gateway' where status = 'pending'`.execute(gw.ctx.db);
}

async function buy(n: number): Promise<number[]> {
  const live = await sql<{ id: string; game: string }>`
    select id, game from listings where status = 'live' order by id limit ${n}`.execute(gw.ctx.db);
  expect(live.rows.length).toBe(n);
  const ids: number[] = [];
  for (const l of live.rows) {
    const res = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: l.game, asset_id: l.id });
    expect(res.body.data.status).toBe('pending');
    ids.push(res.body.data.id);
  }
  return ids;
}

const rows = (ids: number[]) => gw.ctx.db.selectFrom('purchases').selectAll().where('id', 'in', ids).orderBy('id').execute();
const offersOf = async (ids: number[]) =>
  (await sql<{ purchase_id: string; trade_offer_id: string; canceled_at: Date | null }>`
    select purchase_id, trade_offer_id, canceled_at from sandbox_purchase_offers where purchase_id = any(${ids}::bigint[]) order by purchase_id`.execute(gw.ctx.db)).rows;
const hooksOf = async (id: number) =>
  (await gw.ctx.db.selectFrom('webhook_events').select(['status']).where('kind', '=', 'purchase').where('record_id', '=', id).orderBy('id').execute()).map((h) => h.status);

/** A platform whose purchase sends fail for some purchases (by id), and counts its calls. */
function faulty(fail: Map<number, () => Error>) {
  const calls: number[] = [];
  const platform: TradingPlatform = {
    ...gw.ctx.platform,
    sendPurchaseOffers: undefined, // one call per purchase, as the steam adapter
    async sendPurchaseOffer(req) {
      calls.push(req.purchaseId);
      const f = fail.get(req.purchaseId);
      if (f) throw f();
      return gw.ctx.platform.sendPurchaseOffer(req);
    },
  };
  return { platform, calls };
}

describe('sandbox sendPurchaseOffers', () => {
  it('answers a batch as sendPurchaseOffer answers each: the offer already sent, new ones, the errors of special users', async () => {
    const req = (purchaseId: number, partner = USER.partner) => ({ purchaseId, game: 'csgo' as const, partner, token: USER.token, listingId: 'x' });
    const before = await gw.ctx.platform.sendPurchaseOffer(req(910001));
    const answers = await Promise.all(gw.ctx.platform.sendPurchaseOffers!([req(910001), req(910002), req(910003, 90000010), req(910002)]).map((a) => a.catch((err: unknown) => err)));
    expect(answers[0]).toEqual(before); // idempotent per purchase
    expect(answers[1]).toEqual(await gw.ctx.platform.sendPurchaseOffer(req(910002)));
    expect((answers[1] as { tradeOfferId: string }).tradeOfferId).not.toBe(before.tradeOfferId);
    expect(answers[2]).toBeInstanceOf(PlatformUnavailableError);
    expect(answers[3]).toEqual(answers[1]);
    expect(await offersOf([910001, 910002, 910003])).toHaveLength(2);
  });

  it('each answer settles on its own: a user who never answers (90000012) holds up no other purchase of the batch', async () => {
    const req = (purchaseId: number, partner = USER.partner) => ({ purchaseId, game: 'csgo' as const, partner, token: USER.token, listingId: 'x' });
    const [silent, plain, other] = gw.ctx.platform.sendPurchaseOffers!([req(910011, 90000012), req(910012), req(910013)]);
    const settled = await Promise.race([Promise.all([plain, other]), new Promise<'stuck'>((r) => setTimeout(() => r('stuck'), 3_000))]);
    expect(settled).not.toBe('stuck');
    expect((settled as Array<{ tradeOfferId: string }>).map((o) => typeof o.tradeOfferId)).toEqual(['string', 'string']);
    expect(await Promise.race([silent.then(() => 'answered'), new Promise((r) => setTimeout(() => r('silent'), 200))])).toBe('silent');
  });
});

describe('claim', () => {
  it('two concurrent claims take disjoint purchases, oldest first, each with one attempt and a lease', async () => {
    await settleLeftovers();
    const ids = await buy(40);
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + 60_000);
    const [a, b] = await Promise.all([1, 2].map(() => claimDuePurchases(gw.ctx.db, { now, leaseUntil, limit: 25, maxAttempts: DISPATCH_MAX_ATTEMPTS })));
    const got = [...a, ...b].map((p) => Number(p.id));
    expect(new Set(got).size).toBe(got.length); // never the same purchase twice
    expect(got.sort((x, y) => x - y)).toEqual(ids); // 25 + 15: all of them
    // each claim takes the oldest due ones it can lock
    expect(Math.max(a.length, b.length)).toBe(25);
    for (const p of [...a, ...b]) {
      expect(p.dispatch_attempts).toBe(1);
      expect(new Date(p.dispatch_started_at!).getTime()).toBe(now.getTime());
      expect(new Date(p.dispatch_next_at).getTime()).toBe(leaseUntil.getTime());
    }
    // leased: nothing is due again until the lease ends
    expect(await claimDuePurchases(gw.ctx.db, { now, leaseUntil, limit: 100, maxAttempts: DISPATCH_MAX_ATTEMPTS })).toEqual([]);
    const later = new Date(leaseUntil.getTime() + 1);
    const again = await claimDuePurchases(gw.ctx.db, { now: later, leaseUntil: new Date(later.getTime() + 60_000), limit: 5, maxAttempts: DISPATCH_MAX_ATTEMPTS });
    expect(again.map((p) => Number(p.id))).toEqual(ids.slice(0, 5)); // the lease ran out (the instance died): claimed again, oldest first
    expect(again.every((p) => p.dispatch_attempts === 2)).toBe(true);
    // attempts used up: left to the pending watchdog
    expect(await claimDuePurchases(gw.ctx.db, { now: later, leaseUntil: later, limit: 100, maxAttempts: 2 })).toHaveLength(35);
    expect(await claimDuePurchases(gw.ctx.db, { now: new Date(later.getTime() + 1), leaseUntil: later, limit: 100, maxAttempts: 2 })).toEqual([]);
  });
});

describe('two dispatchers on one database', () => {
  it('send every pending purchase exactly once: one offer, one attempt, one webhook each', async () => {
    await settleLeftovers();
    const ids = await buy(60);
    const one = instance();
    const two = instance();
    await Promise.all([one.dispatcher.drain(), two.dispatcher.drain(), one.dispatcher.drain()]);
    const after = await rows(ids);
    expect(after.map((p) => p.status)).toEqual(ids.map(() => 'active'));
    expect(after.map((p) => p.dispatch_attempts)).toEqual(ids.map(() => 1));
    const offers = await offersOf(ids);
    expect(offers.map((o) => Number(o.purchase_id))).toEqual(ids);
    expect(after.map((p) => p.trade_offer_id)).toEqual(offers.map((o) => o.trade_offer_id));
    expect(one.dispatcher.stats().claimed + two.dispatcher.stats().claimed).toBe(ids.length);
    for (const id of ids) expect(await hooksOf(id)).toEqual(['active']);
    // no job for the offer's expiry: the dispatcher's sweep expires it (describe 'offer expiry')
    await gw.flushJobs();
    const expiry = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where key = any(${ids.map((id) => `purchase_offer_expire:${id}`)}::text[])`.execute(gw.ctx.db);
    expect(expiry.rows[0].n).toBe(0);
    expect(after.every((p) => p.offer_expires_at !== null && p.expiry_next_at === null)).toBe(true);
  });
});

describe('failures', () => {
  it("one purchase's failed send holds up no other: it is retried after its backoff; a refusal fails its purchase at once", async () => {
    await settleLeftovers();
    const ids = await buy(12);
    const [broken, unavailable] = ids;
    const { platform, calls } = faulty(new Map([
      [broken, () => new Error('injected: the platform broke')],
      [unavailable, () => new PlatformUnavailableError('the trading platform did not answer')],
    ]));
    const { dispatcher } = instance(platform);
    const t0 = clock.now().getTime();
    await dispatcher.drain();
    const after = new Map((await rows(ids)).map((p) => [Number(p.id), p]));
    for (const id of ids.slice(2)) expect(after.get(id)!.status).toBe('active');
    expect(after.get(unavailable)).toMatchObject({ status: 'failed', fail_reason: 'provider_unavailable', dispatch_attempts: 1 });
    const b = after.get(broken)!;
    expect(b).toMatchObject({ status: 'pending', dispatch_attempts: 1 });
    // retried between e^1 / 2 and e^1 s later (jittered), not before
    expect(new Date(b.dispatch_next_at).getTime() - t0).toBeGreaterThanOrEqual(1359);
    expect(new Date(b.dispatch_next_at).getTime() - t0).toBeLessThan(2718 + 5_000);
    const before = calls.length;
    await dispatcher.drain();
    expect(calls.length).toBe(before); // not due yet
    clock.advance(3_000);
    await dispatcher.drain();
    expect(calls.filter((id) => id === broken)).toHaveLength(2);
    expect((await rows([broken]))[0]).toMatchObject({ status: 'pending', dispatch_attempts: 2 });
  });

  it('every attempt fails: the last one fails the purchase (gateway_too_slow; timeout_error when the platform timed out), refunded', async () => {
    await settleLeftovers();
    const [broken, silent] = await buy(2);
    const { platform, calls } = faulty(new Map([
      [broken, () => new Error('injected: the platform broke')],
      [silent, () => new PlatformTimeoutError('the trading platform did not answer within 10000 ms')],
    ]));
    const { dispatcher } = instance(platform);
    const available = async () => (await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available as number;
    const before = await available();
    for (let n = 1; n <= DISPATCH_MAX_ATTEMPTS; n++) {
      await dispatcher.drain();
      clock.advance(Math.exp(n) * 1000 + 1000);
    }
    expect(calls.filter((id) => id === broken)).toHaveLength(DISPATCH_MAX_ATTEMPTS);
    const [b, s] = await rows([broken, silent]);
    expect(b).toMatchObject({ status: 'failed', fail_reason: 'gateway_too_slow', dispatch_attempts: DISPATCH_MAX_ATTEMPTS });
    expect(s).toMatchObject({ status: 'failed', fail_reason: 'timeout_error', dispatch_attempts: DISPATCH_MAX_ATTEMPTS });
    expect(await available()).toBeCloseTo(before + b.amount / 1000 + s.amount / 1000, 3);
    expect(await hooksOf(broken)).toEqual(['failed']);
    await dispatcher.drain();
    expect(calls.filter((id) => id === broken)).toHaveLength(DISPATCH_MAX_ATTEMPTS); // never again
  });

  it('a batch whose record fails is recorded one by one; the one that cannot be recorded adopts its offer on the retry', async () => {
    await settleLeftovers();
    const ids = await buy(10);
    const stuck = ids[3];
    await failRecording(gw.ctx.db, stuck);
    const { dispatcher } = instance();
    await dispatcher.drain();
    const after = new Map((await rows(ids)).map((p) => [Number(p.id), p]));
    for (const id of ids.filter((x) => x !== stuck)) expect(after.get(id)!.status).toBe('active');
    expect(after.get(stuck)).toMatchObject({ status: 'pending', dispatch_attempts: 1, trade_offer_id: null });
    const [first] = await offersOf([stuck]);
    expect(first).toBeDefined();
    // its withdrawal is queued (it waits while the purchase is pending)
    await gw.flushJobs();
    const cancel = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where key = ${`purchase:${stuck}:cancel_offer:${first.trade_offer_id}`}`.execute(gw.ctx.db);
    expect(cancel.rows[0].n).toBe(1);
    await sql`delete from test_fail_record`.execute(gw.ctx.db);
    clock.advance(3_000);
    await dispatcher.drain();
    expect((await rows([stuck]))[0]).toMatchObject({ status: 'active', dispatch_attempts: 2, trade_offer_id: first.trade_offer_id });
    expect(await offersOf([stuck])).toEqual([first]); // one offer for two attempts
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(stuck, first.trade_offer_id)).toBe('done'); // its own offer: kept
    expect((await offersOf([stuck]))[0].canceled_at).toBeNull();
  });

  it('a purchase that moved on while its offer was being sent keeps its status; the offer is withdrawn', async () => {
    await settleLeftovers();
    const [id] = await buy(1);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const platform: TradingPlatform = {
      ...gw.ctx.platform,
      sendPurchaseOffers: undefined,
      async sendPurchaseOffer(req) {
        await gate;
        return gw.ctx.platform.sendPurchaseOffer(req);
      },
    };
    const { dispatcher } = instance(platform);
    const draining = dispatcher.drain();
    await new Promise((r) => setTimeout(r, 100));
    await gw.ctx.purchases.applyEvent(id, 'cancel'); // the operator cancels it meanwhile
    release();
    await draining;
    expect((await rows([id]))[0]).toMatchObject({ status: 'canceled', trade_offer_id: null });
    const [offer] = await offersOf([id]);
    expect(await gw.ctx.purchases.cancelUnrecordedOffer(id, offer.trade_offer_id)).toBe('done');
    expect((await offersOf([id]))[0].canceled_at).not.toBeNull();
  });
});

describe('backlog', () => {
  it('a backlog is sent oldest first, in batches of DISPATCH_CLAIM_BATCH, in full, none failed', async () => {
    await settleLeftovers();
    const ids = await buy(150);
    const order: number[] = [];
    const batches: number[] = [];
    const platform: TradingPlatform = {
      ...gw.ctx.platform,
      sendPurchaseOffers: (reqs) => {
        order.push(...reqs.map((r) => r.purchaseId));
        batches.push(reqs.length);
        return gw.ctx.platform.sendPurchaseOffers!(reqs);
      },
    };
    const { dispatcher } = instance(platform);
    await dispatcher.drain();
    expect((await rows(ids)).map((p) => p.status)).toEqual(ids.map(() => 'active'));
    // the first claim took the oldest (DISPATCH_CLAIM_BATCH of them), the next one the others
    const first = order.slice(0, DISPATCH_CLAIM_BATCH);
    expect([...first].sort((a, b) => a - b)).toEqual(ids.slice(0, DISPATCH_CLAIM_BATCH));
    expect(order.slice(DISPATCH_CLAIM_BATCH).every((id) => id > Math.max(...first))).toBe(true);
    expect(order).toHaveLength(ids.length); // one send each
    expect(batches).toEqual([DISPATCH_CLAIM_BATCH, ids.length - DISPATCH_CLAIM_BATCH]); // one platform call per claim
  });
});

describe('started', () => {
  it('woken by the commits of new purchases, it keeps claiming when all its slots were full', async () => {
    await settleLeftovers();
    const transitions = createPurchaseTransitions({ db: gw.ctx.db, clock });
    const stage = createDispatchStage({ db: gw.ctx.db, config: gw.ctx.config, clock, log: gw.ctx.log, platform: gw.ctx.platform, transitions });
    // 2 slots and a poll that never comes within the test: only commits and settles wake it
    const dispatcher = createPurchaseDispatcher(stage, gw.ctx.log, { concurrency: 2, claimBatch: 2, pollMs: 3_600_000, stopWaitMs: 1000 });
    dispatcher.start(gw.ctx.commitTaps);
    try {
      const ids = await buy(30);
      await eventually(async () => (await rows(ids)).every((p) => p.status === 'active'), 15_000);
      expect(dispatcher.stats().commitWakes).toBeGreaterThan(0);
      expect(dispatcher.stats().claimed).toBe(ids.length);
      expect(dispatcher.stats().pollWakes).toBe(0);
    } finally {
      await dispatcher.stop();
    }
  });

  it("a creation hands its purchases to its instance's dispatcher: written leased (attempt 1), sent unclaimed; those past its free slots are claimed", async () => {
    await settleLeftovers();
    const { svc, dispatcher } = instance();
    const live = await sql<{ id: string }>`select id from listings where status = 'live' and game = 'csgo' order by id limit 6`.execute(gw.ctx.db);
    expect(live.rows).toHaveLength(6);
    const ref = { id: m.id, purchase_markup: 1 };
    const create = (id: string) => svc.create(ref, { ...USER, game: 'csgo', asset_id: id });
    // Not running: nothing is leased, the purchase waits for a claim.
    const before = await create(live.rows[0]!.id);
    expect((await rows([before.purchase.id]))[0]).toMatchObject({ status: 'pending', dispatch_attempts: 0 });
    expect(dispatcher.reserve(1).count).toBe(0);

    // Running with 3 slots: 5 creations in one batch → 3 leased and handed over, 2 claimed as slots free.
    await settleLeftovers();
    const small = createPurchaseService({ config: { ...gw.ctx.config, purchaseDispatchConcurrency: 3 }, db: gw.ctx.db, clock, log: gw.ctx.log, platform: gw.ctx.platform });
    const batcher = createCreationBatcher(gw.ctx.db, { maxBatch: 8, inFlight: 1 }, small.dispatcher);
    const input = (assetId: string): CreationInput => ({
      purchase: { merchant_id: m.id, merchant_tx_id: null, game: 'csgo', partner: USER.partner, token: USER.token, platform_id: '76561198000000000', platform_name: null, platform_avatar_url: null, created_at: clock.now() },
      choice: { assetId, game: 'csgo' },
      markup: 1,
    });
    const created: number[] = [];
    small.dispatcher.start(gw.ctx.commitTaps);
    try {
      const out = await Promise.all(live.rows.slice(1).map((l) => batcher.create(input(l.id)))); // one event-loop turn: one batch
      for (const o of out) {
        if (typeof o === 'string') throw new Error(`not created: ${o}`);
        created.push(Number(o.id));
      }
      await eventually(async () => (await rows(created)).every((p) => p.status === 'active'), 15_000);
      expect(small.dispatcher.stats()).toMatchObject({ adopted: 3, claimed: 2, inFlight: 0 });
      // Each sent once, on its first attempt: one offer each.
      expect((await rows(created)).map((p) => p.dispatch_attempts)).toEqual([1, 1, 1, 1, 1]);
      expect((await offersOf(created)).map((o) => Number(o.purchase_id))).toEqual(created);
    } finally {
      await small.dispatcher.stop();
    }
  });

  it('a purchase handed over without its lease (written unleased, or with half its lease gone) is not sent by the hand-over: its slot is freed, a claim takes it', async () => {
    await settleLeftovers();
    const { dispatcher } = instance();
    const [id] = await buy(1); // the test gateway's own instance does not run its dispatcher: written unleased
    const [row] = await rows([id!]);
    expect(row).toMatchObject({ status: 'pending', dispatch_attempts: 0 });
    dispatcher.start(gw.ctx.commitTaps);
    try {
      const reserved = dispatcher.reserve(2);
      expect(reserved.count).toBe(2);
      // A lease with less than half left, as a batch that ran long would leave it.
      const stale = { ...row!, dispatch_attempts: 1, dispatch_next_at: new Date(clock.now().getTime() + 1000) };
      dispatcher.adopt([row!, stale], 2);
      expect(dispatcher.stats()).toMatchObject({ adopted: 0 });
      await eventually(async () => (await rows([id!]))[0]!.status === 'active', 15_000);
      expect(dispatcher.stats().claimed).toBe(1);
      expect((await rows([id!]))[0]!.dispatch_attempts).toBe(1);
      expect(dispatcher.stats().inFlight).toBe(0);
    } finally {
      await dispatcher.stop();
    }
  });

  it('a purchase written leased whose instance never sent it (it stopped) is claimed by another once the lease runs out', async () => {
    await settleLeftovers();
    const a = instance();
    a.dispatcher.start(gw.ctx.commitTaps);
    const reserved = a.dispatcher.reserve(1);
    expect(reserved.count).toBe(1);
    await a.dispatcher.stop(); // stands for an instance gone after its batch's commit, before the send
    const [l] = (await sql<{ id: string }>`select id from listings where status = 'live' and game = 'csgo' order by id limit 1`.execute(gw.ctx.db)).rows;
    const batcher = createCreationBatcher(gw.ctx.db, { maxBatch: 8, inFlight: 1 }, { reserve: () => reserved, adopt: () => {} });
    const p = await batcher.create({
      purchase: { merchant_id: m.id, merchant_tx_id: null, game: 'csgo', partner: USER.partner, token: USER.token, platform_id: '76561198000000000', platform_name: null, platform_avatar_url: null, created_at: clock.now() },
      choice: { assetId: l!.id, game: 'csgo' },
      markup: 1,
    });
    if (typeof p === 'string') throw new Error(`not created: ${p}`);
    expect(p).toMatchObject({ status: 'pending', dispatch_attempts: 1 });
    const b = instance();
    await b.dispatcher.drain();
    expect((await rows([p.id]))[0]).toMatchObject({ status: 'pending', dispatch_attempts: 1 }); // leased: not claimed
    clock.advance(new Date(p.dispatch_next_at).getTime() - clock.now().getTime() + 1000);
    await b.dispatcher.drain();
    expect((await rows([p.id]))[0]).toMatchObject({ status: 'active', dispatch_attempts: 2 });
    expect(await offersOf([p.id])).toHaveLength(1);
  });
});

describe('offer expiry (the dispatcher\'s sweep, no job per purchase)', () => {
  /** Only this test's purchases active: the sweep takes up the most overdue first. */
  const settleActive = () => sql`update purchases set status = 'canceled', fail_reason = 'canceled_by_gateway' where status = 'active'`.execute(gw.ctx.db);
  const available = async () => Number((await sql<{ available: string }>`select available from balances where merchant_id = ${m.id}`.execute(gw.ctx.db)).rows[0]!.available);
  /** The sandbox, answering an expired offer's withdrawal with `answer` (for its purchase id) and noting who was asked. */
  function expiring(answer: (purchaseId: number) => 'gone' | 'accepted') {
    const asked: number[] = [];
    const platform: TradingPlatform = {
      ...gw.ctx.platform,
      async expireOffer(req) {
        asked.push(req.recordId);
        return answer(req.recordId);
      },
    };
    return { platform, asked };
  }

  it('an offer not expired yet is left; once it is, two instances sweeping at once cancel each purchase once (buyer_too_slow, one refund, one webhook)', async () => {
    await settleLeftovers();
    await settleActive();
    const ids = await buy(4);
    const { platform, asked } = expiring(() => 'gone');
    const one = instance(platform);
    const two = instance(platform);
    await one.dispatcher.drain();
    const sent = await rows(ids);
    expect(sent.map((p) => p.status)).toEqual(ids.map(() => 'active'));
    const last = Math.max(...sent.map((p) => new Date(p.offer_expires_at!).getTime()));
    clock.advance(last - clock.now().getTime() - 2000); // 2 s before the last offer expires
    const before = await available();
    await one.dispatcher.sweep();
    const early = (await rows(ids)).filter((p) => p.status === 'active');
    expect(early.length).toBeGreaterThan(0); // at least the last one is not due yet
    for (const p of early) expect(p.expiry_next_at).toBeNull(); // not taken up
    clock.advance(3000);
    await Promise.all([one.dispatcher.sweep(), two.dispatcher.sweep()]);
    await Promise.all([one.dispatcher.sweep(), two.dispatcher.sweep()]); // taken up already: nothing more
    const after = await rows(ids);
    expect(after.map((p) => [p.status, p.fail_reason])).toEqual(ids.map(() => ['canceled', 'buyer_too_slow']));
    for (const id of ids) expect(await hooksOf(id)).toEqual(['active', 'canceled']);
    expect(asked.sort((a, b) => a - b)).toEqual(ids); // each offer asked about by one sweep only
    const refunds = await sql<{ n: number }>`select count(*)::int as n from ledger_entries where key = any(${ids.map((id) => `purchase:${id}:refund`)}::text[])`.execute(gw.ctx.db);
    expect(refunds.rows[0]!.n).toBe(ids.length);
    expect(await available()).toBe(before + after.reduce((sum, p) => sum + Number(p.amount), 0));
  });

  it('an offer the platform does not show withdrawn, or whose call fails, is looked at again after EXPIRY_LOOK_AGAIN_MS, not at every pass', async () => {
    await settleLeftovers();
    await settleActive();
    const [accepted, broken] = await buy(2);
    // The user accepted meanwhile (the platform's own change will say so); the other call fails.
    const { platform, asked } = expiring((id) => {
      if (id === broken) throw new PlatformUnavailableError('the trading platform did not answer');
      return 'accepted';
    });
    const { dispatcher } = instance(platform);
    await dispatcher.drain();
    const sent = await rows([accepted!, broken!]);
    clock.advance(Math.max(...sent.map((p) => new Date(p.offer_expires_at!).getTime())) - clock.now().getTime() + 1000);
    await dispatcher.sweep();
    expect(asked.sort()).toEqual([accepted, broken].sort());
    const looked = await rows([accepted!, broken!]);
    expect(looked.map((p) => p.status)).toEqual(['active', 'active']);
    for (const p of looked) expect(new Date(p.expiry_next_at!).getTime()).toBeGreaterThan(clock.now().getTime() + EXPIRY_LOOK_AGAIN_MS - 5_000);
    await dispatcher.sweep();
    expect(asked).toHaveLength(2); // not asked again at the next pass
    clock.advance(EXPIRY_LOOK_AGAIN_MS + 1000);
    await dispatcher.sweep();
    expect(asked).toHaveLength(4); // asked again once it was due again
  });

  it('the longer an offer has been overdue, the longer until it is asked about again: half its time overdue, at most EXPIRY_LOOK_AGAIN_MAX_MS', async () => {
    await settleLeftovers();
    await settleActive();
    const [id] = await buy(1);
    const { platform, asked } = expiring(() => 'accepted');
    const { dispatcher } = instance(platform);
    await dispatcher.drain();
    const [sent] = await rows([id!]);
    const nextLook = async () => new Date((await rows([id!]))[0]!.expiry_next_at!).getTime() - clock.now().getTime();
    clock.advance(new Date(sent!.offer_expires_at!).getTime() - clock.now().getTime() + 10 * 60_000); // 10 minutes overdue
    await dispatcher.sweep();
    expect(asked).toEqual([id]);
    expect(await nextLook()).toBeGreaterThan(5 * 60_000 - 5_000); // half of 10 minutes
    expect(await nextLook()).toBeLessThanOrEqual(5 * 60_000);
    clock.advance(4 * 60 * 60_000); // now 4 h overdue
    await dispatcher.sweep();
    expect(asked).toEqual([id, id]);
    expect(await nextLook()).toBeGreaterThan(EXPIRY_LOOK_AGAIN_MAX_MS - 5_000); // capped
    expect(await nextLook()).toBeLessThanOrEqual(EXPIRY_LOOK_AGAIN_MAX_MS);
    clock.advance(EXPIRY_LOOK_AGAIN_MAX_MS - 60_000);
    await dispatcher.sweep();
    expect(asked).toHaveLength(2);
  });
});
