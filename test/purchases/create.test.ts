import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { MAGIC_USER_ERRORS } from '../fixtures.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
const USER = { partner: 12345678, token: 'abcdEFGH' };

beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'Buyer' });
  await gw.topUp(m.id, 100_000);
});
afterAll(async () => gw?.stop());

const buy = (body: Record<string, unknown>, key = m.api_key) => gw.merchant(key, 'POST', '/purchase', { ...USER, game: 'csgo', ...body });
const balance = async (key = m.api_key) => (await gw.merchant(key, 'GET', '/balance')).body.data;

async function liveListings(game = 'csgo') {
  const res = await gw.merchant(m.api_key, 'GET', `/purchase/available?game=${game}&full=true`);
  return res.body.data.items as Array<{ id: string; name: string; price: number }>;
}
const taken = new Set<string>();
async function freshListing(game = 'csgo') {
  const l = (await liveListings(game)).find((i) => !taken.has(i.id))!;
  taken.add(l.id);
  return l;
}

describe('POST /purchase: success', () => {
  it('by asset_id: the answer is the purchase itself, pending; available drops at once; listing leaves the catalogue', async () => {
    const l = await freshListing();
    const before = await balance();
    const res = await buy({ asset_id: l.id, merchant_tx_id: 'p-1' });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const p = res.body.data;
    expect(Number.isInteger(p.id)).toBe(true);
    expect(p.status).toBe('pending');
    expect(p.merchant_tx_id).toBe('p-1');
    expect(p.amount).toBe(l.price);
    expect(p.item).toEqual({ id: l.id, name: l.name, price: l.price, image_url: expect.stringMatching(/^http/) });
    expect(p.platform_id).toBe((76561197960265728n + BigInt(USER.partner)).toString());
    expect(p.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(p).not.toHaveProperty('asset_id');
    expect(p).not.toHaveProperty('purchase');
    for (const v of Object.values(p)) expect(v).not.toBeNull();
    expect(p).not.toHaveProperty('fail_reason');
    expect(p).not.toHaveProperty('hold_end_date');
    const after = await balance();
    expect(Math.round((before.available - after.available) * 1000)).toBe(Math.round(l.price * 1000));
    expect((await liveListings()).some((i) => i.id === l.id)).toBe(false);

    // the dispatch job sends the offer
    const active = await eventually(async () => {
      const s = await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${p.id}`);
      return s.body.data.status === 'active' ? s.body.data : undefined;
    });
    expect(active.trade_offer_id).toMatch(/^\d+$/);
  });

  it('idempotent on merchant_tx_id: the stored purchase, HTTP 200, nothing created or debited', async () => {
    const l = await freshListing();
    const first = await buy({ asset_id: l.id, merchant_tx_id: 'idem-1' });
    const before = await balance();
    const again = await buy({ asset_id: l.id, merchant_tx_id: 'idem-1' });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await freshListing();
    const different = await buy({ asset_id: other.id, merchant_tx_id: 'idem-1' });
    expect(different.body.data.id).toBe(first.body.data.id);
    // the repeat's batch met the stored one at the unique constraint: the listing it took stays on sale
    expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', other.id).executeTakeFirstOrThrow()).status).toBe('live');
    // nothing is looked up before the platform's user check, so a repeat whose user the platform now
    // refuses (90000001), or whose platform is down (90000010), still answers the stored purchase
    for (const partner of [90000001, 90000010]) {
      const repeat = await buy({ name: l.name, partner, merchant_tx_id: 'idem-1' });
      expect(repeat.status, JSON.stringify(repeat.body)).toBe(200);
      expect(repeat.body.data.id).toBe(first.body.data.id);
    }
    expect((await buy({ name: l.name, partner: 90000001, merchant_tx_id: 'idem-new' })).status).toBe(400);
    expect(await balance()).toEqual(before);
  });

  it('by name: the cheapest live listing of that name', async () => {
    const all = await liveListings();
    const counts = new Map<string, number>();
    for (const i of all) counts.set(i.name, (counts.get(i.name) ?? 0) + 1);
    const name = [...counts.entries()].find(([n, c]) => c >= 2 && !all.some((i) => i.name === n && taken.has(i.id)))![0];
    const cheapest = all.filter((i) => i.name === name).sort((a, b) => a.price - b.price)[0];
    const res = await buy({ name });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('pending');
    expect(res.body.data.item.name).toBe(name);
    expect(res.body.data.amount).toBe(cheapest.price);
    expect(res.body.data).not.toHaveProperty('merchant_tx_id');
    taken.add(res.body.data.item.id);
  });

  it('max_price at or above the price buys', async () => {
    const l = await freshListing();
    const res = await buy({ asset_id: l.id, max_price: l.price });
    expect(res.body.data.status).toBe('pending');
  });
});

describe('POST /purchase: creation failures end failed with nothing taken', () => {
  async function expectFailed(res: any, reason: string) {
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.fail_reason).toBe(reason);
    return res.body.data;
  }

  it('insufficient_balance', async () => {
    const poor = await gw.createMerchant({ name: 'Poor' });
    const l = await freshListing();
    const p = await expectFailed(await buy({ asset_id: l.id, merchant_tx_id: 'poor-1' }, poor.api_key), 'insufficient_balance');
    expect(p.amount).toBe(l.price);
    expect(p.item.id).toBe(l.id);
    expect(await balance(poor.api_key)).toEqual({ total: 0, hold: 0, available: 0 });
    // amount is what the merchant attempted to pay; no ledger movement exists for it
    const entries = await gw.ctx.db.selectFrom('ledger_entries').select('key').where('ref_type', '=', 'purchase').where('ref_id', '=', p.id).execute();
    expect(entries).toEqual([]);
    // the listing is still on sale
    expect((await liveListings()).some((i) => i.id === l.id)).toBe(true);
    taken.delete(l.id);
    // and the failed purchase is stored (status, idempotent repeat)
    expect((await gw.merchant(poor.api_key, 'GET', '/purchase/status?merchant_tx_id=poor-1')).body.data.fail_reason).toBe('insufficient_balance');
  });

  it('price_changed: asset above max_price', async () => {
    const l = await freshListing();
    const before = await balance();
    await expectFailed(await buy({ asset_id: l.id, max_price: Math.max(0, l.price - 0.01) }), 'price_changed');
    expect(await balance()).toEqual(before);
    taken.delete(l.id);
  });

  it('item_specified_price_not_found: by name, cheapest above max_price', async () => {
    const l = await freshListing();
    taken.delete(l.id);
    await expectFailed(await buy({ name: l.name, max_price: 0.001 }), 'item_specified_price_not_found');
  });

  it('item_sold: the listing was bought already', async () => {
    const l = await freshListing();
    expect((await buy({ asset_id: l.id })).body.data.status).toBe('pending');
    const p = await expectFailed(await buy({ asset_id: l.id }), 'item_sold');
    expect(p.item.id).toBe(l.id);
  });

  it('item_not_available: unknown listing, unknown name, listing of another game', async () => {
    const unknown = await expectFailed(await buy({ asset_id: 'ffff0000' }), 'item_not_available');
    expect(unknown).not.toHaveProperty('item');
    expect(unknown.amount).toBe(0);
    await expectFailed(await buy({ name: 'No Such Item (Factory New)' }), 'item_not_available');
    const rust = await freshListing('rust');
    await expectFailed(await buy({ asset_id: rust.id, game: 'csgo' }), 'item_not_available');
    taken.delete(rust.id);
  });

  it('provider_unavailable (partner 90000010): failed, amount returned, listing back on sale', async () => {
    const l = await freshListing();
    const before = await balance();
    const res = await buy({ asset_id: l.id, partner: 90000010, merchant_tx_id: 'down-1' });
    expect(res.status).toBe(200);
    expect(['pending', 'failed']).toContain(res.body.data.status);
    const failed = await eventually(async () => {
      const s = await gw.merchant(m.api_key, 'GET', '/purchase/status?merchant_tx_id=down-1');
      return s.body.data.status === 'failed' ? s.body.data : undefined;
    });
    expect(failed.fail_reason).toBe('provider_unavailable');
    expect(await balance()).toEqual(before);
    expect((await liveListings()).some((i) => i.id === l.id)).toBe(true);
    taken.delete(l.id);
  });
});

describe('POST /purchase: refusals', () => {
  const MAGIC = MAGIC_USER_ERRORS;
  it.each(MAGIC)('partner %i → 400 validation error with code %s first, nothing stored', async (partner, code, field) => {
    const l = (await liveListings())[0];
    const before = await balance();
    const res = await buy({ asset_id: l.id, partner, merchant_tx_id: `magic-${partner}` });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data[0]).toMatchObject({ field, code });
    expect(await balance()).toEqual(before);
    expect((await gw.merchant(m.api_key, 'GET', `/purchase/status?merchant_tx_id=magic-${partner}`)).status).toBe(404);
  });

  it('validation: neither name nor asset_id, bad token, bad game, bad max_price', async () => {
    const none = await buy({});
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('validation error');
    expect(none.body.data[0]).toMatchObject({ code: 'required' });
    const token = await buy({ name: 'x', token: 'short' });
    expect(token.body.data[0]).toMatchObject({ field: 'CreatePurchaseRequest.token', code: 'len' });
    const game = await buy({ name: 'x', game: 'minecraft' });
    expect(game.status).toBe(400);
    expect(game.body.data[0]).toMatchObject({ field: 'CreatePurchaseRequest.game', code: 'oneof' });
    const price = await buy({ name: 'x', max_price: 1.0001 });
    expect(price.status).toBe(400);
    const partner = await buy({ name: 'x', partner: 7 });
    expect(partner.body.data[0]).toMatchObject({ field: 'CreatePurchaseRequest.partner', code: 'min' });
    const json = await gw.merchant(m.api_key, 'POST', '/purchase', '{bad');
    expect(json.status).toBe(400);
  });
});

describe('GET /purchase/status', () => {
  it('by id, by merchant_tx_id, both; neither → 400; unknown or another merchant → 404', async () => {
    const l = await freshListing();
    const p = (await buy({ asset_id: l.id, merchant_tx_id: 'st-1' })).body.data;
    expect((await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${p.id}`)).body.data.id).toBe(p.id);
    expect((await gw.merchant(m.api_key, 'GET', '/purchase/status?merchant_tx_id=st-1')).body.data.id).toBe(p.id);
    expect((await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${p.id}&merchant_tx_id=st-1`)).body.data.id).toBe(p.id);
    const neither = await gw.merchant(m.api_key, 'GET', '/purchase/status');
    expect(neither.status).toBe(400);
    expect(neither.body.message).toBe('validation error');
    const unknown = await gw.merchant(m.api_key, 'GET', '/purchase/status?id=99999999');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('not found error');
    const other = await gw.createMerchant({ name: 'Other' });
    expect((await gw.merchant(other.api_key, 'GET', `/purchase/status?id=${p.id}`)).status).toBe(404);
    expect((await gw.merchant(other.api_key, 'GET', '/purchase/status?merchant_tx_id=st-1')).status).toBe(404);
    expect((await gw.merchant(m.api_key, 'GET', '/purchase/status?id=abc')).status).toBe(400);
  });
});

describe('GET /purchase (history)', () => {
  let h: { id: number; api_key: string };
  beforeAll(async () => {
    h = await gw.createMerchant({ name: 'History' });
    await gw.topUp(h.id, 10_000);
    const items = (await liveListings()).filter((i) => !taken.has(i.id)).slice(0, 4);
    let n = 0;
    for (const l of items) {
      taken.add(l.id);
      await gw.merchant(h.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id, merchant_tx_id: `order_${n++}%` });
    }
    await gw.merchant(h.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: 'ffff', merchant_tx_id: 'orderXfail' });
  });

  it('data + total, default sort -id, limit/offset', async () => {
    const res = await gw.merchant(h.api_key, 'GET', '/purchase');
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(5);
    const ids = res.body.data.data.map((p: any) => p.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    const page = await gw.merchant(h.api_key, 'GET', '/purchase?limit=2&offset=1&sort=id');
    expect(page.body.data.data.map((p: any) => p.id)).toEqual([...ids].reverse().slice(1, 3));
    expect(page.body.data.total).toBe(5);
  });

  it('status, date_range and search filters; LIKE wildcards are literal', async () => {
    expect((await gw.merchant(h.api_key, 'GET', '/purchase?status=failed')).body.data.total).toBe(1);
    expect((await gw.merchant(h.api_key, 'GET', '/purchase?date_range=1')).body.data.total).toBe(5);
    expect((await gw.merchant(h.api_key, 'GET', '/purchase?search=order_')).body.data.total).toBe(4); // not orderXfail
    expect((await gw.merchant(h.api_key, 'GET', '/purchase?search=%25')).body.data.total).toBe(4);
    expect((await gw.merchant(h.api_key, 'GET', '/purchase?search=ORDER_1')).body.data.total).toBe(1);
    const first = (await gw.merchant(h.api_key, 'GET', '/purchase?status=pending&limit=1')).body.data.data[0]
      ?? (await gw.merchant(h.api_key, 'GET', '/purchase?status=active&limit=1')).body.data.data[0];
    const byName = await gw.merchant(h.api_key, 'GET', `/purchase?search=${encodeURIComponent(first.item.name.slice(0, 10))}`);
    expect(byName.body.data.total).toBeGreaterThanOrEqual(1);
    const amounts = (await gw.merchant(h.api_key, 'GET', '/purchase?sort=-amount')).body.data.data.map((p: any) => p.amount);
    expect(amounts).toEqual([...amounts].sort((a: number, b: number) => b - a));
    const asc = (await gw.merchant(h.api_key, 'GET', '/purchase?sort=merchant_tx_id')).body.data.data.map((p: any) => p.merchant_tx_id);
    const desc = (await gw.merchant(h.api_key, 'GET', '/purchase?sort=-merchant_tx_id')).body.data.data.map((p: any) => p.merchant_tx_id);
    expect(desc).toEqual([...asc].reverse());
    expect(asc.filter((t: string) => t.startsWith('order_'))).toEqual(['order_0%', 'order_1%', 'order_2%', 'order_3%']);
  });

  it('another merchant sees none of them', async () => {
    const other = await gw.createMerchant({ name: 'Nobody' });
    expect((await gw.merchant(other.api_key, 'GET', '/purchase')).body.data).toEqual({ data: [], total: 0 });
  });

  it.each([
    'limit=0', 'limit=501', 'offset=-1', 'status=bogus', 'date_range=2', 'date_range=abc', 'search=', `search=${'x'.repeat(101)}`, 'sort=name', 'sort=--id',
  ])('bad filter %s → 400 validation error', async (q) => {
    const res = await gw.merchant(h.api_key, 'GET', `/purchase?${q}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
  });
});
