// Fault injection through the real libraries (steam-tradeoffer-manager, steamcommunity) against the
// stand-in platform (issue 20): ambiguous sends whose offer appears late, an expiry race with a
// failing cancel, a disabled bot with an offer in flight, a lease under a foreign-key lock, a
// confirmation for a record already closed. Each asserts where the items and the money end: where
// the platform says they are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, eventually } from '../helpers.js';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';
import type { FakeOffer } from './fake-steam.js';
import { purchaseKit, type PurchaseKit } from './steam-purchases.js';

let w: SteamWorld;
let key: string;
let merchantId: number;
let partnerSeq = 61_000_000;
let kit: PurchaseKit;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

beforeAll(async () => {
  // A settle window no test waits out: the tests move an ambiguous send's start into the past instead.
  ({ w, key, merchantId } = await startSteamMerchantWorld({
    bots: 2,
    env: { STEAM_SEND_SETTLE_MS: '600000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '3600', METRICS_REFRESH_MS: '200' },
    merchant: { webhook_url: 'http://127.0.0.1:9/hooks' },
    topUp: 1000,
  }));
  kit = purchaseKit(w, key, { token: TOKEN, assetBase: 62_000_000_000, prefix: 'fa', nextPartner: () => ++partnerSeq });
});
afterAll(async () => w?.stop());

const messageOf = (id: number) => `[gw:deposit:${id}] Deposit #${id}`;
const offerOf = (id: number): FakeOffer | undefined => [...w.fake.offers.values()].find((o) => o.message === messageOf(id));
const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const balance = async () => (await w.gw.merchant(key, 'GET', '/balance')).body.data as { available: number; hold: number };
const ledgerClean = async () => expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);

/** A user with one priced item and a create-deposit for it; answers the deposit as created. */
async function createDeposit(): Promise<{ id: number; status: string; amount: number; partner: number; trade_offer_id: string | null }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAME }] });
  const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `f-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: [String(partner * 10)] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...res.body.data, partner };
}

/** The ambiguous send's settle window has passed (its start moved into the past). */
async function settleWindowPassed(depositId: number): Promise<void> {
  await w.gw.ctx.db.updateTable('steam_offers').set({ uncertain_since: new Date(Date.now() - 3_600_000) })
    .where('offer_kind', '=', 'deposit').where('record_id', '=', depositId).execute();
}

const auditOf = (depositId: number) =>
  w.gw.ctx.db.selectFrom('audit_log' as any).select(['action', 'actor', 'merchant_id']).where('action', '=', 'deposit_follows_platform')
    .where(sql<boolean>`(detail->>'deposit_id')::bigint = ${depositId}`).execute();
const webhookStatuses = async (depositId: number) =>
  (await w.gw.ctx.db.selectFrom('webhook_events').select('payload').where('kind', '=', 'deposit').where('record_id', '=', depositId).orderBy('id').execute())
    .map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).status);

describe('ambiguous send (eresult 16), the offer appears late', () => {
  it('deposit: waits pending (never failed) while the offer may appear; once it does the deposit follows it → active → hold, credited to hold', async () => {
    const before = await balance();
    w.fake.nextSendHidden = true;
    const d = await createDeposit();
    expect(d.status).toBe('pending'); // not failed: the offer may exist
    expect(d.trade_offer_id).toBeNull();
    // Within the settle window the watchdog finds nothing yet: it looks again later, the deposit waits.
    const r = await w.gw.ctx.deposits.resolvePending(d.id);
    expect(r).not.toBe('done');
    expect((await status(d.id)).status).toBe('pending');
    w.fake.reveal();
    expect(await w.gw.ctx.deposits.resolvePending(d.id)).toBe('done');
    const offer = offerOf(d.id)!;
    expect(await status(d.id)).toMatchObject({ status: 'active', trade_offer_id: offer.id });
    // Never sent twice.
    expect([...w.fake.offers.values()].filter((o) => o.message === messageOf(d.id)).length).toBe(1);
    w.fake.accept(offer.id);
    await w.platform.pollTick();
    expect((await status(d.id)).status).toBe('hold');
    expect((await balance()).hold).toBeCloseTo(before.hold + d.amount, 2);
    await ledgerClean();
  });

  it('deposit: no offer within the window → failed service_unavailable; the late offer is then canceled before the user can accept it; nothing credited', async () => {
    const before = await balance();
    w.fake.nextSendHidden = true;
    const d = await createDeposit();
    expect(d.status).toBe('pending');
    await settleWindowPassed(d.id);
    expect(await w.gw.ctx.deposits.resolvePending(d.id)).toBe('done');
    expect(await status(d.id)).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
    w.fake.reveal();
    await w.platform.pollTick();
    const offer = offerOf(d.id)!;
    expect(offer.state).toBe(6); // canceled by the bot: the user can no longer accept it
    expect(() => w.fake.accept(offer.id)).toThrow(/not active/);
    expect(w.fake.users.get(d.partner)!.items.map((i) => i.assetid)).toEqual([String(d.partner * 10)]);
    expect(await balance()).toEqual(before);
    expect((await status(d.id)).status).toBe('failed');
  });

  it('deposit: the user accepted the late offer before the bot saw it → the failed deposit follows the trade: hold, credited, webhook, audited', async () => {
    const before = await balance();
    w.fake.nextSendHidden = true;
    const d = await createDeposit();
    await settleWindowPassed(d.id);
    await w.gw.ctx.deposits.resolvePending(d.id);
    expect((await status(d.id)).status).toBe('failed');
    const offer = offerOf(d.id)!;
    w.fake.accept(offer.id); // the items move to the bot
    w.fake.reveal();
    await w.platform.pollTick();
    const now = await status(d.id);
    expect(now).toMatchObject({ status: 'hold', trade_offer_id: offer.id, fail_reason: null });
    expect((await balance()).hold).toBeCloseTo(before.hold + d.amount, 2);
    expect(await webhookStatuses(d.id)).toEqual(['failed', 'hold']);
    expect(await auditOf(d.id)).toEqual([{ action: 'deposit_follows_platform', actor: 'platform', merchant_id: merchantId }]);
    await ledgerClean();
  });

  it('purchase offer: a late offer awaiting confirmation for a purchase that no longer wants it is canceled, never confirmed (the buyer gets nothing)', async () => {
    const bot = w.bots[0];
    bot.fake.items.push({ assetid: '61900000001', classid: '9', name: NAME });
    const partner = ++partnerSeq;
    w.fake.addUser({ partner, token: TOKEN, items: [] });
    w.fake.nextSendHidden = true;
    const purchaseId = 991_001; // no such purchase: the gateway's guard says no record wants it
    await expect(w.platform.sendPurchaseOffer({ purchaseId, game: 'csgo', partner, token: TOKEN, listingId: 'x', assetId: '61900000001' })).rejects.toThrow(/may still appear/);
    const confirmations = () => w.fake.requests.filter((r) => r.path === '/community/mobileconf/ajaxop').length;
    const before = confirmations();
    w.fake.reveal();
    await w.platform.pollTick();
    await w.platform.pollTick();
    const offer = [...w.fake.offers.values()].find((o) => o.message.startsWith(`[gw:purchase:${purchaseId}]`))!;
    expect(offer.state).toBe(6);
    expect(confirmations()).toBe(before);
    expect(bot.fake.items.some((i) => i.assetid === '61900000001')).toBe(true);
    expect(w.fake.users.get(partner)!.items).toEqual([]);
  });

  it('deposit: the send hangs past the call timeout (the offer made, unseen): pending, then the deposit follows the late offer', async () => {
    w.fake.nextSendHangMs = 4500; // STEAM_CALL_TIMEOUT_MS is 3 s here
    const d = await createDeposit();
    expect(d.status).toBe('pending');
    w.fake.reveal();
    expect(await w.gw.ctx.deposits.resolvePending(d.id)).toBe('done');
    const offer = offerOf(d.id)!;
    expect(await status(d.id)).toMatchObject({ status: 'active', trade_offer_id: offer.id });
    expect([...w.fake.offers.values()].filter((o) => o.message === messageOf(d.id)).length).toBe(1);
  });
});

describe('transient errors on purchases are retried within the deadline, not answered', () => {
  it('429 bursts on the bot\'s own inventory: the purchase stays pending (not failed) and goes out on a later attempt', async () => {
    const p = await kit.create();
    const before = await balance();
    w.fake.limit(new RegExp(`/inventory/${w.bots[0].fake.steamId}/`), 8);
    let sawPending = false;
    const retried = await kit.dispatchUntilSettled(p.id, async () => {
      sawPending = (await kit.status(p.id)).status === 'pending';
    });
    expect(retried).toBeGreaterThan(0);
    expect(sawPending).toBe(true);
    expect((await kit.status(p.id)).status).toBe('active');
    expect(kit.offers(p.id).length).toBe(1);
    expect(kit.offers(p.id)[0].state).toBe(2);
    expect(await balance()).toEqual(before); // reserved at creation, not refunded
  });

  it('429 bursts on mobile confirmations: no `active` (and no webhook) until the offer is really out; then active', async () => {
    const p = await kit.create();
    w.fake.limit(/\/mobileconf\//, 5);
    let pendingWhileUnconfirmed = false;
    await kit.dispatchUntilSettled(p.id, async () => {
      const o = kit.offers(p.id)[0];
      if (o?.state === 9) pendingWhileUnconfirmed = (await kit.status(p.id)).status === 'pending';
    });
    expect(pendingWhileUnconfirmed).toBe(true);
    expect((await kit.status(p.id)).status).toBe('active');
    expect(kit.offers(p.id).map((o) => o.state)).toEqual([2]);
  });
});

describe('expiry race', () => {
  it('the cancel at expiry fails and the user accepts: the deposit stays open and follows the acceptance (hold, credited)', async () => {
    const before = await balance();
    const d = await createDeposit();
    expect(d.status).toBe('active');
    w.fake.fail(/\/tradeoffer\/\d+\/cancel$/, 50, 500);
    await expect(w.gw.ctx.deposits.expireIfGone(d.id)).rejects.toThrow();
    expect((await status(d.id)).status).toBe('active'); // not canceled while the offer can still be accepted
    w.fake.accept(d.trade_offer_id!);
    await w.platform.pollTick();
    expect((await status(d.id)).status).toBe('hold');
    await w.gw.ctx.deposits.expireIfGone(d.id); // the job again: nothing to do
    expect((await status(d.id)).status).toBe('hold');
    expect((await balance()).hold).toBeCloseTo(before.hold + d.amount, 2);
    w.fake.clearFailures();
  });

  it('the cancel at expiry goes through: canceled canceled_by_gateway once the platform shows the offer withdrawn; nothing credited', async () => {
    const before = await balance();
    const d = await createDeposit();
    w.fake.clearFailures();
    await w.gw.ctx.deposits.expireIfGone(d.id);
    expect(w.fake.offers.get(d.trade_offer_id!)!.state).toBe(6);
    expect(await status(d.id)).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_gateway' });
    expect(await balance()).toEqual(before);
  });

  it('a deposit the gateway canceled anyway (an older instance) whose offer the user then accepts follows the trade, audited', async () => {
    const before = await balance();
    const d = await createDeposit();
    await w.gw.ctx.deposits.tryTransition(d.id, 'expire');
    expect((await status(d.id)).status).toBe('canceled');
    w.fake.accept(d.trade_offer_id!);
    await w.platform.pollTick();
    expect(await status(d.id)).toMatchObject({ status: 'hold', fail_reason: null });
    expect((await balance()).hold).toBeCloseTo(before.hold + d.amount, 2);
    expect((await auditOf(d.id)).length).toBe(1);
    expect(await webhookStatuses(d.id)).toEqual(['canceled', 'hold']);
    await ledgerClean();
  });
});

describe('bots', () => {
  it('a disabled bot takes no new offers but keeps polling its open one (draining): the user accepts → hold', async () => {
    const d = await createDeposit();
    const offer = w.fake.offers.get(d.trade_offer_id!)!;
    const mine = w.bots.find((b) => b.fake.steamId === offer.bot)!;
    const other = w.bots.find((b) => b !== mine)!;
    try {
      expect((await w.gw.admin('PATCH', `/bots/${mine.id}`, { enabled: false })).status).toBe(200);
      expect(await w.platform.leaseTick()).toContain(mine.id); // still driven: it has an open offer
      // New deposits go to the other bot only.
      for (let i = 0; i < 3; i++) {
        const n = await createDeposit();
        expect(w.fake.offers.get(n.trade_offer_id!)!.bot).toBe(other.fake.steamId);
      }
      w.fake.accept(offer.id);
      await w.platform.pollTick();
      expect((await status(d.id)).status).toBe('hold');
    } finally {
      await w.gw.admin('PATCH', `/bots/${mine.id}`, { enabled: true });
      await w.platform.leaseTick();
    }
  });

  it('a disabled bot without open offers is let go (one past the draining edge)', async () => {
    const bot = w.bots[1];
    // Close every offer of this bot as the platform would (declined) and report them.
    for (const o of w.fake.sentBy(bot.fake.steamId)) if (o.state === 2 || o.state === 9) w.fake.decline(o.id);
    await w.platform.pollTick();
    await w.gw.ctx.db.updateTable('steam_offers').set({ updated_at: new Date(Date.now() - 9 * 86400_000) }).where('bot_id', '=', bot.id).execute();
    try {
      await w.gw.admin('PATCH', `/bots/${bot.id}`, { enabled: false });
      expect(await w.platform.leaseTick()).not.toContain(bot.id);
      expect(w.platform.driverOf(bot.id)).toBeUndefined();
    } finally {
      await w.gw.admin('PATCH', `/bots/${bot.id}`, { enabled: true });
      expect(await w.platform.leaseTick()).toContain(bot.id);
    }
  });

  it('a steam-mode database keeps no sandbox bot rows: a real bot may have one of their platform ids', async () => {
    expect(await w.gw.ctx.db.selectFrom('bots').select('id').where('account_name', 'is', null).execute()).toEqual([]);
    const res = await w.gw.admin('POST', '/bots', { account_name: 'sandbox_id_bot', password: 'pw', shared_secret: w.bots[0].fake.sharedSecret, identity_secret: w.bots[0].fake.identitySecret, platform_id: '76561199000000101', games: ['tf2'] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await w.gw.admin('DELETE', `/bots/${res.body.data.id}`);
  });

  it('a lease is kept while other transactions hold the bot row — FOR KEY SHARE (an offer insert naming it) or a row update', async () => {
    const botId = w.bots[0].id;
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let locked!: () => void;
    const holding = new Promise<void>((r) => { locked = r; });
    const tx = w.gw.ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('steam_offers').values({ offer_kind: 'deposit', record_id: 991_500, bot_id: botId, message: '[gw:deposit:991500] lock' }).execute();
      await sql`update bots set updated_at = now() where id = ${botId}`.execute(trx);
      locked();
      await gate;
      throw new Error('rolled back on purpose');
    }).catch(() => {});
    await holding;
    try {
      expect(await w.platform.leaseTick()).toContain(botId);
      expect(w.platform.driverOf(botId)).toBeDefined();
      const row = await w.gw.ctx.db.selectFrom('bots').select(['lease_owner']).where('id', '=', botId).executeTakeFirstOrThrow();
      expect(row.lease_owner).toBe(w.platform.instanceId);
    } finally {
      release();
      await tx;
    }
    expect(await w.platform.leaseTick()).toContain(botId);
  });
});

describe('the hold outlasts the reversal window', () => {
  /** A deposit accepted on the platform (hold), its acceptance moved `ago` ms into the past. */
  async function held(agoMs: number): Promise<{ id: number; amount: number; offerId: string }> {
    const d = await createDeposit();
    w.fake.accept(d.trade_offer_id!);
    await w.platform.pollTick();
    expect((await status(d.id)).status).toBe('hold');
    await w.gw.ctx.db.updateTable('steam_offers').set({ accepted_at: new Date(Date.now() - agoMs) }).where('trade_offer_id', '=', d.trade_offer_id!).execute();
    return { id: d.id, amount: d.amount, offerId: d.trade_offer_id! };
  }
  const DAY = 86400_000;

  it('the hold ends only once the trade history has been read past the 7-day window with no reversal (at the edge and one past it)', async () => {
    const early = await held(7 * DAY - 60_000); // the window closes in a minute
    const late = await held(7 * DAY + 1000); // closed a second ago
    const before = await balance();
    // The history was not read since: neither may end.
    await w.gw.ctx.db.updateTable('bots').set({ history_read_at: null }).execute();
    expect(await w.gw.ctx.deposits.endHoldIfClear(late.id)).not.toBe('done');
    expect((await status(late.id)).status).toBe('hold');
    await w.platform.historyTick(); // read now: past the late one's window, not the early one's
    expect(await w.gw.ctx.deposits.endHoldIfClear(early.id)).not.toBe('done');
    expect((await status(early.id)).status).toBe('hold');
    expect(await w.gw.ctx.deposits.endHoldIfClear(late.id)).toBe('done');
    expect((await status(late.id)).status).toBe('completed');
    const after = await balance();
    expect(after.available).toBeCloseTo(before.available + late.amount, 2);
    expect(after.hold).toBeCloseTo(before.hold - late.amount, 2);
    await ledgerClean();
  });

  it('a reversal seen after completion is recorded against the merchant (deposit_late_revert) and audited; the deposit stays completed', async () => {
    const d = await held(7 * DAY + 1000);
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).toBe('done');
    expect((await status(d.id)).status).toBe('completed');
    const before = await balance();
    w.fake.reverse(d.offerId);
    await w.platform.historyTick();
    expect((await status(d.id)).status).toBe('completed');
    expect((await balance()).available).toBeCloseTo(before.available - d.amount, 2);
    const entry = await w.gw.ctx.db.selectFrom('ledger_entries').select(['kind']).where('key', '=', `deposit:${d.id}:late_revert`).execute();
    expect(entry).toEqual([{ kind: 'deposit_late_revert' }]);
    const audit = await w.gw.ctx.db.selectFrom('audit_log' as any).select(['action']).where('action', '=', 'deposit_reversed_after_completion')
      .where(sql<boolean>`(detail->>'deposit_id')::bigint = ${d.id} and (detail->>'recovered')::boolean`).execute();
    expect(audit.length).toBe(1);
    await w.platform.historyTick(); // reported once
    expect((await balance()).available).toBeCloseTo(before.available - d.amount, 2);
    await ledgerClean();
  });
});

describe('sessions', () => {
  const view = async (id: number) => (await w.gw.admin('GET', `/bots/${id}`)).body.data;
  const metrics = async () => (await fetch(`${w.gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();

  it('a one-off 401 on GetTradeOffers while sign-ins fail (the session still valid) never takes a bot out', async () => {
    const bot = w.bots[0];
    w.fake.refuseSignIns = true;
    try {
      w.fake.fail(/GetTradeOffers/, 1, 401);
      await w.platform.pollTick();
      expect(w.platform.driverOf(bot.id)!.signedIn).toBe(true);
      expect(await view(bot.id)).toMatchObject({ status: 'active', rotation: 'in', rotation_reason: null, signed_in: true });
      expect((await view(bot.id)).last_authenticated_at).not.toBeNull();
    } finally {
      w.fake.refuseSignIns = false;
      w.fake.clearFailures();
    }
  });

  it('a session really gone and sign-in failing: out of rotation, visible (reason, metric); back by itself once a sign-in works, with backoff', async () => {
    const bot = w.bots[0];
    w.fake.refuseSignIns = true;
    const signIns = w.fake.signIns;
    try {
      w.fake.expireSessions();
      await w.platform.pollTick();
      expect(w.platform.driverOf(bot.id)!.signedIn).toBe(false);
      // Right after a failed sign-in the driver backs off (no sign-in due), so polls do not hammer the login.
      expect(w.platform.driverOf(bot.id)!.signInDue()).toBe(false);
      const out = await eventually(async () => ((await view(bot.id)).rotation === 'out' ? view(bot.id) : undefined), 10_000, 50);
      expect(out).toMatchObject({ rotation: 'out', signed_in: false, session_error: expect.stringMatching(/.+/) });
      expect(out.rotation_reason).toMatch(/no live session/);
      await eventually(async () => (await metrics()).includes(`gateway_bot_rotation{bot="${out.name}",state="out"} 1`), 15_000, 100);
      expect(w.fake.signIns).toBe(signIns);
    } finally {
      w.fake.refuseSignIns = false;
    }
    // Sign-ins work again: the next due attempt brings the bot back, no restart.
    await eventually(async () => {
      await w.platform.pollTick();
      return w.platform.driverOf(bot.id)!.signedIn && (await view(bot.id)).rotation === 'in';
    }, 30_000, 200);
    expect((await view(bot.id)).session_error).toBeNull();
    await eventually(async () => (await metrics()).includes(`gateway_bot_rotation{bot="${(await view(bot.id)).name}",state="in"} 1`), 15_000, 100);
  });
});
