// The platform calls one deposit and one purchase cost, from creation to hold, counted at the
// stand-in platform by endpoint (the periodic polls apart: the offers poll and the trade history
// serve every record at once). The budget is docs/going-live.md's "Steam calls per flow" table: a
// call more here is a regression (something already read in the flow read again).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importListings } from '../../src/modules/catalogue/catalogue-import.js';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

/** The periodic polls: one call serves every record of the bot, whatever the flows in between. */
const PERIODIC = new Set(['GET /api/IEconService/GetTradeOffers/v1/', 'GET /api/IEconService/GetTradeHistory/v1/']);

/** The stand-in's requests since `from`, by method and endpoint (ids folded), the periodic polls apart. */
function callsSince(from: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of w.fake.requests.slice(from)) {
    const k = `${r.method} ${r.path.replace(/\/\d{6,}\//g, '/:steamid/')}`;
    if (!PERIODIC.has(k)) out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 2, topUp: 1000 }));
});
afterAll(async () => w?.stop());

describe('Steam calls per flow (docs/going-live.md)', () => {
  it('a deposit, inventory to hold: one trade offer page, one inventory read, one send, one exchange read', async () => {
    const partner = 42_000_001;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: '5400000001', classid: '1', name: NAME }] });
    const from = w.fake.requests.length;
    const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const dep = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'budget-dep', game: 'csgo', partner, token: TOKEN, asset_ids: ['5400000001'] });
    expect(dep.body.data.status, JSON.stringify(dep.body)).toBe('active');
    w.fake.accept(dep.body.data.trade_offer_id);
    await w.platform.pollTick();
    expect((await w.gw.merchant(key, 'GET', `/deposit/status?id=${dep.body.data.id}`)).body.data.status).toBe('hold');
    // The received assets' new ids are read from the trade the poll already saw (no second offer read).
    expect(await w.gw.ctx.db.selectFrom('steam_received_assets').select('new_asset_id').where('deposit_id', '=', dep.body.data.id).execute()).toHaveLength(1);
    expect(callsSince(from)).toEqual({
      'GET /community/tradeoffer/new/': 1, // the trade link's partner details, read at the inventory step and reused by the create
      'GET /community/inventory/:steamid/730/2': 1, // the user's inventory, read once for the quote and the create's check
      'POST /community/tradeoffer/new/send': 1,
      'GET /api/IEconService/GetTradeStatus/v1/': 1, // the new asset ids of the received items
    });
  });

  it('a purchase of an item the second bot holds, create to hold: one trade offer page, one inventory read (that bot\'s), one send, one confirmation', async () => {
    const holder = w.bots[1].fake;
    holder.items.push({ assetid: '5500000001', classid: '2', name: NAME });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'steam-budget-'));
    const file = path.join(dir, 'listings.jsonl');
    const listingId = 'b0d9e70000000001';
    await fs.writeFile(file, JSON.stringify({ id: listingId, game: 'csgo', name: NAME, price: 3.5, inspect_url: `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S${holder.steamId}A5500000001D4649842965496580321` }) + '\n');
    expect((await importListings(w.gw.ctx, file, () => {})).errors).toEqual([]);
    const partner = 42_000_002;
    w.fake.addUser({ partner, token: TOKEN, items: [] });
    const from = w.fake.requests.length;
    const p = await w.gw.merchant(key, 'POST', '/purchase', { partner, token: TOKEN, game: 'csgo', asset_id: listingId, merchant_tx_id: 'budget-pur' });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    await w.gw.ctx.purchases.dispatch(p.body.data.id, { attempts: 1, maxAttempts: 5 });
    const offers = [...w.fake.offers.values()].filter((o) => o.message.startsWith(`[gw:purchase:${p.body.data.id}]`));
    expect(offers.map((o) => [o.bot, o.state])).toEqual([[holder.steamId, 2]]);
    w.fake.accept(offers[0].id);
    await w.platform.pollTick();
    expect((await w.gw.merchant(key, 'GET', `/purchase/status?id=${p.body.data.id}`)).body.data.status).toBe('hold');
    expect(callsSince(from)).toEqual({
      'GET /community/tradeoffer/new/': 1, // the buyer's trade link, at the create
      [`GET /community/inventory/:steamid/730/2`]: 1, // the holding bot's own inventory only (the listing names it)
      'POST /community/tradeoffer/new/send': 1,
      'GET /community/mobileconf/getlist': 1, // the confirmation of the offer giving our item
      'GET /community/mobileconf/ajaxop': 1,
    });
  });
});
