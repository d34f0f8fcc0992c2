// Offers through the steam adapter, end to end in one gateway: merchant API → real libraries →
// stand-in platform → offer state polls and trade history → deposit transitions, ledger, webhooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformOfferUncertainError, PlatformUnavailableError } from '../../src/platform/port.js';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';
import type { FakeOffer } from './fake-steam.js';

let w: SteamWorld;
let key: string;
let partnerSeq = 20_000_000;
const TOKEN = 'tok12345';
const NAMES = ['AK-47 | Redline (Minimal Wear)', 'StatTrak™ AK-47 | Redline (Minimal Wear)'];

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 1 }));
});
afterAll(async () => w?.stop());

/** A user with two priced items, and a deposit of both through the inventory flow. */
async function deposit(): Promise<{ id: number; offer: FakeOffer; partner: number }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: NAMES.map((name, i) => ({ assetid: String(partner * 10 + i), classid: String(500 + i), name })) });
  const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  expect(inv.body.data.items.length).toBe(2);
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `tx-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: inv.body.data.items.map((i: any) => i.id) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('active');
  const offer = w.fake.offers.get(res.body.data.trade_offer_id)!;
  return { id: res.body.data.id, offer, partner };
}
const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const balance = async () => (await w.gw.merchant(key, 'GET', '/balance')).body.data as { available: number; hold: number; total: number };

describe('deposit offers', () => {
  it('asks for exactly the named assets, with the record in the message; the user accepts → hold (CS2 protection) → a status-12 reversal → reverted, ledger back', async () => {
    const before = await balance();
    const d = await deposit();
    expect(d.offer.message).toBe(`[gw:deposit:${d.id}] Deposit #${d.id}`);
    expect(d.offer.receive.map((i) => i.assetid).sort()).toEqual([`${d.partner * 10}`, `${d.partner * 10 + 1}`]);
    expect(d.offer.give).toEqual([]);
    expect(d.offer.state).toBe(2); // asking only: no mobile confirmation needed
    w.fake.accept(d.offer.id);
    await w.platform.pollTick();
    const held = await status(d.id);
    expect(held.status).toBe('hold');
    const during = await balance();
    expect(during.hold).toBeGreaterThan(before.hold);
    // The user reverses the trade during trade protection: the offer stays Accepted, only the history tells.
    w.fake.reverse(d.offer.id);
    await w.platform.pollTick();
    expect((await status(d.id)).status).toBe('hold');
    await w.platform.historyTick();
    const reverted = await status(d.id);
    expect(reverted).toMatchObject({ status: 'reverted', fail_reason: 'user_reverted' });
    expect(await balance()).toEqual(before);
    expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);
    // Reported once: another history round changes nothing.
    await w.platform.historyTick();
    expect((await status(d.id)).status).toBe('reverted');
  });

  it('escrow: InEscrow → hold until escrowEnds → Accepted → completed', async () => {
    const d = await deposit();
    const o = w.fake.accept(d.offer.id, { escrowDays: 3 });
    await w.platform.pollTick();
    const held = await status(d.id);
    expect(held.status).toBe('hold');
    expect(new Date(held.hold_end_date).getTime()).toBe(o.escrowEnd! * 1000);
    w.fake.endEscrow(d.offer.id);
    await w.platform.pollTick();
    expect((await status(d.id)).status).toBe('completed');
  });

  it('escrow rolled back (Canceled from InEscrow) → reverted', async () => {
    const d = await deposit();
    w.fake.accept(d.offer.id, { escrowDays: 3 });
    await w.platform.pollTick();
    w.fake.rollbackEscrow(d.offer.id);
    await w.platform.pollTick();
    expect(await status(d.id)).toMatchObject({ status: 'reverted', fail_reason: 'user_reverted' });
  });

  it('declined → canceled by the user; expired → canceled', async () => {
    const a = await deposit();
    w.fake.decline(a.offer.id);
    const b = await deposit();
    w.fake.expire(b.offer.id);
    await w.platform.pollTick();
    expect(await status(a.id)).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_user' });
    expect((await status(b.id)).status).toBe('canceled');
  });

  it('eresult 16: the offer was created although the answer says Timeout → found by its message, never sent twice', async () => {
    w.fake.nextSendLost = true;
    const d = await deposit();
    const mine = [...w.fake.offers.values()].filter((o) => o.message === `[gw:deposit:${d.id}] Deposit #${d.id}`);
    expect(mine.length).toBe(1);
    expect(d.offer.id).toBe(mine[0].id);
    // A retried send for the same deposit answers the same offer.
    const again = await w.platform.sendDepositOffer({ depositId: d.id, game: 'csgo', partner: d.partner, token: TOKEN, assets: d.offer.receive.map((i) => ({ assetId: i.assetid, marketHashName: 'any' })) });
    expect(again.tradeOfferId).toBe(d.offer.id);
    expect([...w.fake.offers.values()].filter((o) => o.message.startsWith(`[gw:deposit:${d.id}]`)).length).toBe(1);
  });

  it('a claim left by a crash before sending: refused while recent, sent once it is older than twice the call timeout', async () => {
    const partner = ++partnerSeq;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAMES[0] }] });
    const req = { depositId: 777002, game: 'csgo' as const, partner, token: TOKEN, assets: [{ assetId: String(partner * 10), marketHashName: 'any' }] };
    await w.gw.ctx.db.insertInto('steam_offers').values({ offer_kind: 'deposit', record_id: 777002, bot_id: w.bots[0].id, message: '[gw:deposit:777002] Deposit #777002' }).execute();
    await expect(w.platform.sendDepositOffer(req)).rejects.toThrow(/may still be under way/);
    expect([...w.fake.offers.values()].some((o) => o.message.startsWith('[gw:deposit:777002]'))).toBe(false);
    // STEAM_CALL_TIMEOUT_MS is 3 s here: a claim 7 s old is stale.
    await w.gw.ctx.db.updateTable('steam_offers').set({ attempt_started_at: new Date(Date.now() - 7000) }).where('record_id', '=', 777002).execute();
    const sent = await w.platform.sendDepositOffer(req);
    expect([...w.fake.offers.values()].filter((o) => o.message.startsWith('[gw:deposit:777002]')).map((o) => o.id)).toEqual([sent.tradeOfferId]);
  });

  it('eresult 16 and the lookup fails too: nothing is resent; the next poll adopts the offer, a retry answers it', async () => {
    const partner = ++partnerSeq;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAMES[0] }] });
    w.fake.nextSendLost = true;
    w.fake.limit(/GetTradeOffers/, 8); // the lookups by message (4 attempts each) are rate limited to exhaustion
    const req = { depositId: 777001, game: 'csgo' as const, partner, token: TOKEN, assets: [{ assetId: String(partner * 10), marketHashName: 'any' }] };
    await expect(w.platform.sendDepositOffer(req)).rejects.toBeInstanceOf(PlatformOfferUncertainError);
    const claim = await w.gw.ctx.db.selectFrom('steam_offers').selectAll().where('record_id', '=', 777001).executeTakeFirstOrThrow();
    expect(claim.trade_offer_id).toBeNull();
    expect(claim.uncertain_since).not.toBeNull();
    // A retry looks the offer up first; while it cannot, it neither sends nor gives up the claim.
    await expect(w.platform.sendDepositOffer(req)).rejects.toBeInstanceOf(PlatformOfferUncertainError);
    expect([...w.fake.offers.values()].filter((o) => o.message.startsWith('[gw:deposit:777001]')).length).toBe(1);
    await w.platform.pollTick(); // unknownOfferSent: the offer carries our message → adopted for the claim
    const adopted = [...w.fake.offers.values()].find((o) => o.message.startsWith('[gw:deposit:777001]'))!;
    expect((await w.gw.ctx.db.selectFrom('steam_offers').select('trade_offer_id').where('record_id', '=', 777001).executeTakeFirstOrThrow()).trade_offer_id).toBe(adopted.id);
    expect((await w.platform.sendDepositOffer(req)).tradeOfferId).toBe(adopted.id);
    expect([...w.fake.offers.values()].filter((o) => o.message.startsWith('[gw:deposit:777001]')).length).toBe(1);
  });

  it('cancelOffer withdraws an active offer and is idempotent', async () => {
    const d = await deposit();
    await w.platform.cancelOffer({ offer: 'deposit', recordId: d.id, tradeOfferId: d.offer.id });
    expect(w.fake.offers.get(d.offer.id)!.state).toBe(6);
    await w.platform.cancelOffer({ offer: 'deposit', recordId: d.id, tradeOfferId: d.offer.id });
    await expect(w.platform.cancelOffer({ offer: 'deposit', recordId: d.id + 999, tradeOfferId: d.offer.id })).rejects.toThrow(/not the offer/);
  });
});

describe('sessions and bots', () => {
  it('an expired session: the next call signs in again and goes through', async () => {
    const signIns = w.fake.signIns;
    w.fake.expireSessions();
    const d = await deposit(); // send answers 401 → sign in again → send once more
    expect(w.fake.signIns).toBe(signIns + 1);
    w.fake.accept(d.offer.id);
    w.fake.expireSessions();
    await w.platform.pollTick(); // the poll meets "Access is denied" → sessionExpired → sign-in
    await w.platform.pollTick();
    expect(w.fake.signIns).toBe(signIns + 2);
    expect((await status(d.id)).status).toBe('hold');
  });

  it('purchase offers give the bot\'s item and are confirmed on the mobile confirmation endpoint; one per purchase', async () => {
    const bot = w.bots[0].fake;
    bot.items.push({ assetid: '88800000001', classid: '900', name: NAMES[0] });
    const partner = ++partnerSeq;
    w.fake.addUser({ partner, token: TOKEN, items: [] });
    // No purchase 424241 exists: the gateway's guard refuses to confirm its offer, which is canceled instead.
    const confirmations = () => w.fake.requests.filter((r) => r.path === '/community/mobileconf/ajaxop').length;
    const before = confirmations();
    await expect(w.platform.sendPurchaseOffer({ purchaseId: 424241, game: 'csgo', partner, token: TOKEN, listingId: 'abc', assetId: '88800000001' })).rejects.toThrow(/no longer wants/);
    const unwanted = w.fake.sentBy(bot.steamId).find((x) => x.message.startsWith('[gw:purchase:424241]'))!;
    expect(unwanted.state).toBe(6);
    expect(confirmations()).toBe(before);
    w.platform.onOfferGuard!(async (k, id, t) => (k === 'purchase' && id === 424242) || (k === 'deposit' ? w.gw.ctx.deposits.wantsOffer(id, t) : w.gw.ctx.purchases.wantsOffer(id, t)));
    const sent = await w.platform.sendPurchaseOffer({ purchaseId: 424242, game: 'csgo', partner, token: TOKEN, listingId: 'abc', assetId: '88800000001' });
    const o = w.fake.offers.get(sent.tradeOfferId)!;
    expect(o.give.map((i) => i.assetid)).toEqual(['88800000001']);
    expect(o.message).toBe('[gw:purchase:424242] Purchase #424242');
    expect(o.state).toBe(2); // confirmed with a key from the identity secret
    expect(w.fake.requests.some((r) => r.path === '/community/mobileconf/ajaxop' && r.status === 200)).toBe(true);
    const again = await w.platform.sendPurchaseOffer({ purchaseId: 424242, game: 'csgo', partner, token: TOKEN, listingId: 'abc', assetId: '88800000001' });
    expect(again.tradeOfferId).toBe(sent.tradeOfferId);
    expect(w.fake.sentBy(bot.steamId).filter((x) => x.message.startsWith('[gw:purchase:424242]')).length).toBe(1);
  });

  it('a bot that cannot trade (new device) is taken out of rotation and shown to the operator', async () => {
    w.fake.nextSendError = 'You have logged in from a new device. In order to protect the items in your inventory, you will be unable to trade from this device for 7 days.';
    const partner = ++partnerSeq;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: '77700000001', classid: '1', name: NAMES[0] }] });
    await expect(w.platform.sendDepositOffer({ depositId: 999001, game: 'csgo', partner, token: TOKEN, assets: [{ assetId: '77700000001', marketHashName: 'any' }] })).rejects.toBeInstanceOf(PlatformUnavailableError);
    const shown = (await w.gw.admin('GET', `/bots/${w.bots[0].id}`)).body.data;
    expect(shown).toMatchObject({ status: 'cannot_trade', trade_state: 'cannot_trade' });
    expect(shown.trade_state_reason).toMatch(/NewDevice/);
    await expect(w.platform.checkTradeLink('csgo', partner, TOKEN)).rejects.toBeInstanceOf(PlatformUnavailableError);
    expect(await w.platform.leaseTick()).toEqual([]);
    // Nothing was sent, so the claim is gone; the operator puts the bot back.
    expect(await w.gw.ctx.db.selectFrom('steam_offers').select('record_id').where('record_id', '=', 999001).execute()).toEqual([]);
    await w.gw.admin('PATCH', `/bots/${w.bots[0].id}`, { enabled: true });
    expect(await w.platform.leaseTick()).toEqual([w.bots[0].id]);
  });
});
