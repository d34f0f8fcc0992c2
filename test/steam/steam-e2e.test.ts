// Black-box run of a steam-mode gateway against the stand-in platform: the job worker and the
// adapter's own timers (leases, polls, trade history) do everything; the test only acts as the
// merchant (API) and as the platform's users (accept, reverse).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { importListings } from '../../src/modules/catalogue/catalogue-import.js';
import { depositListingId } from '../catalogue/deposit-listing-id.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

beforeAll(async () => {
  offline();
  w = await startSteamWorld({ bots: 1, worker: true, env: { STEAM_POLL_INTERVAL_MS: '1000', STEAM_HISTORY_POLL_MS: '1000', BOT_LEASE_SECONDS: '3', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '3600', HOLD_SECONDS_RUST: '0' } });
  const m = await w.gw.createMerchant({ webhook_url: 'http://127.0.0.1:9/hooks' });
  key = m.api_key;
  await w.gw.topUp(m.id, 1000);
  // The bot added after start is picked up by the next lease round.
  await eventually(async () => w.platform.driverOf(w.bots[0].id)?.signedIn, 10_000);
});
afterAll(async () => w?.stop());

const depositStatus = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const purchaseStatus = async (id: number) => (await w.gw.merchant(key, 'GET', `/purchase/status?id=${id}`)).body.data;

describe('steam mode end to end (stand-in platform)', () => {
  it('a deposit is accepted, held, then reversed during trade protection: reverted, balance back, webhooks queued', async () => {
    const partner = 40_000_001;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: '5100000001', classid: '1', name: NAME }] });
    const before = (await w.gw.merchant(key, 'GET', '/balance')).body.data;
    const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const dep = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'e2e-dep', game: 'csgo', partner, token: TOKEN, asset_ids: ['5100000001'] });
    expect(dep.body.data.status).toBe('active');
    w.fake.accept(dep.body.data.trade_offer_id);
    await eventually(async () => (await depositStatus(dep.body.data.id)).status === 'hold', 15_000, 200);
    w.fake.reverse(dep.body.data.trade_offer_id);
    await eventually(async () => (await depositStatus(dep.body.data.id)).status === 'reverted', 15_000, 200);
    expect((await depositStatus(dep.body.data.id)).fail_reason).toBe('user_reverted');
    expect((await w.gw.merchant(key, 'GET', '/balance')).body.data).toEqual(before);
    const events = await w.gw.ctx.db.selectFrom('webhook_events').select('payload').where('kind', '=', 'deposit').where('record_id', '=', dep.body.data.id).orderBy('id').execute();
    expect(events.map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).status)).toEqual(['hold', 'reverted']);
  }, 40_000);

  it('a purchase of a listing the bot holds: the offer gives that asset, is confirmed, and the accept is reported', async () => {
    const bot = w.bots[0].fake;
    bot.items.push({ assetid: '5200000001', classid: '2', name: NAME });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'steam-e2e-'));
    const file = path.join(dir, 'listings.jsonl');
    const listingId = 'e2e0000000000001';
    await fs.writeFile(file, JSON.stringify({ id: listingId, game: 'csgo', name: NAME, price: 12.5, inspect_url: `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S${bot.steamId}A5200000001D4649842965496580321` }) + '\n');
    const imported = await importListings(w.gw.ctx, file, () => {});
    expect(imported.errors).toEqual([]);
    const partner = 40_000_002;
    w.fake.addUser({ partner, token: TOKEN, items: [] });
    const p = await w.gw.merchant(key, 'POST', '/purchase', { partner, token: TOKEN, game: 'csgo', asset_id: listingId, merchant_tx_id: 'e2e-pur' });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    await eventually(async () => (await purchaseStatus(p.body.data.id)).status === 'active', 15_000, 200);
    const offers = [...w.fake.offers.values()].filter((o) => o.message.startsWith(`[gw:purchase:${p.body.data.id}]`));
    expect(offers.length).toBe(1);
    const offer = offers[0];
    expect(offer.give.map((i) => i.assetid)).toEqual(['5200000001']);
    expect(offer.state).toBe(2); // confirmed
    w.fake.accept(offer.id);
    await eventually(async () => ['hold', 'completed'].includes((await purchaseStatus(p.body.data.id)).status), 15_000, 200);
  }, 40_000);

  it('a deposited item becomes a listing and is sold from the bot under the asset id it arrived with', async () => {
    const partner = 40_000_003;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: '5300000001', classid: '3', name: 'Alien Red', appid: 252490 }] });
    const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'rust', partner, token: TOKEN });
    expect(inv.body.data.items.map((i: any) => i.id)).toEqual(['5300000001']);
    const dep = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'e2e-dep-rust', game: 'rust', partner, token: TOKEN, asset_ids: ['5300000001'] });
    expect(dep.body.data.status).toBe('active');
    w.fake.accept(dep.body.data.trade_offer_id); // Rust: no hold here (HOLD_SECONDS_RUST=0) → completed
    await eventually(async () => (await depositStatus(dep.body.data.id)).status === 'completed', 15_000, 200);
    const newAssetId = String(5300000001n + 1_000_000_000_000n); // what the stand-in platform gave the bot
    await eventually(async () => (await w.gw.ctx.db.selectFrom('steam_received_assets').select('new_asset_id').where('deposit_id', '=', dep.body.data.id).executeTakeFirst())?.new_asset_id === newAssetId, 15_000, 200);
    const listingId = depositListingId(dep.body.data.id, '5300000001');
    await eventually(async () => w.gw.ctx.db.selectFrom('listings').select('id').where('id', '=', listingId).where('status', '=', 'live').executeTakeFirst(), 15_000, 200);
    const buyer = 40_000_004;
    w.fake.addUser({ partner: buyer, token: TOKEN, items: [] });
    const p = await w.gw.merchant(key, 'POST', '/purchase', { partner: buyer, token: TOKEN, game: 'rust', asset_id: listingId, merchant_tx_id: 'e2e-pur-rust' });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    await eventually(async () => (await purchaseStatus(p.body.data.id)).status === 'active', 15_000, 200);
    const offers = [...w.fake.offers.values()].filter((o) => o.message.startsWith(`[gw:purchase:${p.body.data.id}]`));
    expect(offers.map((o) => o.give.map((i) => i.assetid))).toEqual([[newAssetId]]);
    // Reconciliation: the listing's item is in the bot's inventory; once it vanishes, the check reports it.
    expect((await w.gw.admin('POST', `/bots/${w.bots[0].id}/check`)).body.data.check.listed_but_missing).toEqual([]);
    const bot = w.bots[0].fake;
    bot.items.splice(bot.items.findIndex((i) => i.assetid === newAssetId), 1);
    const check = (await w.gw.admin('POST', `/bots/${w.bots[0].id}/check`)).body.data.check;
    expect(check.listed_but_missing).toEqual([newAssetId]);
    expect(check.can_trade).toBe(true);
  }, 60_000);
});
