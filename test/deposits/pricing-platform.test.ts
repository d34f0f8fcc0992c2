// Pricing service (PRICE_BOOK source, periodic reload) and the sandbox platform adapter.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { PlatformUnavailableError, PlatformUserError } from '../../src/platform/port.js';
import { TOKEN, nextPartner } from './deposit-helpers.js';

let dir: string;
let gw: TestGateway;
let m: any;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pricebook-'));
  await fs.writeFile(path.join(dir, 'tf2.csv'), 'market_hash_name,price,rarity,rarity_color\n"Key, Mann Co.",2.5,Unique,7d6d00\nFree Hat,0,,\n');
  gw = await startTestGateway({ PRICE_BOOK: dir, PRICE_REFRESH_SECONDS: '1', OFFER_TTL_SECONDS: '120' });
  m = await gw.createMerchant({ name: 'Pricing' });
});
afterAll(async () => {
  await gw?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('pricing service', () => {
  it('loads PRICE_BOOK, omits zero-priced items and reloads every PRICE_REFRESH_SECONDS', async () => {
    const q = await gw.merchant(m.api_key, 'POST', '/get-prices', { game: 'tf2', marketHashNames: ['Key, Mann Co.', 'Free Hat'], no_deposit_intent: true });
    expect(q.body.data).toEqual({ total: 1, sum: 2.5, items: [{ name: 'Key, Mann Co.', price: 2.5, originalPrice: 2.5 }] });
    // csgo is not in this book: nothing priced, an empty inventory of priced items
    const inv = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner: nextPartner(), token: TOKEN });
    expect(inv.body.data.total).toBe(0);

    await fs.writeFile(path.join(dir, 'tf2.csv'), 'market_hash_name,price\n"Key, Mann Co.",2.75\n');
    await eventually(async () => gw.ctx.pricing.entry('tf2', 'Key, Mann Co.')?.price === 2750, 10_000, 100);
    // a broken book on reload keeps the previous one
    await fs.writeFile(path.join(dir, 'tf2.csv'), 'market_hash_name,price\n"Key, Mann Co.",-1\n');
    const loadedAt = gw.ctx.pricing.loadedAt().getTime();
    await new Promise((r) => setTimeout(r, 2200));
    expect(gw.ctx.pricing.loadedAt().getTime()).toBe(loadedAt);
    expect(gw.ctx.pricing.entry('tf2', 'Key, Mann Co.')?.price).toBe(2750);
    gw.ctx.pricing.stop();
  });
});

describe('sandbox platform adapter', () => {
  it('sendPurchaseOffer: checks the user, picks a bot, offer id and expiry = now + OFFER_TTL_SECONDS', async () => {
    const p = gw.ctx.platform;
    const t0 = Date.now();
    const offer = await p.sendPurchaseOffer({ purchaseId: 7, game: 'csgo', partner: nextPartner(), token: TOKEN, listingId: 'abc' });
    expect(offer.bot.name).toMatch(/^Sandbox Bot/);
    expect(offer.bot.platformId).toMatch(/^\d{17}$/);
    expect(offer.tradeOfferId).toMatch(/^\d+$/);
    expect(offer.expiresAt.getTime()).toBeGreaterThanOrEqual(t0 + 120_000 - 50);
    expect(offer.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 120_000 + 50);
    const again = await p.sendPurchaseOffer({ purchaseId: 8, game: 'csgo', partner: nextPartner(), token: TOKEN, listingId: 'abc' });
    expect(again.tradeOfferId).not.toBe(offer.tradeOfferId);
    await expect(p.sendPurchaseOffer({ purchaseId: 9, game: 'csgo', partner: 90000003, token: TOKEN, listingId: 'x' })).rejects.toBeInstanceOf(PlatformUserError);
    await expect(p.sendPurchaseOffer({ purchaseId: 9, game: 'csgo', partner: 90000010, token: TOKEN, listingId: 'x' })).rejects.toBeInstanceOf(PlatformUnavailableError);
    await expect(p.sendPurchaseOffer({ purchaseId: 9, game: 'csgo', partner: 12345678, token: 'short', listingId: 'x' })).rejects.toMatchObject({ code: 'trade_link_invalid' });
  });

  it('checkTradeLink gives the 64-bit platform id; magic partners throw their code; bots live in the database', async () => {
    const u = await gw.ctx.platform.checkTradeLink('csgo', 12345678, TOKEN);
    expect(u.platformId).toBe((76561197960265728n + 12345678n).toString());
    await expect(gw.ctx.platform.checkTradeLink('csgo', 90000007, TOKEN)).rejects.toMatchObject({ code: 'permissions', field: 'game' });
    const bots = await gw.ctx.db.selectFrom('bots').selectAll().execute();
    expect(bots.length).toBeGreaterThanOrEqual(3);
    expect(new Set(bots.map((b) => b.platform_id)).size).toBe(bots.length);
  });
});
