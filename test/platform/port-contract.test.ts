// One contract for the trading-platform port, run against both adapters: the sandbox simulator
// and the steam adapter (real libraries against the stand-in platform). "The user acts" is the
// sandbox's simulate, or the stand-in platform's user action followed by the adapter's poll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformUserError, platformIdOf, type OfferChange, type OfferedAsset, type PlatformItem, type TradingPlatform } from '../../src/platform/port.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { offline, startSteamWorld, type SteamWorld } from '../steam/steam-helpers.js';

/** What a deposit offer asks for: the item as the inventory names it. */
const offered = (i: PlatformItem): OfferedAsset => ({ assetId: i.assetId, marketHashName: i.marketHashName, ...(i.phase ? { phase: i.phase } : {}) });

interface Harness {
  platform: TradingPlatform;
  user: { partner: number; token: string };
  /** An asset one of our bots holds (for purchase offers). */
  botAsset(): string;
  /** The user accepts / declines the offer; resolves once the adapter has reported it. */
  act(action: 'accepted' | 'declined', offer: 'deposit' | 'purchase', recordId: number, tradeOfferId: string): Promise<void>;
  stop(): Promise<void>;
}

const OFFER_TTL = 600;

async function sandboxHarness(): Promise<Harness> {
  const gw: TestGateway = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0', OFFER_TTL_SECONDS: String(OFFER_TTL) }, { worker: false });
  const platform = gw.ctx.platform;
  return {
    platform,
    user: { partner: 12_345_678, token: 'abcdefgh' },
    botAsset: () => '1',
    act: async (change, offer, recordId, tradeOfferId) => void (await platform.simulate!({ offer, recordId, tradeOfferId, change })),
    stop: () => gw.stop(),
  };
}

async function steamHarness(): Promise<Harness> {
  offline();
  const w: SteamWorld = await startSteamWorld({ bots: 1, env: { OFFER_TTL_SECONDS: String(OFFER_TTL) } });
  await w.platform.leaseTick();
  // The contract is the adapter's alone: its records do not exist, so every offer is wanted.
  w.platform.onOfferGuard!(async () => true);
  const user = { partner: 12_345_678, token: 'abcdefgh' };
  let n = 0;
  w.fake.addUser({ ...user, items: Array.from({ length: 5 }, (_, i) => ({ assetid: String(60_000_000 + i), classid: String(i), name: 'AK-47 | Redline (Minimal Wear)' })) });
  return {
    platform: w.platform,
    user,
    botAsset: () => {
      const assetid = String(70_000_000 + ++n);
      w.bots[0].fake.items.push({ assetid, classid: '9', name: 'AK-47 | Redline (Minimal Wear)' });
      return assetid;
    },
    act: async (change, _offer, _recordId, tradeOfferId) => {
      if (change === 'accepted') w.fake.accept(tradeOfferId);
      else w.fake.decline(tradeOfferId);
      await w.platform.pollTick();
    },
    stop: () => w.stop(),
  };
}

describe.each([
  ['sandbox', sandboxHarness],
  ['steam', steamHarness],
])('port contract: %s', (_name, make) => {
  let h: Harness;
  const changes: OfferChange[] = [];
  let recordSeq = 800_000;

  beforeAll(async () => {
    h = await make();
    h.platform.onOfferChange(async (c) => {
      changes.push(c);
      return {};
    });
  });
  afterAll(async () => h?.stop());

  it('checkTradeLink answers the user with the 64-bit platform id', async () => {
    const u = await h.platform.checkTradeLink('csgo', h.user.partner, h.user.token);
    expect(u).toMatchObject({ partner: h.user.partner, token: h.user.token, platformId: platformIdOf(h.user.partner) });
  });

  it('a malformed trade link is trade_link_invalid on the partner field', async () => {
    const err = await h.platform.checkTradeLink('csgo', h.user.partner, 'short').catch((e) => e);
    expect(err).toBeInstanceOf(PlatformUserError);
    expect(err.code).toBe('trade_link_invalid');
    expect(err.field).toBe('partner');
  });

  it('loadInventory answers items with distinct asset ids and names', async () => {
    const items = await h.platform.loadInventory('csgo', h.user.partner, h.user.token);
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((i) => i.assetId)).size).toBe(items.length);
    for (const i of items) {
      expect(i.assetId).toMatch(/^\d+$/);
      expect(i.marketHashName.length).toBeGreaterThan(0);
    }
  });

  it('sendDepositOffer answers the bot, the offer id and the expiry; accepting is reported for that record', async () => {
    const items = await h.platform.loadInventory('csgo', h.user.partner, h.user.token);
    const recordId = ++recordSeq;
    const t0 = Date.now();
    const sent = await h.platform.sendDepositOffer({ depositId: recordId, game: 'csgo', ...h.user, assets: [offered(items[0])] });
    expect(sent.tradeOfferId).toMatch(/^\d+$/);
    expect(sent.bot.id).toBeGreaterThan(0);
    expect(sent.bot.platformId).toMatch(/^7656\d{13}$/);
    expect(Math.abs(sent.expiresAt.getTime() - (t0 + OFFER_TTL * 1000))).toBeLessThan(5000);
    await h.act('accepted', 'deposit', recordId, sent.tradeOfferId);
    expect(changes.filter((c) => c.recordId === recordId)).toEqual([expect.objectContaining({ offer: 'deposit', recordId, tradeOfferId: sent.tradeOfferId, change: 'accepted' })]);
  });

  it('declining is reported as declined', async () => {
    const items = await h.platform.loadInventory('csgo', h.user.partner, h.user.token);
    const recordId = ++recordSeq;
    const sent = await h.platform.sendDepositOffer({ depositId: recordId, game: 'csgo', ...h.user, assets: [offered(items[1])] });
    await h.act('declined', 'deposit', recordId, sent.tradeOfferId);
    expect(changes.filter((c) => c.recordId === recordId).map((c) => c.change)).toEqual(['declined']);
  });

  it('sendPurchaseOffer is idempotent per purchase: a retry answers the same offer', async () => {
    const recordId = ++recordSeq;
    const req = { purchaseId: recordId, game: 'csgo' as const, ...h.user, listingId: 'ab12', assetId: h.botAsset() };
    const first = await h.platform.sendPurchaseOffer(req);
    const second = await h.platform.sendPurchaseOffer(req);
    expect(second.tradeOfferId).toBe(first.tradeOfferId);
    expect(second.bot.id).toBe(first.bot.id);
  });

  it('cancelOffer withdraws our offer and is idempotent', async () => {
    const items = await h.platform.loadInventory('csgo', h.user.partner, h.user.token);
    const recordId = ++recordSeq;
    const sent = await h.platform.sendDepositOffer({ depositId: recordId, game: 'csgo', ...h.user, assets: [offered(items[2])] });
    await h.platform.cancelOffer({ offer: 'deposit', recordId, tradeOfferId: sent.tradeOfferId });
    await expect(h.platform.cancelOffer({ offer: 'deposit', recordId, tradeOfferId: sent.tradeOfferId })).resolves.toBeUndefined();
  });
});
