// deposit-preview (4.6) and deposit/status (4.7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { TOKEN, activeDeposit, inventory, nextPartner } from './deposit-helpers.js';

let gw: TestGateway;
let m: any;
let pm: any;
beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'No preview' });
  pm = await gw.createMerchant({ name: 'Preview', deposit_preview_enabled: true, max_items: 20 });
});
afterAll(async () => gw?.stop());

const preview = (key: string, body: unknown) => gw.merchant(key, 'POST', '/deposit-preview', body);
const counts = async () => ({
  deposits: (await gw.ctx.db.selectFrom('deposits').select('id').execute()).length,
  snapshots: (await gw.ctx.db.selectFrom('inventory_snapshots').select('id').execute()).length,
});

describe('POST /deposit-preview', () => {
  it('403 until enabled for the merchant, even with a bad body', async () => {
    const res = await preview(m.api_key, { game: 'csgo', partner: nextPartner(), token: TOKEN });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, message: 'deposit preview is not enabled for this merchant' });
    expect((await preview(m.api_key, { nonsense: true })).status).toBe(403);
  });

  it('with items: exactly that list, id echoed, only id/name/price(/phase), unpriced omitted; no side effects', async () => {
    const names = gw.ctx.pricing.namesFor('csgo');
    const phased = names.find((n) => gw.ctx.pricing.entry('csgo', n)!.phase);
    const list = [names[0], names[1], 'Unknown Thing', ...(phased ? [phased] : [])];
    const before = await counts();
    const res = await preview(pm.api_key, {
      game: 'csgo',
      items: list.map((name, i) => ({ asset_id: `a-${i}`, name, icon_url: 'https://cdn.example/x.png' })),
    });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['items', 'total', 'sum', 'game', 'max_items']);
    expect(d.max_items).toBe(20);
    expect(d.items.map((i: any) => i.id)).toEqual(['a-0', 'a-1', ...(phased ? ['a-3'] : [])]);
    expect(d.total).toBe(d.items.length);
    for (const it of d.items) {
      expect(Object.keys(it).filter((k) => k !== 'phase')).toEqual(['id', 'name', 'price']);
      expect(it.price).toBe(gw.ctx.pricing.entry('csgo', it.name)!.price / 1000);
    }
    if (phased) expect(d.items[2].phase).toBe(gw.ctx.pricing.entry('csgo', phased)!.phase);
    expect(d.sum).toBe(d.items.reduce((s: number, i: any) => s + Math.round(i.price * 1000), 0) / 1000);
    expect(await counts()).toEqual(before);
  });

  it('with partner and token: full item cards of 2.3, the same as inventory, without a snapshot', async () => {
    const partner = nextPartner();
    const before = await counts();
    const res = await preview(pm.api_key, { game: 'csgo', partner, token: TOKEN });
    expect(res.status).toBe(200);
    expect(await counts()).toEqual(before);
    const inv = await inventory(gw, pm.api_key, partner);
    expect(res.body.data.items).toEqual(inv.items);
    expect(res.body.data.sum).toBe(inv.sum);
    expect(res.body.data.max_items).toBe(20);
  });

  it('magic partners and the unavailable platform apply; neither way given → 400; more than 1000 items → 400', async () => {
    const bad = await preview(pm.api_key, { game: 'csgo', partner: 90000004, token: TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.body.data[0]).toMatchObject({ field: 'partner', code: 'profile_private' });
    // 90000010: the platform only goes silent when an offer is sent; its inventory previews as usual
    const silent = await preview(pm.api_key, { game: 'csgo', partner: 90000010, token: TOKEN });
    expect(silent.status).toBe(200);
    expect(silent.body.data.items.length).toBeGreaterThan(0);
    expect((await preview(pm.api_key, { game: 'csgo', partner: 90000009, token: TOKEN })).body.data).toMatchObject({ items: [], total: 0, sum: 0 });
    const neither = await preview(pm.api_key, { game: 'csgo' });
    expect(neither.status).toBe(400);
    expect(neither.body.data[0]).toMatchObject({ field: 'items', code: 'required' });
    const items = Array.from({ length: 1001 }, (_, i) => ({ asset_id: String(i), name: 'x', icon_url: 'y' }));
    const over = await preview(pm.api_key, { game: 'csgo', items });
    expect(over.status).toBe(400);
    expect(over.body.data[0]).toMatchObject({ field: 'DepositPreviewRequest.items', code: 'len' });
    expect((await preview(pm.api_key, { game: 'csgo', items: items.slice(0, 1000) })).status).toBe(200);
  });
});

describe('GET /deposit/status', () => {
  it('neither id nor merchant_tx_id → 400 validation error', async () => {
    const res = await gw.merchant(m.api_key, 'GET', '/deposit/status');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data[0]).toMatchObject({ code: 'required' });
    expect((await gw.merchant(m.api_key, 'GET', '/deposit/status?id=abc')).body.data[0]).toMatchObject({ field: 'DepositStatusQuery.id', code: 'numeric' });
  });

  it('by id, by merchant_tx_id, by both; mismatched pair and other merchant → 404', async () => {
    const d = await activeDeposit(gw, m.api_key);
    const byId = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}`);
    expect(byId.status).toBe(200);
    const byTx = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${encodeURIComponent(d.merchant_tx_id)}`);
    expect(byTx.body.data).toEqual(byId.body.data);
    const both = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}&merchant_tx_id=${encodeURIComponent(d.merchant_tx_id)}`);
    expect(both.body.data.id).toBe(d.id);
    const mismatch = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}&merchant_tx_id=nope`);
    expect(mismatch.status).toBe(404);
    const foreign = await gw.merchant(pm.api_key, 'GET', `/deposit/status?id=${d.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ success: false, message: 'not found error' });
  });

  it('fields exactly as 4.7: conditional URLs, hold_end_date only in hold, custom currency only in hold/completed', async () => {
    const cc = { custom_currency: 'PTS', custom_currency_multiplier: 2, custom_currency_rate: 1.5 };
    const d = await activeDeposit(gw, m.api_key, { body: { fail_url: 'https://shop.example/f', ...cc } });
    const get = async () => (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}`)).body.data;
    let st = await get();
    expect(Object.keys(st).sort()).toEqual(
      ['amount', 'bot_name', 'bot_platform_id', 'fail_reason', 'fail_url', 'id', 'merchant_tx_id', 'status', 'trade_offer_expiry_at', 'trade_offer_id'].sort(),
    );
    expect(st.fail_reason).toBeNull();
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: true });
    st = await get();
    expect(st.hold_end_date).toMatch(/Z$/);
    expect(st).toMatchObject({ ...cc, custom_currency_sum: Math.round(Math.round(d.amount * 1000) * 3) / 1000 });
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/release`);
    st = await get();
    expect(st.status).toBe('completed');
    expect(st).not.toHaveProperty('hold_end_date');
    expect(st.custom_currency).toBe('PTS');
    // a deposit without custom currency shows nulls in completed
    const plain = await activeDeposit(gw, m.api_key, { game: 'dota2' });
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${plain.id}/accept`);
    const pst = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${plain.id}`)).body.data;
    expect(pst).toMatchObject({ status: 'completed', custom_currency: null, custom_currency_sum: null });
    expect(pst).not.toHaveProperty('success_url');
    // canceled: fail_reason set, custom currency hidden
    const c = await activeDeposit(gw, m.api_key, { body: cc });
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${c.id}/decline`);
    const cst = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${c.id}`)).body.data;
    expect(cst).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_user' });
    expect(cst).not.toHaveProperty('custom_currency');
  });
});

describe('OpenAPI', () => {
  it('documents the deposit endpoints with titled request schemas', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    for (const p of ['inventory', 'create-deposit', 'get-prices', 'create-deposit-by-hash-name', 'deposit-preview', 'deposit/status']) {
      expect(doc.paths).toHaveProperty([`/api/v1/merchant/${p}`]);
    }
    expect(doc.paths['/api/v1/merchant/sandbox/deposit/{id}/{action}']).toBeTruthy();
  });
});
