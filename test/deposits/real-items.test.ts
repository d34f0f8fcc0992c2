// Issue 9 item 0: every credit is backed by a real item. Both deposit flows read the user's
// inventory afresh before any offer: each asset must be there, tradable, the item credited (name,
// and phase where priced by phase), and once in the deposit; the sandbox platform refuses offers
// for assets the user does not hold, and assets handed over in an accepted offer leave the user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { PlatformAssetsRefusedError, type PlatformItem } from '../../src/platform/port.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { TOKEN, balance, expectBooksBalance, inventory, nextPartner, nextTx, webhookEvents, payloadOf } from './deposit-helpers.js';

const BAYONET = '★ StatTrak™ Bayonet | Doppler (Minimal Wear)';
let gw: TestGateway;
let m: any;
beforeAll(async () => {
  gw = await startTestGateway({ DEPOSIT_TIMEOUT_MS: '2000' });
  m = await gw.createMerchant({ name: 'Real items', webhook_url: 'http://127.0.0.1:9/hooks' });
});
afterAll(async () => gw?.stop());

const quote = async (names: string[], key = m.api_key) => {
  const res = await gw.merchant(key, 'POST', '/get-prices', { game: 'csgo', marketHashNames: names });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; sum: number; items: { name: string; price: number }[] };
};
const commit = (id: number, partner: number, items: { asset_id: string; name: string }[], tx = nextTx('ri')) =>
  gw.merchant(m.api_key, 'POST', '/create-deposit-by-hash-name', { id, merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, items });
const row = (id: number) => gw.ctx.db.selectFrom('deposits').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const held = (partner: number) => gw.ctx.platform.loadInventory('csgo', partner, TOKEN);
const offersOf = async (depositId: number) =>
  (await sql<{ n: number }>`select count(*)::int as n from sandbox_deposit_offers where deposit_id = ${depositId}`.execute(gw.ctx.db)).rows[0].n;

/** A user and one of their items matching `pick` (scans sandbox users; inventories are deterministic). */
async function userWith(pick: (it: PlatformItem) => boolean): Promise<{ partner: number; item: PlatformItem }> {
  for (let i = 0; i < 2000; i++) {
    const partner = nextPartner();
    const item = (await held(partner)).find(pick);
    if (item) return { partner, item };
  }
  throw new Error('no sandbox user holds such an item');
}
const priced = (it: PlatformItem) => gw.ctx.pricing.entry('csgo', it.marketHashName, it.phase) !== undefined;

async function expectNothingCredited(before: { available: number; hold: number }) {
  expect(await balance(gw, m.api_key)).toMatchObject({ available: before.available, hold: before.hold });
  await expectBooksBalance(gw);
}

describe('the finding, reproduced: money for nothing', () => {
  it('three made-up asset IDs (1001..1003) named as the Bayonet → 400 item_not_available, stored failed, no offer, nothing credited', async () => {
    const before = await balance(gw, m.api_key);
    const q = await quote([BAYONET]);
    expect(q.items[0]).toMatchObject({ name: BAYONET, price: 968.17 });
    const partner = nextPartner();
    const tx = nextTx('money-for-nothing');
    const res = await commit(q.id, partner, ['1001', '1002', '1003'].map((asset_id) => ({ asset_id, name: BAYONET })), tx);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message: 'validation error' });
    expect(res.body.data).toEqual(
      ['1001', '1002', '1003'].map((a, i) => ({ field: `items[${i}].asset_id`, code: 'item_not_available', message: `asset ${a} is not in the user's inventory` })),
    );
    // Stored as failed (spec 4.5: out-of-band failures are visible through deposit status), no offer sent.
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${tx}`);
    expect(st.body.data).toMatchObject({ id: q.id, status: 'failed', fail_reason: 'item_not_available', trade_offer_id: null });
    expect(await offersOf(q.id)).toBe(0);
    expect(await gw.ctx.db.selectFrom('deposit_items').select('id').where('deposit_id', '=', q.id).execute()).toEqual([]);
    expect((await webhookEvents(gw, q.id)).map((e) => payloadOf(e).fail_reason)).toEqual(['item_not_available']);
    // The sandbox helper cannot complete it either.
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${q.id}/accept`, { hold: false })).status).toBe(409);
    await expectNothingCredited(before);
  });

  it("the user's cheapest real asset named as the Bayonet → 400 item_not_available (not the item named), nothing credited", async () => {
    const before = await balance(gw, m.api_key);
    const partner = nextPartner();
    const mine = (await held(partner)).filter((it) => it.tradable !== false && priced(it));
    const cheapest = mine.reduce((a, b) => (gw.ctx.pricing.entry('csgo', a.marketHashName, a.phase)!.price <= gw.ctx.pricing.entry('csgo', b.marketHashName, b.phase)!.price ? a : b));
    expect(cheapest.marketHashName).not.toBe(BAYONET);
    const q = await quote([BAYONET]);
    const res = await commit(q.id, partner, [{ asset_id: cheapest.assetId, name: BAYONET }]);
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([
      { field: 'items[0].asset_id', code: 'item_not_available', message: `asset ${cheapest.assetId} is ${cheapest.marketHashName}, not ${BAYONET}` },
    ]);
    expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'item_not_available', trade_offer_id: null });
    await expectNothingCredited(before);
  });
});

describe('hash-name flow: each rule', () => {
  it('an asset on a trade cooldown (tradable false) → item_not_available "cannot be traded now"', async () => {
    const { partner, item } = await userWith((it) => it.tradable === false && !it.phase);
    const q = await quote([item.marketHashName]);
    const res = await commit(q.id, partner, [{ asset_id: item.assetId, name: item.marketHashName }]);
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([{ field: 'items[0].asset_id', code: 'item_not_available', message: `asset ${item.assetId} cannot be traded now` }]);
    expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'item_not_available' });
  });

  it('phase: a phased asset quoted by its plain name → price_changed (stored); by another phase → price_changed; by its own phase → active at that phase price', async () => {
    const { partner, item } = await userWith((it) => it.tradable !== false && !!it.phase && gw.ctx.pricing.entry('csgo', `${it.marketHashName} - ${it.phase}`) !== undefined && gw.ctx.pricing.entry('csgo', it.marketHashName) !== undefined);
    const plain = await quote([item.marketHashName]);
    const r1 = await commit(plain.id, partner, [{ asset_id: item.assetId, name: item.marketHashName }]);
    expect(r1.status).toBe(400);
    expect(r1.body.data).toEqual([
      { field: 'items[0].asset_id', code: 'price_changed', message: `asset ${item.assetId} is ${item.phase}, the price was for no phase; quote it by its phase` },
    ]);
    expect(await row(plain.id)).toMatchObject({ status: 'failed', fail_reason: 'price_changed' });

    const phases = gw.ctx.pricing.sandboxItems('csgo').filter((n) => n.name === item.marketHashName && n.phase && n.phase !== item.phase);
    expect(phases.length).toBeGreaterThan(0);
    const otherName = `${item.marketHashName} - ${phases[0].phase}`;
    const other = await quote([otherName]);
    const r2 = await commit(other.id, partner, [{ asset_id: item.assetId, name: otherName }]);
    expect(r2.status).toBe(400);
    expect(r2.body.data[0]).toMatchObject({ code: 'price_changed', message: `asset ${item.assetId} is ${item.phase}, the price was for ${phases[0].phase}; quote it by its phase` });

    const ownName = `${item.marketHashName} - ${item.phase}`;
    const own = await quote([ownName]);
    const r3 = await commit(own.id, partner, [{ asset_id: item.assetId, name: ownName }]);
    expect(r3.status, JSON.stringify(r3.body)).toBe(200);
    expect(r3.body.data).toMatchObject({ status: 'active', amount: gw.ctx.pricing.entry('csgo', ownName)!.price / 1000 });
  });

  it('one bad asset among good ones fails the whole deposit, naming only the bad one', async () => {
    const partner = nextPartner();
    const good = (await held(partner)).filter((it) => it.tradable !== false && !it.phase && priced(it)).slice(0, 2);
    const q = await quote(good.map((g) => g.marketHashName));
    const items = q.items.map((it) => ({ asset_id: good.find((g) => g.marketHashName === it.name)!.assetId, name: it.name }));
    items[1] = { ...items[1], asset_id: '99999999999' };
    const res = await commit(q.id, partner, items);
    expect(res.status).toBe(400);
    expect(res.body.data.map((e: any) => `${e.field}:${e.code}`)).toEqual(['items[1].asset_id:item_not_available']);
    expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'item_not_available' });
  });

  it('a duplicate asset → 400 duplicate before anything is stored', async () => {
    const partner = nextPartner();
    const [a] = (await held(partner)).filter((it) => it.tradable !== false && !it.phase && priced(it));
    const q = await quote([a.marketHashName]);
    const res = await commit(q.id, partner, [{ asset_id: a.assetId, name: a.marketHashName }, { asset_id: a.assetId, name: a.marketHashName }]);
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([{ field: 'items[1].asset_id', code: 'duplicate', message: `asset ${a.assetId} is listed twice` }]);
    expect(await row(q.id)).toMatchObject({ status: 'new' });
  });
});

describe('inventory flow', () => {
  it('an asset traded away since the snapshot (handed over in a completed deposit) → 400 item_not_available, stored failed; the inventory no longer lists it', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const [x, y] = inv.items;
    const first = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: nextTx('first'), game: 'csgo', partner, token: TOKEN, asset_ids: [x.id] });
    expect(first.body.data.status).toBe('active');
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${first.body.data.id}/accept`, { hold: false })).body.data.status).toBe('completed');
    const before = await balance(gw, m.api_key);
    // The snapshot (still valid) lists x; the user no longer holds it.
    const tx = nextTx('again');
    const res = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [y.id, x.id] });
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([{ field: 'asset_ids[1]', code: 'item_not_available', message: `asset ${x.id} is not in the user's inventory` }]);
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${tx}`);
    expect(st.status).toBe(200);
    expect(st.body.data).toMatchObject({ status: 'failed', fail_reason: 'item_not_available', trade_offer_id: null });
    expect(await offersOf(st.body.data.id)).toBe(0);
    // The same merchant_tx_id is now taken (the failure is the record).
    expect((await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [y.id] })).status).toBe(409);
    await expectNothingCredited(before);
    const again = await inventory(gw, m.api_key, partner);
    expect(again.items.map((i) => i.id)).not.toContain(x.id);
    expect(again.items.map((i) => i.id)).toContain(y.id);
  });

  it('assets in a hold leave the user; a reverted trade gives them back', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const x = inv.items[0];
    const d = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: nextTx('hold'), game: 'csgo', partner, token: TOKEN, asset_ids: [x.id] });
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.body.data.id}/accept`, { hold: true })).body.data.status).toBe('hold');
    expect((await held(partner)).map((i) => i.assetId)).not.toContain(x.id);
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.body.data.id}/revert`, { by: 'user' })).body.data.status).toBe('reverted');
    expect((await held(partner)).map((i) => i.assetId)).toContain(x.id);
  });

  it('a declined offer leaves the assets with the user', async () => {
    const partner = nextPartner();
    const x = (await inventory(gw, m.api_key, partner)).items[0];
    const d = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: nextTx('decl'), game: 'csgo', partner, token: TOKEN, asset_ids: [x.id] });
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.body.data.id}/decline`)).body.data.status).toBe('canceled');
    expect((await held(partner)).map((i) => i.assetId)).toContain(x.id);
  });

  it('a non-tradable asset is not offered by inventory, and create-deposit refuses it', async () => {
    const { partner, item } = await userWith((it) => it.tradable === false && priced(it));
    const inv = await inventory(gw, m.api_key, partner);
    expect(inv.items.map((i) => i.id)).not.toContain(item.assetId);
    const res = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: nextTx('locked'), game: 'csgo', partner, token: TOKEN, asset_ids: [item.assetId] });
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ field: 'asset_ids[0]', code: 'item_not_available' });
  });

  it('an asset gone between the check and the offer: the platform refuses the offer → HTTP 200 failed item_not_available', async () => {
    const partner = nextPartner();
    const x = (await inventory(gw, m.api_key, partner)).items[0];
    const p = gw.ctx.platform;
    const orig = p.loadInventory;
    // The gateway's read still shows x; by the time the offer goes out x has left the user.
    p.loadInventory = async (...args) => {
      const items = await orig.apply(p, args);
      await sql`insert into sandbox_departed_assets (game, partner, asset_id, deposit_id) values ('csgo', ${partner}, ${x.id}, 0)`.execute(gw.ctx.db);
      return items;
    };
    try {
      const res = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: nextTx('race'), game: 'csgo', partner, token: TOKEN, asset_ids: [x.id] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'failed', fail_reason: 'item_not_available', trade_offer_id: null });
      expect(await row(res.body.data.id)).toMatchObject({ status: 'failed', fail_reason: 'item_not_available' });
    } finally {
      p.loadInventory = orig;
    }
  });
});

describe('sandbox platform port: offers only for what the user holds', () => {
  const send = (partner: number, assets: { assetId: string; marketHashName: string; phase?: string }[]) =>
    gw.ctx.platform.sendDepositOffer({ depositId: 900_000_000 + partner, game: 'csgo', partner, token: TOKEN, assets });

  it('refuses assets the user does not own, the wrong name, the wrong phase, a non-tradable one, an empty offer; sends a true one', async () => {
    const partner = nextPartner();
    const items = await held(partner);
    const a = items.find((it) => it.tradable !== false && !it.phase)!;
    await expect(send(partner, [{ assetId: '1001', marketHashName: a.marketHashName }])).rejects.toBeInstanceOf(PlatformAssetsRefusedError);
    await expect(send(partner, [{ assetId: a.assetId, marketHashName: BAYONET }])).rejects.toThrow(`the user does not hold the assets ${a.assetId} as offered`);
    await expect(send(partner, [{ assetId: a.assetId, marketHashName: a.marketHashName, phase: 'Phase 1' }])).rejects.toBeInstanceOf(PlatformAssetsRefusedError);
    await expect(send(partner, [])).rejects.toBeInstanceOf(PlatformAssetsRefusedError);
    const locked = items.find((it) => it.tradable === false)!;
    await expect(send(partner, [{ assetId: locked.assetId, marketHashName: locked.marketHashName, ...(locked.phase ? { phase: locked.phase } : {}) }])).rejects.toBeInstanceOf(PlatformAssetsRefusedError);
    // another user's asset
    const other = (await held(nextPartner())).find((it) => it.tradable !== false)!;
    await expect(send(partner, [{ assetId: other.assetId, marketHashName: other.marketHashName, ...(other.phase ? { phase: other.phase } : {}) }])).rejects.toBeInstanceOf(PlatformAssetsRefusedError);
    const sent = await send(partner, [{ assetId: a.assetId, marketHashName: a.marketHashName }]);
    expect(sent.tradeOfferId).toMatch(/^\d+$/);
  });

  it('every sandbox inventory has exactly one item on a trade cooldown, after the others', async () => {
    for (let i = 0; i < 5; i++) {
      const items = await held(nextPartner());
      expect(items.filter((it) => it.tradable === false)).toHaveLength(1);
      expect(items[items.length - 1].tradable).toBe(false);
    }
  });
});
