// The bots' stock is the catalogue on PLATFORM=steam (issue 20, point 6), through the stand-in
// platform: the sync reads the bots' inventories as Steam serves them (context 2, the protected
// context 16, the bots' active offers) and lists only what can be sold now; a bot whose inventory
// cannot be read (429s past the backoff) keeps its listings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { botListingId } from '../../src/modules/catalogue/bot-stock.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
let bot: number;
const TOKEN = 'tok12345';
const AK = 'AK-47 | Redline (Minimal Wear)';
const AWP = 'AWP | Asiimov (Field-Tested)';

const listing = (assetId: string) => w.gw.ctx.db.selectFrom('listings').select(['id', 'status', 'base_price', 'asset_id']).where('id', '=', botListingId(bot, 'csgo', assetId)).executeTakeFirst();

beforeAll(async () => {
  offline();
  w = await startSteamWorld({ bots: 1, worker: true, env: { STEAM_POLL_INTERVAL_MS: '1000', BOT_LEASE_SECONDS: '3', BOT_SYNC_GAMES: 'csgo' } });
  bot = w.bots[0].id;
  await eventually(async () => w.platform.driverOf(bot)?.signedIn, 15_000);
  const m = await w.gw.createMerchant();
  key = m.api_key;
  await w.gw.topUp(m.id, 10_000);
  const fb = w.bots[0].fake;
  fb.items.push(
    { assetid: '8100000001', classid: '81', name: AK },
    { assetid: '8100000002', classid: '82', name: AWP },
    { assetid: '8100000003', classid: '83', name: AK, tradable: false }, // a trade cooldown
    { assetid: '8100000004', classid: '84', name: AWP, context: '16' }, // received in the last 7 days
    { assetid: '8100000005', classid: '85', name: AK }, // given in an active offer (below)
  );
  w.fake.addUser({ partner: 42_000_001, token: TOKEN, items: [] });
  const now = Math.floor(Date.now() / 1000);
  w.fake.offers.set('7999000001', { id: '7999000001', bot: fb.steamId, partner: 42_000_001, message: 'made by hand', state: 2, give: [fb.items[4]], receive: [], created: now, updated: now });
});
afterAll(async () => w?.stop());

describe('bot stock sync on steam', () => {
  it('lists the tradable items only: not one in a cooldown, in trade protection (context 16) or in an active offer', async () => {
    expect(w.gw.ctx.pricing.entry('csgo', AK)).toBeDefined();
    expect(w.gw.ctx.pricing.entry('csgo', AWP)).toBeDefined();
    const r = await w.gw.admin('POST', '/bots/sync', {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.bots).toEqual([{ bot_id: bot, game: 'csgo', items: 5, listed: 2, delisted: 0, skipped: { protected: 2, in_offer: 1, deposit: 0, listed: 0, unpriced: 0, filtered: 0 } }]);
    expect((await listing('8100000001'))!.status).toBe('live');
    expect(Number((await listing('8100000002'))!.base_price)).toBe(w.gw.ctx.pricing.entry('csgo', AWP)!.price);
    for (const a of ['8100000003', '8100000004', '8100000005']) expect(await listing(a)).toBeUndefined();
  });

  it('a bot whose inventory cannot be read keeps its listings; once readable, what left it is delisted', async () => {
    const fb = w.bots[0].fake;
    fb.items.splice(fb.items.findIndex((i) => i.assetid === '8100000002'), 1);
    w.fake.limit(new RegExp(`/inventory/${fb.steamId}/730/2$`), 50);
    const failed = await w.gw.admin('POST', '/bots/sync', {});
    expect(failed.body.data).toMatchObject({ errors: 1, delisted: 0 });
    expect(failed.body.data.bots[0].error).toBeTruthy();
    expect((await listing('8100000002'))!.status).toBe('live');
    w.fake.clearLimits();
    const ok = await w.gw.admin('POST', '/bots/sync', {});
    expect(ok.body.data).toMatchObject({ errors: 0, delisted: 1, listed: 0 });
    expect((await listing('8100000002'))!.status).toBe('delisted');
  });

  it('a bot listing is bought: the offer gives that very asset', async () => {
    const buyer = 42_000_002;
    w.fake.addUser({ partner: buyer, token: TOKEN, items: [] });
    const p = await w.gw.merchant(key, 'POST', '/purchase', { partner: buyer, token: TOKEN, game: 'csgo', asset_id: botListingId(bot, 'csgo', '8100000001'), merchant_tx_id: 'stock-steam-1' });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    await eventually(async () => (await w.gw.merchant(key, 'GET', `/purchase/status?id=${p.body.data.id}`)).body.data.status === 'active', 20_000, 200);
    const offers = [...w.fake.offers.values()].filter((o) => o.message.startsWith(`[gw:purchase:${p.body.data.id}]`));
    expect(offers.map((o) => o.give.map((i) => i.assetid))).toEqual([['8100000001']]);
  }, 40_000);
});
