// Issue 20, point 1 for purchases: a purchase whose LAST send attempt is ambiguous (eresult 16, a
// hang-up: the offer may exist or still appear) is never failed and refunded while its offer can
// still be accepted. It waits pending; the pending sweep (failIfStuckPending) asks the platform:
// the offer found → the purchase follows it; the settle window passed with no offer → failed
// timeout_error, refunded, and an offer appearing later is canceled before it counts. Through the
// real libraries against the stand-in platform.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';
import { purchaseKit, type PurchaseKit } from './steam-purchases.js';

const SETTLE_MS = 600_000;
const TOKEN = 'tok12345';
const PRICE = 3.5;
const EAMBIGUOUS = { strError: 'There was an error sending your trade offer.  Please try again later. (16)' };
let w: SteamWorld;
let key: string;
let merchantId: number;
let kit: PurchaseKit;
let partnerSeq = 63_000_000;

beforeAll(async () => {
  // A settle window no test waits out: the tests move an ambiguous send's start into the past instead.
  ({ w, key, merchantId } = await startSteamMerchantWorld({
    bots: 1,
    env: { STEAM_SEND_SETTLE_MS: String(SETTLE_MS), WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '3600' },
    merchant: { webhook_url: 'http://127.0.0.1:9/hooks' },
    topUp: 1000,
  }));
  kit = purchaseKit(w, key, { token: TOKEN, assetBase: 63_000_000_000, prefix: 'ab', nextPartner: () => ++partnerSeq });
});
afterAll(async () => w?.stop());

const balance = async () => (await w.gw.merchant(key, 'GET', '/balance')).body.data as { available: number; hold: number };
const row = (id: number) => w.gw.ctx.db.selectFrom('purchases').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const listingStatus = async (listingId: string) => (await w.gw.ctx.db.selectFrom('listings').select('status').where('id', '=', listingId).executeTakeFirstOrThrow()).status;
const sweep = (id: number) => w.gw.ctx.purchases.failIfStuckPending(id);

/** The purchase was created and last attempted long ago: the pending sweep may look at it now. */
async function pastPendingLimit(id: number): Promise<void> {
  const long = new Date(Date.now() - 3_600_000);
  await w.gw.ctx.db.updateTable('purchases').set({ created_at: long, dispatch_started_at: long, dispatch_next_at: long }).where('id', '=', id).execute();
}
/** The ambiguous send happened `agoMs` ago (the settle window is SETTLE_MS). */
async function ambiguousSince(id: number, agoMs: number): Promise<void> {
  await w.gw.ctx.db.updateTable('steam_offers').set({ uncertain_since: new Date(Date.now() - agoMs) })
    .where('offer_kind', '=', 'purchase').where('record_id', '=', id).execute();
}
/** Every attempt ambiguous, the offer made but unseen (eresult 16): the last attempt leaves the purchase pending. */
async function lastAttemptAmbiguous(p: { id: number }): Promise<void> {
  w.fake.nextSendHidden = true;
  expect(await kit.dispatchUntilSettled(p.id)).toBe(4); // attempts 1–4 asked for a retry, the 5th ended
  expect(await kit.status(p.id)).toMatchObject({ status: 'pending' });
}

describe('a purchase whose last send attempt is ambiguous waits for the platform', () => {
  it('the offer appears late and the buyer accepts: the purchase follows it (active → hold), never failed, never refunded', async () => {
    const p = await kit.create();
    const before = await balance();
    await lastAttemptAmbiguous(p);
    expect(await balance()).toEqual(before); // still reserved
    await pastPendingLimit(p.id);
    // The sweep while the platform cannot say yet: still pending, looked at again later.
    expect(await sweep(p.id)).toMatchObject({ retryAt: expect.any(Date) });
    expect((await row(p.id)).status).toBe('pending');
    expect(new Date((await row(p.id)).dispatch_next_at!).getTime()).toBeGreaterThan(Date.now());
    w.fake.reveal();
    expect(await sweep(p.id)).toBe('done');
    const offers = kit.offers(p.id);
    expect(offers.map((o) => o.state)).toEqual([2]); // confirmed by the sweep's look, one offer
    expect(await kit.status(p.id)).toMatchObject({ status: 'active', trade_offer_id: offers[0].id });
    w.fake.accept(offers[0].id);
    await w.platform.pollTick();
    expect((await kit.status(p.id)).status).toBe('hold');
    expect(await balance()).toEqual(before);
    expect(w.fake.users.get(p.partner)!.items.map((i) => i.assetid)).toEqual([p.assetId]);
  });

  it('the dispatcher\'s own sweep (pending past its limit) asks the platform before failing: not yet known → left pending', async () => {
    const p = await kit.create();
    w.fake.fail(/\/tradeoffer\/new\/send$/, 1, 500, EAMBIGUOUS); // ambiguous, and no offer made
    expect(await kit.dispatchUntilSettled(p.id)).toBe(4);
    await pastPendingLimit(p.id);
    await w.gw.ctx.purchases.dispatcher.sweep();
    expect((await row(p.id)).status).toBe('pending');
    await ambiguousSince(p.id, SETTLE_MS + 1000);
    await pastPendingLimit(p.id);
    await w.gw.ctx.purchases.dispatcher.sweep();
    expect(await kit.status(p.id)).toMatchObject({ status: 'failed', fail_reason: 'timeout_error' });
  });

  it('no offer ever: pending through the settle window (its edge), failed timeout_error one past it — refunded, listing back on sale', async () => {
    const p = await kit.create();
    const before = await balance();
    w.fake.fail(/\/tradeoffer\/new\/send$/, 1, 500, EAMBIGUOUS);
    expect(await kit.dispatchUntilSettled(p.id)).toBe(4);
    expect(await kit.status(p.id)).toMatchObject({ status: 'pending' });
    await pastPendingLimit(p.id);
    await ambiguousSince(p.id, SETTLE_MS - 5_000); // inside the window
    expect(await sweep(p.id)).toMatchObject({ retryAt: expect.any(Date) });
    expect((await row(p.id)).status).toBe('pending');
    expect(await balance()).toEqual(before);
    await ambiguousSince(p.id, SETTLE_MS + 1_000); // one past it
    expect(await sweep(p.id)).toBe('done');
    expect(await kit.status(p.id)).toMatchObject({ status: 'failed', fail_reason: 'timeout_error' });
    expect((await row(p.id)).fail_cause).toMatch(/settle window/);
    expect((await balance()).available).toBeCloseTo(before.available + PRICE, 2);
    expect(await listingStatus(p.listingId)).toBe('live');
    expect(kit.offers(p.id)).toEqual([]);
  });

  it('a late offer found after the window: canceled on the platform, never confirmed; the purchase stays failed, the item with the bot', async () => {
    const p = await kit.create();
    const before = await balance();
    await lastAttemptAmbiguous(p);
    await pastPendingLimit(p.id);
    await ambiguousSince(p.id, SETTLE_MS + 1_000);
    expect(await sweep(p.id)).toBe('done');
    expect(await kit.status(p.id)).toMatchObject({ status: 'failed', fail_reason: 'timeout_error' });
    w.fake.reveal();
    await w.platform.pollTick();
    expect(kit.offers(p.id).map((o) => o.state)).toEqual([6]); // canceled, never confirmed
    await w.platform.pollTick();
    expect(await kit.status(p.id)).toMatchObject({ status: 'failed', fail_reason: 'timeout_error' });
    expect((await balance()).available).toBeCloseTo(before.available + PRICE, 2);
    expect(w.bots[0].fake.items.some((i) => i.assetid === p.assetId)).toBe(true);
    expect(w.fake.users.get(p.partner)!.items).toEqual([]);
  });

  it('the platform shows the closed purchase\'s offer accepted anyway: the purchase follows the trade — charged again, listing its own, webhook, audited', async () => {
    const p = await kit.create();
    const before = await balance();
    await lastAttemptAmbiguous(p);
    await pastPendingLimit(p.id);
    await ambiguousSince(p.id, SETTLE_MS + 1_000);
    expect(await sweep(p.id)).toBe('done');
    expect((await kit.status(p.id)).status).toBe('failed');
    expect((await balance()).available).toBeCloseTo(before.available + PRICE, 2);
    expect(await listingStatus(p.listingId)).toBe('live');
    // What the guard should never allow: the unseen offer out (confirmed elsewhere) and accepted.
    const offer = kit.offers(p.id)[0];
    offer.state = 2;
    w.fake.accept(offer.id);
    w.fake.reveal();
    await w.platform.pollTick();
    const after = await kit.status(p.id);
    expect(['hold', 'completed']).toContain(after.status);
    expect(after).toMatchObject({ trade_offer_id: offer.id });
    expect(after.fail_reason).toBeUndefined();
    expect(await balance()).toEqual(before); // the refund taken back: the buyer has the item
    expect(await listingStatus(p.listingId)).toBe(after.status === 'completed' ? 'sold' : 'reserved');
    const audit = await w.gw.ctx.db.selectFrom('audit_log' as any).select(['action', 'actor']).where('merchant_id', '=', merchantId)
      .where(sql<boolean>`(detail->>'purchase_id')::bigint = ${p.id}`).execute();
    expect(audit).toEqual([{ action: 'purchase_follows_platform', actor: 'platform' }]);
    const hooks = (await w.gw.ctx.db.selectFrom('webhook_events').select('payload').where('kind', '=', 'purchase').where('record_id', '=', p.id).orderBy('id').execute())
      .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).status);
    expect(hooks).toEqual(['failed', after.status]);
    expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);
    await w.platform.pollTick(); // reported once
    expect((await kit.status(p.id)).status).toBe(after.status);
    expect(await balance()).toEqual(before);
  });
});
