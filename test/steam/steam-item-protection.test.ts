// CS2 items a deposit brings in sit in the bot's context 16 under trade protection, each with its
// own release time (the inventory's item_expiration). The poll reads it once with the trade's new
// asset ids; the deposit's hold then ends from the latest of its items' ends plus
// STEAM_PROTECTION_MARGIN_SECONDS (and the trade history read past that end), not from the
// acceptance plus STEAM_PROTECTION_WINDOW_SECONDS. At the edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_KEY, startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';

const WINDOW = 86_400;
const MARGIN = 600;
const HOUR = 3_600_000;
const TOKEN = 'tok12345';

let w: SteamWorld;
let key: string;
let partnerSeq = 44_000_000;

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 1, env: { STEAM_PROTECTION_WINDOW_SECONDS: String(WINDOW), STEAM_PROTECTION_MARGIN_SECONDS: String(MARGIN), BOT_SECRETS_KEY: BOT_KEY } }));
});
afterAll(async () => w?.stop());

const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const protectedReads = () => w.fake.requests.filter((r) => /\/inventory\/\d+\/730\/16$/.test(r.path)).length;

async function acceptedInto16(until: Date): Promise<{ id: number; offerId: string }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '600', name: 'AK-47 | Redline (Minimal Wear)' }] });
  const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `itemprot-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: [String(partner * 10)] });
  expect(res.body.data.status, JSON.stringify(res.body)).toBe('active');
  w.fake.accept(res.body.data.trade_offer_id, { itemsProtectedUntil: until });
  await w.platform.pollTick();
  expect((await status(res.body.data.id)).status).toBe('hold');
  return { id: res.body.data.id, offerId: res.body.data.trade_offer_id };
}

const setItemEnd = (offerId: string, end: Date) =>
  w.gw.ctx.db.updateTable('steam_received_assets').set({ protection_ends_at: end }).where('trade_offer_id', '=', offerId).execute();
const windowOver = (offerId: string) =>
  w.gw.ctx.db.updateTable('steam_offers').set({ accepted_at: new Date(Date.now() - WINDOW * 1000 - 1000) }).where('trade_offer_id', '=', offerId).execute();

describe('an item\'s own protection end', () => {
  it('is read once from the bot\'s context 16 and holds the deposit past the window', async () => {
    const before = protectedReads();
    const end = new Date(Math.ceil((Date.now() + 2 * HOUR) / HOUR) * HOUR); // rounded up to the hour, as Steam does
    const d = await acceptedInto16(end);
    expect(protectedReads() - before).toBe(1);
    const rows = await w.gw.ctx.db.selectFrom('steam_received_assets').select(['new_context_id', 'protection_ends_at']).where('trade_offer_id', '=', d.offerId).execute();
    expect(rows.map((r) => [r.new_context_id, new Date(r.protection_ends_at!).getTime()])).toEqual([['16', end.getTime()]]);
    // The window since acceptance is over, the items' own end is not: held.
    await windowOver(d.offerId);
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).not.toBe('done');
    expect((await status(d.id)).status).toBe('hold');
    // Another poll reads nothing more (the trade's items are recorded).
    await w.platform.pollTick();
    expect(protectedReads() - before).toBe(1);
  });

  it('at the edge: the items\' end plus the margin a minute ahead holds; a second past it, with the history read past the end, ends', async () => {
    const d = await acceptedInto16(new Date(Date.now() + HOUR));
    await windowOver(d.offerId);
    await setItemEnd(d.offerId, new Date(Date.now() - MARGIN * 1000 + 60_000));
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).not.toBe('done');
    expect((await status(d.id)).status).toBe('hold');
    await setItemEnd(d.offerId, new Date(Date.now() - MARGIN * 1000 - 1000));
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).toBe('done');
    expect((await status(d.id)).status).toBe('completed');
  });
});
