// CS2 trade protection as data: the window and the hold's margin are settings
// (STEAM_PROTECTION_WINDOW_SECONDS, STEAM_PROTECTION_MARGIN_SECONDS) read by the start check
// (HOLD_SECONDS_CSGO at least their sum) and by the hold's end; a protection end Steam reports for
// the accepted trade (its items' own release time) is what the hold ends from. At the edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startSteamMerchantWorld, BOT_KEY, type SteamWorld } from './steam-helpers.js';

const WINDOW = 86_400; // one day here, to tell the setting from the old constant (7 days)
const MARGIN = 600;
const HOUR = 3_600_000;

describe('the start check', () => {
  const base = { PLATFORM: 'steam', BOT_SECRETS_KEY: 'ab'.repeat(32), PRICE_SKINPORT: 'https://api.skinport.com/v1/items?app_id=730&currency=USD' };
  it('defaults: a 7-day window and an hour\'s margin; the CS2 hold defaults to and may not go below their sum', () => {
    const c = loadConfig(base);
    expect(c.steam).toMatchObject({ protectionWindowSeconds: 7 * 86400, protectionMarginSeconds: 3600 });
    expect(c.holdSeconds.csgo).toBe(7 * 86400 + 3600);
  });
  it('the settings move the minimum: their sum is accepted, one second less refused', () => {
    const env = { ...base, STEAM_PROTECTION_WINDOW_SECONDS: String(WINDOW), STEAM_PROTECTION_MARGIN_SECONDS: String(MARGIN) };
    expect(loadConfig(env).holdSeconds.csgo).toBe(WINDOW + MARGIN);
    expect(loadConfig({ ...env, HOLD_SECONDS_CSGO: String(WINDOW + MARGIN) }).holdSeconds.csgo).toBe(WINDOW + MARGIN);
    expect(() => loadConfig({ ...env, HOLD_SECONDS_CSGO: String(WINDOW + MARGIN - 1) })).toThrow(new RegExp(`HOLD_SECONDS_CSGO must be between ${WINDOW + MARGIN}`));
    expect(() => loadConfig({ ...base, STEAM_PROTECTION_WINDOW_SECONDS: '-1' })).toThrow(/STEAM_PROTECTION_WINDOW_SECONDS/);
  });
});

describe('the hold\'s end', () => {
  let w: SteamWorld;
  let key: string;
  let partnerSeq = 41_000_000;
  const TOKEN = 'tok12345';

  beforeAll(async () => {
    ({ w, key } = await startSteamMerchantWorld({ bots: 1, env: { STEAM_PROTECTION_WINDOW_SECONDS: String(WINDOW), STEAM_PROTECTION_MARGIN_SECONDS: String(MARGIN), BOT_SECRETS_KEY: BOT_KEY } }));
  });
  afterAll(async () => w?.stop());

  const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;

  async function accepted(opts: { protectionEndsAt?: Date } = {}): Promise<{ id: number; offerId: string }> {
    const partner = ++partnerSeq;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '500', name: 'AK-47 | Redline (Minimal Wear)' }] });
    const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `prot-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: inv.body.data.items.map((i: any) => i.id) });
    expect(res.body.data.status, JSON.stringify(res.body)).toBe('active');
    w.fake.accept(res.body.data.trade_offer_id, opts);
    await w.platform.pollTick();
    expect((await status(res.body.data.id)).status).toBe('hold');
    return { id: res.body.data.id, offerId: res.body.data.trade_offer_id };
  }
  const acceptedAgo = (offerId: string, ms: number) =>
    w.gw.ctx.db.updateTable('steam_offers').set({ accepted_at: new Date(Date.now() - ms) }).where('trade_offer_id', '=', offerId).execute();

  it('no end reported: the window setting decides (a minute before its end: held; a second past it: ends)', async () => {
    const early = await accepted();
    const late = await accepted();
    await acceptedAgo(early.offerId, WINDOW * 1000 - 60_000);
    await acceptedAgo(late.offerId, WINDOW * 1000 + 1000);
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(early.id)).not.toBe('done');
    expect((await status(early.id)).status).toBe('hold');
    expect(await w.gw.ctx.deposits.endHoldIfClear(late.id)).toBe('done');
    expect((await status(late.id)).status).toBe('completed');
  });

  it('an end Steam reports for the trade: the hold ends at it plus the margin, and not before the history is read past it', async () => {
    // Since 2026 protection ends per item, rounded up to the hour.
    const end = new Date(Math.ceil((Date.now() + 2 * HOUR) / HOUR) * HOUR);
    const d = await accepted({ protectionEndsAt: end });
    const held = await status(d.id);
    expect(new Date(held.hold_end_date).getTime()).toBe(end.getTime() + MARGIN * 1000);
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).not.toBe('done');
    // The reported end a second ago (though the window since acceptance is far from over): it ends.
    await w.gw.ctx.db.updateTable('steam_offers').set({ escrow_ends_at: new Date(Date.now() - 1000) }).where('trade_offer_id', '=', d.offerId).execute();
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).toBe('done');
    expect((await status(d.id)).status).toBe('completed');
  });

  it('a reported end one second in the future still holds', async () => {
    const d = await accepted({ protectionEndsAt: new Date(Date.now() + HOUR) });
    await w.gw.ctx.db.updateTable('steam_offers').set({ escrow_ends_at: new Date(Date.now() + 1000) }).where('trade_offer_id', '=', d.offerId).execute();
    await w.platform.historyTick();
    expect(await w.gw.ctx.deposits.endHoldIfClear(d.id)).not.toBe('done');
    expect((await status(d.id)).status).toBe('hold');
  });
});
