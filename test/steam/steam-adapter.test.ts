// The steam adapter driven through the real libraries (steamcommunity, steam-tradeoffer-manager,
// steam-totp) against a stand-in platform on 127.0.0.1; nothing may reach the network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformAssetsRefusedError, PlatformUnavailableError, PlatformUserError } from '../../src/platform/port.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
const item = (n: number, name = 'AK-47 | Redline (Minimal Wear)') => ({ assetid: String(31_000_000_000 + n), classid: String(1000 + (n % 7)), name });

beforeAll(async () => {
  offline();
  w = await startSteamWorld({ bots: 1 });
  expect(await w.platform.leaseTick()).toEqual([w.bots[0].id]);
  w.fake.addUser({ partner: 12345678, token: 'AbCd_-12', name: 'Alice', items: [item(1), item(2), { ...item(3), tradable: false }] });
  w.fake.addUser({ partner: 12345679, token: 'tok12345', escrowDays: 7, items: [] });
  w.fake.addUser({ partner: 12345680, token: 'tok12345', probation: true, items: [] });
  w.fake.addUser({ partner: 12345681, token: 'tok12345', hiddenApps: [730], items: [] });
  w.fake.addUser({ partner: 12345682, token: 'tok12345', hiddenApps: [730], escrowDays: 3, items: [] });
  w.fake.addUser({ partner: 12345683, token: 'tok12345', private: true, items: [] });
  w.fake.addUser({ partner: 12345684, token: 'tok12345', items: Array.from({ length: 2500 }, (_, i) => item(100 + i)) });
});
afterAll(async () => w?.stop());

describe('sign-in', () => {
  it('signs the bot in, stores its refresh token encrypted and acknowledges trade protection once', async () => {
    expect(w.fake.signIns).toBe(1);
    expect(w.fake.bots.get(w.bots[0].fake.steamId)!.acknowledged).toBe(true);
    const row = await w.gw.ctx.db.selectFrom('bots').select(['refresh_token', 'trade_protection_acknowledged_at', 'lease_owner']).where('id', '=', w.bots[0].id).executeTakeFirstOrThrow();
    expect(row.refresh_token).toBeInstanceOf(Buffer);
    expect(row.refresh_token!.includes(Buffer.from('rt-'))).toBe(false);
    expect(row.trade_protection_acknowledged_at).not.toBeNull();
    expect(row.lease_owner).toBe(w.platform.instanceId);
  });
});

describe('checkTradeLink (getUserDetails)', () => {
  it('a good link answers the user with the 64-bit id and persona name', async () => {
    expect(await w.platform.checkTradeLink('csgo', 12345678, 'AbCd_-12')).toMatchObject({ partner: 12345678, platformId: '76561197972611406', name: 'Alice' });
  });
  it.each([
    [12345678, 'wrongtok', 'trade_link_revoked'],
    [99999999, 'tok12345', 'trade_link_invalid'],
    [12345678, 'short', 'trade_link_invalid'],
    [12345679, 'tok12345', 'hold'],
    [12345680, 'tok12345', 'trade_banned'],
    [12345681, 'tok12345', 'permissions'],
    [12345682, 'tok12345', 'hold_and_permissions'],
  ])('partner %s token %s → %s', async (partner, token, code) => {
    const err = await w.platform.checkTradeLink('csgo', partner, token).catch((e) => e);
    expect(err).toBeInstanceOf(PlatformUserError);
    expect(err.code).toBe(code);
  });
  it('a link read once is not read again (the create and the send reuse the quote\'s read); a refused one is', async () => {
    const pages = () => w.fake.requests.filter((r) => r.path === '/community/tradeoffer/new/').length;
    const before = pages();
    await expect(w.platform.checkTradeLink('csgo', 12345678, 'AbCd_-12')).resolves.toMatchObject({ name: 'Alice' });
    expect(pages()).toBe(before);
    // A user refused for a hold is read again: the hold may be gone now.
    w.fake.users.get(12345679)!.escrowDays = 0;
    await expect(w.platform.checkTradeLink('csgo', 12345679, 'tok12345')).resolves.toMatchObject({ partner: 12345679 });
    expect(pages()).toBe(before + 1);
    w.fake.users.get(12345679)!.escrowDays = 7;
  });
  it('the app the user hides is per game', async () => {
    await expect(w.platform.checkTradeLink('dota2', 12345681, 'tok12345')).resolves.toMatchObject({ partner: 12345681 });
  });
});

describe('loadInventory', () => {
  it('tradable items only, names from the platform', async () => {
    const items = await w.platform.loadInventory('csgo', 12345678, 'AbCd_-12');
    expect(items.map((i) => i.assetId)).toEqual([item(1).assetid, item(2).assetid]);
    expect(items[0]).toMatchObject({ marketHashName: 'AK-47 | Redline (Minimal Wear)' });
  });
  it('pages 1000 at a time', async () => {
    const before = w.fake.requests.filter((r) => r.path.includes('/inventory/76561197972611412/')).length;
    const items = await w.platform.loadInventory('csgo', 12345684, 'tok12345');
    expect(items.length).toBe(2500);
    expect(new Set(items.map((i) => i.assetId)).size).toBe(2500);
    expect(w.fake.requests.filter((r) => r.path.includes('/inventory/76561197972611412/')).length - before).toBe(3);
    // Cached briefly: a second load does not ask again.
    await w.platform.loadInventory('csgo', 12345684, 'tok12345');
    expect(w.fake.requests.filter((r) => r.path.includes('/inventory/76561197972611412/')).length - before).toBe(3);
  });
  it('a private profile → profile_private', async () => {
    const err = await w.platform.loadInventory('csgo', 12345683, 'tok12345').catch((e) => e);
    expect(err).toBeInstanceOf(PlatformUserError);
    expect(err.code).toBe('profile_private');
  });
});

describe('rate limits', () => {
  it('429s on getUserDetails are backed off and retried; persistent ones → unavailable', async () => {
    // Links not read before (a link's details, once read, stand for the quote's life: no call).
    w.fake.addUser({ partner: 12345685, token: 'tok12345', items: [] });
    w.fake.addUser({ partner: 12345686, token: 'tok12345', items: [] });
    w.fake.limit(/\/tradeoffer\/new\/$/, 2);
    await expect(w.platform.checkTradeLink('csgo', 12345685, 'tok12345')).resolves.toMatchObject({ partner: 12345685 });
    expect(w.fake.requests.filter((r) => r.status === 429).length).toBe(2);
    // Four attempts per call, then the merchant hears the platform is unavailable (not a user error).
    w.fake.limit(/\/tradeoffer\/new\/$/, 4);
    await expect(w.platform.checkTradeLink('csgo', 12345686, 'tok12345')).rejects.toBeInstanceOf(PlatformUnavailableError);
    expect(w.fake.requests.filter((r) => r.status === 429).length).toBe(6);
  });
  it('no bot for a game → unavailable', async () => {
    await w.gw.ctx.db.updateTable('bots').set({ games: ['rust'] }).where('id', '=', w.bots[0].id).execute();
    await w.platform.leaseTick();
    w.fake.addUser({ partner: 12345687, token: 'tok12345', items: [] });
    await expect(w.platform.checkTradeLink('csgo', 12345687, 'tok12345')).rejects.toBeInstanceOf(PlatformUnavailableError);
    await w.gw.ctx.db.updateTable('bots').set({ games: ['csgo', 'rust', 'dota2', 'tf2'] }).where('id', '=', w.bots[0].id).execute();
    await w.platform.leaseTick();
  });
});

describe('sending under rate limits, and the operator check', () => {
  it('429s on send are backed off; exactly one offer goes out', async () => {
    w.fake.addUser({ partner: 12345690, token: 'tok12345', items: [item(9000)] });
    w.fake.limit(/\/tradeoffer\/new\/send$/, 2);
    const sent = await w.platform.sendDepositOffer({ depositId: 555001, game: 'csgo', partner: 12345690, token: 'tok12345', assets: [{ assetId: item(9000).assetid, marketHashName: item(9000).name }] });
    expect([...w.fake.offers.values()].filter((o) => o.message.startsWith('[gw:deposit:555001]')).map((o) => o.id)).toEqual([sent.tradeOfferId]);
    expect(w.fake.requests.filter((r) => r.path === '/community/tradeoffer/new/send' && r.status === 429).length).toBe(2);
  });

  it('a purchase item the bot cannot trade yet (trade protection) is never offered', async () => {
    w.bots[0].fake.items.push({ ...item(9200), tradable: false });
    w.fake.addUser({ partner: 12345692, token: 'tok12345', items: [] });
    await expect(w.platform.sendPurchaseOffer({ purchaseId: 555003, game: 'csgo', partner: 12345692, token: 'tok12345', listingId: 'ab', assetId: item(9200).assetid })).rejects.toBeInstanceOf(PlatformUnavailableError);
    expect([...w.fake.offers.values()].some((o) => o.message.startsWith('[gw:purchase:555003]'))).toBe(false);
  });

  it('a reset trade link at send time → trade_link_revoked, nothing recorded, a later attempt may send', async () => {
    w.fake.addUser({ partner: 12345691, token: 'newtoken', items: [item(9001)] });
    const err = await w.platform.sendDepositOffer({ depositId: 555002, game: 'csgo', partner: 12345691, token: 'oldtoken', assets: [{ assetId: item(9001).assetid, marketHashName: item(9001).name }] }).catch((e) => e);
    expect(err).toBeInstanceOf(PlatformUserError);
    expect(err.code).toBe('trade_link_revoked');
    expect(await w.gw.ctx.db.selectFrom('steam_offers').select('record_id').where('record_id', '=', 555002).execute()).toEqual([]);
  });

  it("items gone from the user's inventory at send time (eresult 26) → assets refused, nothing recorded", async () => {
    w.fake.addUser({ partner: 12345693, token: 'tok12345', items: [item(9002)] });
    const gone = String(31_000_000_000 + 9003); // never in the user's inventory (traded away meanwhile)
    const err = await w.platform.sendDepositOffer({ depositId: 555004, game: 'csgo', partner: 12345693, token: 'tok12345', assets: [{ assetId: item(9002).assetid, marketHashName: item(9002).name }, { assetId: gone, marketHashName: item(9003).name }] }).catch((e) => e);
    expect(err).toBeInstanceOf(PlatformAssetsRefusedError);
    expect(err.assetIds).toEqual([item(9002).assetid, gone]);
    expect(await w.gw.ctx.db.selectFrom('steam_offers').select('record_id').where('record_id', '=', 555004).execute()).toEqual([]);
  });

  it('POST /api/admin/bots/:id/check signs the bot in and reports what it can do', async () => {
    w.bots[0].fake.items.push(item(9100), { ...item(9101), tradable: false });
    const res = await w.gw.admin('POST', `/bots/${w.bots[0].id}/check`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.check).toMatchObject({ signed_in: true, can_trade: true, trade_protection_acknowledged: true, confirmations_reachable: true, problems: [] });
    expect(res.body.data.check.inventory.csgo).toBeGreaterThanOrEqual(1);
    expect(res.body.data.bot.last_checked_at).not.toBeNull();
  });
});
