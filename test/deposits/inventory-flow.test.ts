// Inventory flow (spec 4.2, 4.3) on the sandbox platform: pricing, snapshot, magic partners,
// create-deposit rules and the wire details of DESIGN 8.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { OffsetClock } from '../../src/domain/clock.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { PlatformUnavailableError } from '../../src/platform/port.js';
import { TOKEN, inventory, nextPartner, nextTx, expectBooksBalance } from './deposit-helpers.js';
import { MAGIC_USER_ERRORS } from '../fixtures.js';

let gw: TestGateway;
let m: any;
const clock = new OffsetClock();
beforeAll(async () => {
  // A deadline a busy machine's ordinary platform calls never reach (at 300 ms, a sandbox offer sent
  // under load 28 was taken for silence); the silence tests use platforms that never answer.
  gw = await startTestGateway({ QUOTE_TTL_SECONDS: '60', DEPOSIT_TIMEOUT_MS: '2000' }, { clock });
  m = await gw.createMerchant({ name: 'Inventory flow' });
});
afterAll(async () => gw?.stop());

const create = (key: string, body: Record<string, unknown>) => gw.merchant(key, 'POST', '/create-deposit', body);

describe('POST /inventory', () => {
  it('answers priced items of 2.3 with total, sum, game and max_items; unpriced items are omitted', async () => {
    const partner = nextPartner();
    const res = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['items', 'total', 'sum', 'game', 'max_items']);
    expect(d.game).toBe('csgo');
    expect(d.max_items).toBe(50);
    expect(d.total).toBe(d.items.length);
    expect(d.items.length).toBeGreaterThanOrEqual(8);
    expect(d.items.some((i: any) => i.name.startsWith('Sandbox Unpriced'))).toBe(false);
    const sumMills = d.items.reduce((s: number, i: any) => s + Math.round(i.price * 1000), 0);
    expect(d.sum).toBe(sumMills / 1000);
    for (const it of d.items) {
      expect(typeof it.id).toBe('string');
      expect(it.price).toBe(Math.round(it.price * 1000) / 1000);
      expect(it.image_url).toMatch(new RegExp(`^${gw.url}/static/item-image/csgo/.+\\.svg$`));
      expect(gw.ctx.pricing.entry('csgo', it.name, it.phase)!.price).toBe(Math.round(it.price * 1000)); // multiplier 1
    }
    // deterministic per (partner, game)
    const again = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
    expect(again.body.data.items).toEqual(d.items);
    const otherGame = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'rust', partner, token: TOKEN });
    expect(otherGame.body.data.items.map((i: any) => i.id)).not.toEqual(d.items.map((i: any) => i.id));
  });

  it('phased items carry the plain market hash name and their phase, priced per phase', async () => {
    let phased: any;
    for (let i = 0; i < 40 && !phased; i++) {
      const inv = await inventory(gw, m.api_key, 77_000_000 + i);
      phased = inv.items.find((it: any) => it.phase);
    }
    expect(phased).toBeTruthy();
    expect(phased.name.endsWith(` - ${phased.phase}`)).toBe(false);
    expect(Math.round(phased.price * 1000)).toBe(gw.ctx.pricing.entry('csgo', phased.name, phased.phase)!.price);
    const img = await gw.app.inject({ method: 'GET', url: new URL(phased.image_url).pathname });
    expect(img.statusCode).toBe(200);
  });

  it('applies the merchant deposit multiplier, rounded to mills', async () => {
    const mm = await gw.createMerchant({ name: 'Multiplier' });
    await gw.admin('PATCH', `/merchants/${mm.id}`, { deposit_multiplier: 0.9, max_items: 7 });
    const partner = nextPartner();
    const base = await inventory(gw, m.api_key, partner);
    const res = await inventory(gw, mm.api_key, partner);
    expect(res.max_items).toBe(7);
    res.items.forEach((it, i) => {
      const mills = Math.round(base.items[i].price * 1000);
      expect(it.price).toBe(Math.round(mills * 0.9) / 1000);
    });
  });

  it('the item image is an SVG served by us, cacheable', async () => {
    const inv = await inventory(gw, m.api_key, nextPartner());
    const url = new URL((inv.items[0] as any).image_url);
    const res = await gw.app.inject({ method: 'GET', url: url.pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/image\/svg\+xml/);
    expect(res.headers['cache-control']).toMatch(/max-age/);
    expect(res.body).toContain('<svg');
    const cached = await gw.app.inject({ method: 'GET', url: url.pathname, headers: { 'if-none-match': String(res.headers.etag) } });
    expect(cached.statusCode).toBe(304);
    expect((await gw.app.inject({ method: 'GET', url: '/static/item-image/csgo/Nope%20Nothing.svg' })).statusCode).toBe(404);
    expect((await gw.app.inject({ method: 'GET', url: '/static/item-image/chess/x.svg' })).statusCode).toBe(404);
  });

  it('each magic partner gives its domain code first in data (400 validation error)', async () => {
    const cases = MAGIC_USER_ERRORS;
    for (const [partner, code, field] of cases) {
      const res = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
      expect(res.status, code).toBe(400);
      expect(res.body.message).toBe('validation error');
      expect(res.body.data[0]).toMatchObject({ field, code });
      // create-deposit refuses the same way
      const dep = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: ['1'] });
      expect(dep.status).toBe(400);
      expect(dep.body.data[0]).toMatchObject({ field, code });
    }
  });

  it('90000009 has an empty inventory', async () => {
    const res = await inventory(gw, m.api_key, 90000009);
    expect(res).toEqual({ items: [], total: 0, sum: 0, game: 'csgo', max_items: 50 });
  });

  it('90000010: inventory answers as usual (the platform goes silent only when the offer is sent)', async () => {
    const inv = await inventory(gw, m.api_key, 90000010);
    expect(inv.items.length).toBeGreaterThanOrEqual(8);
    expect(inv.total).toBe(inv.items.length);
    expect(inv.max_items).toBe(50);
  });

  it('the platform failing or not answering → 500 integration service error (spec 7.2), no Retry-After', async () => {
    const p = gw.ctx.platform;
    const orig = { load: p.loadInventory, check: p.checkTradeLink };
    try {
      p.loadInventory = async () => {
        throw new PlatformUnavailableError('down');
      };
      const down = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner: nextPartner(), token: TOKEN });
      expect(down.status).toBe(500);
      expect(down.body).toEqual({ success: false, message: 'integration service error' });
      expect(down.headers['retry-after']).toBeUndefined();
      p.loadInventory = orig.load;
      p.checkTradeLink = () => new Promise(() => {}); // silence: DEPOSIT_TIMEOUT_MS (2000) decides
      // the check never answers: an answer at all is the deadline's
      const silent = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner: nextPartner(), token: TOKEN });
      expect(silent.status).toBe(500);
      expect(silent.body.message).toBe('integration service error');
      const dep = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner: nextPartner(), token: TOKEN, asset_ids: ['1'] });
      expect(dep.status).toBe(500);
      expect(dep.body.message).toBe('integration service error');
    } finally {
      p.loadInventory = orig.load;
      p.checkTradeLink = orig.check;
    }
  });

  it('schema errors: token length, game, partner', async () => {
    const res = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'chess', partner: 7, token: 'short' });
    expect(res.status).toBe(400);
    const fields = res.body.data.map((e: any) => `${e.field}:${e.code}`).sort();
    expect(fields).toEqual(['InventoryRequest.game:oneof', 'InventoryRequest.partner:min', 'InventoryRequest.token:len']);
  });
});

describe('POST /create-deposit', () => {
  it('creates an active deposit at snapshot prices; status shows it', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const chosen = inv.items.slice(0, 3);
    const tx = nextTx();
    const res = await create(m.api_key, {
      merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: chosen.map((i) => i.id),
      success_url: 'https://shop.example/ok', some_unknown_field: 1,
    });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['id', 'merchant_tx_id', 'status', 'amount', 'bot_name', 'bot_platform_id', 'trade_offer_id', 'trade_offer_expiry_at']);
    expect(d).toMatchObject({ merchant_tx_id: tx, status: 'active' });
    expect(Number.isInteger(d.id)).toBe(true);
    expect(d.amount).toBe(chosen.reduce((s, i) => s + Math.round(i.price * 1000), 0) / 1000);
    expect(d.bot_name).toMatch(/^Sandbox Bot/);
    expect(d.trade_offer_id).toMatch(/^\d+$/);
    expect(d.trade_offer_expiry_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // bot_platform_id is an exact JSON integer (64-bit)
    const raw = await gw.app.inject({ method: 'GET', url: `/api/v1/merchant/deposit/status?id=${d.id}`, headers: { 'x-api-key': m.api_key } });
    expect(raw.body).toMatch(/"bot_platform_id":7656119\d{10}[,}]/);
    const row = await gw.ctx.db.selectFrom('deposits').select(['bot_platform_id', 'flow', 'platform_id']).where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(raw.body).toContain(`"bot_platform_id":${row.bot_platform_id}`);
    expect(row.flow).toBe('inventory');
    expect(row.platform_id).toBe((76561197960265728n + BigInt(partner)).toString());
    const items = await gw.ctx.db.selectFrom('deposit_items').selectAll().where('deposit_id', '=', d.id).execute();
    expect(items.map((i) => i.asset_id).sort()).toEqual(chosen.map((i) => i.id).sort());
    const st = (await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${tx}`)).body.data;
    expect(st).toMatchObject({ id: d.id, status: 'active', success_url: 'https://shop.example/ok', fail_reason: null });
    expect(st).not.toHaveProperty('fail_url');
    expect(st).not.toHaveProperty('custom_currency');
  });

  it('duplicate merchant_tx_id → 409 already exist error; concurrent duplicates create one', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const tx = nextTx();
    const body = { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id] };
    expect((await create(m.api_key, body)).status).toBe(200);
    const dup = await create(m.api_key, body);
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('already exist error');
    expect(dup.body.data[0]).toMatchObject({ field: 'merchant_tx_id', code: 'exist' });
    // a duplicate merchant_tx_id is 409 even with other assets
    expect((await create(m.api_key, { ...body, asset_ids: [inv.items[3].id] })).status).toBe(409);

    // (each new deposit takes another asset: an asset stays reserved while its deposit is live)
    const tx2 = nextTx();
    const results = await Promise.all(Array.from({ length: 5 }, () => create(m.api_key, { ...body, merchant_tx_id: tx2, asset_ids: [inv.items[1].id] })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const rows = await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', tx2).execute();
    expect(rows).toHaveLength(1);
    // the same merchant_tx_id at another merchant is fine
    const other = await gw.createMerchant({ name: 'Other tx' });
    await inventory(gw, other.api_key, partner);
    expect((await create(other.api_key, { ...body, asset_ids: [inv.items[2].id] })).status).toBe(200);
  });

  it('missing or expired snapshot → 400 inventory_reload; nothing created', async () => {
    const partner = nextPartner();
    const tx = nextTx();
    const noSnap = await create(m.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: ['20000000001'] });
    expect(noSnap.status).toBe(400);
    expect(noSnap.body.message).toBe('validation error');
    expect(noSnap.body.data[0]).toMatchObject({ field: 'inventory', code: 'inventory_reload' });

    const inv = await inventory(gw, m.api_key, partner);
    clock.advance(61_000); // QUOTE_TTL_SECONDS=60
    const stale = await create(m.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id] });
    expect(stale.status).toBe(400);
    expect(stale.body.data[0]).toMatchObject({ field: 'inventory', code: 'inventory_reload' });
    expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', tx).execute()).toEqual([]);
    // reloading the inventory starts a new snapshot
    await inventory(gw, m.api_key, partner);
    expect((await create(m.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id] })).status).toBe(200);
  });

  it('the snapshot is per merchant and game', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const other = await gw.createMerchant({ name: 'No snapshot' });
    const res = await create(other.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id] });
    expect(res.body.data[0]).toMatchObject({ code: 'inventory_reload' });
    const wrongGame = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'rust', partner, token: TOKEN, asset_ids: [inv.items[0].id] });
    expect(wrongGame.body.data[0]).toMatchObject({ code: 'inventory_reload' });
  });

  it('an asset not in the snapshot (or unpriced) → 400 item_not_available naming it', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const res = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id, '99999999999'] });
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ field: 'asset_ids[1]', code: 'item_not_available' });
    const dup = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id, inv.items[0].id] });
    expect(dup.status).toBe(400);
    expect(dup.body.data[0]).toMatchObject({ field: 'asset_ids[1]', code: 'duplicate' });
  });

  it('min_prices: a price below its floor → 400 item_specified_price_not_found; at the floor passes; <= 0 ignored', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const [a, b] = inv.items;
    const tx = nextTx();
    const below = await create(m.api_key, {
      merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [a.id, b.id],
      min_prices: { [a.id]: a.price, [b.id]: (Math.round(b.price * 1000) + 1) / 1000 },
    });
    expect(below.status).toBe(400);
    expect(below.body.message).toBe('item_specified_price_not_found');
    expect(below.body.data[0]).toMatchObject({ code: 'item_specified_price_not_found' });
    expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', tx).execute()).toEqual([]);
    const atFloor = await create(m.api_key, {
      merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [a.id, b.id],
      min_prices: { [a.id]: a.price, [b.id]: 0, '12345': 99999 },
    });
    expect(atFloor.status).toBe(200);
  });

  it('max_items: at the limit passes, one past → 400 too_many_items, nothing created', async () => {
    const mm = await gw.createMerchant({ name: 'Max items', max_items: 3 });
    const partner = nextPartner();
    const inv = await inventory(gw, mm.api_key, partner);
    expect(inv.max_items).toBe(3);
    const tx = nextTx();
    const over = await create(mm.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: inv.items.slice(0, 4).map((i) => i.id) });
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('deposit exceeds the maximum of 3 items per deposit');
    expect(over.body.data[0]).toMatchObject({ field: 'asset_ids', code: 'too_many_items' });
    expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_id', '=', mm.id).execute()).toEqual([]);
    const edge = await create(mm.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: inv.items.slice(0, 3).map((i) => i.id) });
    expect(edge.status).toBe(200);
  });

  it('custom currency: all three or none, limits at the edge pass and one past fail', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    let next = 0; // each accepted deposit takes another asset (a live deposit reserves its assets)
    const base = (i = next) => ({ merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[i].id] });
    const ok = [
      { custom_currency: 'R', custom_currency_multiplier: 0.5, custom_currency_rate: 0.1 },
      { custom_currency: 'ABCD', custom_currency_multiplier: 2.0, custom_currency_rate: 1000 },
      { custom_currency: 'PTS', custom_currency_multiplier: 2.0, custom_currency_rate: 1_000_000 },
    ];
    for (const cc of ok) {
      const res = await create(m.api_key, { ...base(next++), ...cc });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).not.toHaveProperty('custom_currency');
    }
    const bad: [Record<string, unknown>, string, string][] = [
      [{ custom_currency: '', custom_currency_multiplier: 1, custom_currency_rate: 1 }, 'custom_currency', 'len'],
      [{ custom_currency: 'ABCDE', custom_currency_multiplier: 1, custom_currency_rate: 1 }, 'custom_currency', 'len'],
      [{ custom_currency: 'EUR', custom_currency_multiplier: 0.499, custom_currency_rate: 1 }, 'custom_currency_multiplier', 'min'],
      [{ custom_currency: 'EUR', custom_currency_multiplier: 2.001, custom_currency_rate: 1 }, 'custom_currency_multiplier', 'max'],
      [{ custom_currency: 'EUR', custom_currency_multiplier: 1, custom_currency_rate: 0.099 }, 'custom_currency_rate', 'min'],
      [{ custom_currency: 'EUR', custom_currency_multiplier: 1, custom_currency_rate: 1_000_000.001 }, 'custom_currency_rate', 'max'],
      [{ custom_currency: 'EUR', custom_currency_multiplier: 1, custom_currency_rate: 1e300 }, 'custom_currency_rate', 'max'],
      [{ custom_currency: 'EUR', custom_currency_multiplier: 1 }, 'custom_currency_rate', 'required'],
      [{ custom_currency_rate: 1 }, 'custom_currency', 'required'],
    ];
    for (const [cc, field, code] of bad) {
      const res = await create(m.api_key, { ...base(), ...cc });
      expect(res.status, JSON.stringify(cc)).toBe(400);
      expect(res.body.data.some((e: any) => e.field.endsWith(field) && e.code === code), JSON.stringify(res.body)).toBe(true);
    }
    // the service checks them too (other callers than the route)
    const merchant = await gw.ctx.db.selectFrom('merchants').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    await expect(gw.ctx.deposits.createDeposit(merchant, { ...base(), game: 'csgo', custom_currency: 'EUR', custom_currency_multiplier: 3, custom_currency_rate: 1 })).rejects.toMatchObject({ kind: 'validation' });
    await expect(gw.ctx.deposits.createDeposit(merchant, { ...base(), game: 'csgo', custom_currency: 'EUR', custom_currency_multiplier: 1, custom_currency_rate: 1_000_001 })).rejects.toMatchObject({
      kind: 'validation',
      data: [{ field: 'custom_currency_rate', code: 'max' }],
    });
  });

  it('custom_currency_rate at the maximum (1 000 000 × 2.0): accepted, and status stays readable after accept', async () => {
    const cm = await gw.createMerchant({ name: 'Max rate' }); // accepting credits it: keep m's balance untouched
    const partner = nextPartner();
    const inv = await inventory(gw, cm.api_key, partner);
    const ids = inv.items.slice(0, 5).map((i) => i.id);
    const res = await create(cm.api_key, {
      merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: ids,
      custom_currency: 'PTS', custom_currency_multiplier: 2, custom_currency_rate: 1_000_000,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.id;
    const accepted = await gw.merchant(cm.api_key, 'POST', `/sandbox/deposit/${id}/accept`, { hold: false });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'completed', custom_currency_rate: 1_000_000 });
    const st = await gw.merchant(cm.api_key, 'GET', `/deposit/status?id=${id}`);
    expect(st.status).toBe(200);
    const amountMills = Math.round(res.body.data.amount * 1000);
    expect(st.body.data).toMatchObject({ status: 'completed', custom_currency: 'PTS', custom_currency_multiplier: 2, custom_currency_rate: 1_000_000 });
    expect(st.body.data.custom_currency_sum).toBe((amountMills * 2_000_000) / 1000);
    // a stored record out of range (written before the limit existed) still renders: sum null
    await gw.ctx.db.updateTable('deposits').set({ custom_currency_rate: 1e20 }).where('id', '=', id).execute();
    const huge = await gw.merchant(cm.api_key, 'GET', `/deposit/status?id=${id}`);
    expect(huge.status).toBe(200);
    expect(huge.body.data).toMatchObject({ status: 'completed', custom_currency_rate: 1e20, custom_currency_sum: null });
  });

  it('result_url must be a valid webhook target; success/fail URLs valid http(s)', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const base = { game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id] };
    const bad = await create(m.api_key, { ...base, merchant_tx_id: nextTx(), result_url: 'ftp://x.example/hook' });
    expect(bad.status).toBe(400);
    expect(bad.body.data[0].code).toBe('url');
    const badFail = await create(m.api_key, { ...base, merchant_tx_id: nextTx(), fail_url: 'not a url' });
    expect(badFail.status).toBe(400);
    const good = await create(m.api_key, { ...base, merchant_tx_id: nextTx(), result_url: 'http://127.0.0.1:9/deposit-hook', fail_url: 'https://shop.example/fail' });
    expect(good.status).toBe(200);
    const row = await gw.ctx.db.selectFrom('deposits').select(['result_url', 'fail_url']).where('id', '=', good.body.data.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ result_url: 'http://127.0.0.1:9/deposit-hook', fail_url: 'https://shop.example/fail' });
  });

  it('from_preview is honoured only where deposit preview is enabled (no snapshot needed)', async () => {
    const partner = nextPartner();
    const live = await inventory(gw, m.api_key, partner); // to learn asset ids
    clock.advance(61_000); // that snapshot is stale now
    const off = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [live.items[0].id], from_preview: true });
    expect(off.status).toBe(400);
    expect(off.body.data[0].code).toBe('inventory_reload');
    const pm = await gw.createMerchant({ name: 'Preview on', deposit_preview_enabled: true });
    const on = await create(pm.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [live.items[0].id], from_preview: true });
    expect(on.status).toBe(200);
    expect(on.body.data.amount).toBe(live.items[0].price);
  });

  it('commits an existing intent row with opts.intentId (hosted page path)', async () => {
    const tx = nextTx('intent');
    const ins = await sql<{ id: number }>`
      insert into deposits (merchant_id, merchant_tx_id, flow, status, success_url, hosted_token)
      values (${m.id}, ${tx}, 'intent', 'new', 'https://shop.example/s', ${'tok-' + tx}) returning id`.execute(gw.ctx.db);
    const intentId = ins.rows[0].id;
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const merchant = await gw.ctx.db.selectFrom('merchants').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    const req = { merchant_tx_id: tx, game: 'csgo' as const, partner, token: TOKEN, asset_ids: [inv.items[0].id] };
    const other = await gw.createMerchant({ name: 'Not the owner' });
    const otherRow = await gw.ctx.db.selectFrom('merchants').selectAll().where('id', '=', other.id).executeTakeFirstOrThrow();
    await expect(gw.ctx.deposits.createDeposit(otherRow, req, { intentId })).rejects.toMatchObject({ kind: 'validation' }); // no snapshot there
    await inventory(gw, other.api_key, partner);
    await expect(gw.ctx.deposits.createDeposit(otherRow, req, { intentId })).rejects.toMatchObject({ kind: 'not_found' });
    const res = await gw.ctx.deposits.createDeposit(merchant, req, { intentId });
    expect(res).toMatchObject({ id: intentId, merchant_tx_id: tx, status: 'active', amount: inv.items[0].price });
    const row = await gw.ctx.db.selectFrom('deposits').selectAll().where('id', '=', intentId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ flow: 'intent', status: 'active', partner, success_url: 'https://shop.example/s' });
    await expect(gw.ctx.deposits.createDeposit(merchant, req, { intentId })).rejects.toMatchObject({ kind: 'validation', data: [{ code: 'denied' }] });
  });

  it('more assets than max_items (1001 at max_items 1000) → the spec message and too_many_items, not a schema error', async () => {
    const big = await gw.createMerchant({ name: 'Max 1000', max_items: 1000 });
    const partner = nextPartner();
    const ids = Array.from({ length: 1001 }, (_, i) => String(40_000_000_000 + i));
    const over = await create(big.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: ids });
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('deposit exceeds the maximum of 1000 items per deposit');
    expect(over.body.data[0]).toMatchObject({ field: 'asset_ids', code: 'too_many_items' });
    // at the limit the service goes on (here: no snapshot yet)
    const edge = await create(big.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: ids.slice(0, 1000) });
    expect(edge.body.data[0]).toMatchObject({ code: 'inventory_reload' });
    // the schema still bounds the list (DoS), far above any max_items
    const huge = await create(big.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: Array.from({ length: 10_001 }, (_, i) => String(i + 1)) });
    expect(huge.status).toBe(400);
    expect(huge.body.data[0]).toMatchObject({ field: 'CreateDepositRequest.asset_ids', code: 'len' });
  });

  it('min_prices is never rejected by the schema: junk values and a non-object min_prices are ignored', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, m.api_key, partner);
    const [a, b, c, d] = inv.items;
    const junk: unknown[] = [
      { [a.id]: true, [b.id]: { usd: 1e9 }, [c.id]: [1e9], [d.id]: 'not a number' },
      { [a.id]: false, nested: { deep: [1, { x: null }] } },
      [1e9],
      'a string',
      42,
      null,
    ];
    for (const [i, min_prices] of junk.entries()) {
      const asset = inv.items[i];
      const res = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [asset.id], min_prices });
      expect(res.status, `case ${i}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.data.status).toBe('active');
    }
    // a real floor next to junk still applies
    const e = inv.items[junk.length];
    const floor = await create(m.api_key, {
      merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [e.id],
      min_prices: { junk: { x: 1 }, other: true, [e.id]: String(e.price + 1) },
    });
    expect(floor.status).toBe(400);
    expect(floor.body.message).toBe('item_specified_price_not_found');
  });

  it('90000010: the offer is never answered → HTTP 200 failed/service_unavailable after DEPOSIT_TIMEOUT_MS, stored', async () => {
    const inv = await inventory(gw, m.api_key, 90000010);
    const tx = nextTx();
    const body = { merchant_tx_id: tx, game: 'csgo', partner: 90000010, token: TOKEN, asset_ids: [inv.items[0].id] };
    const t0 = Date.now();
    const res = await create(m.api_key, body);
    const took = Date.now() - t0;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ merchant_tx_id: tx, status: 'failed', fail_reason: 'service_unavailable', amount: inv.items[0].price, bot_name: null, trade_offer_id: null });
    expect(took).toBeGreaterThanOrEqual(280); // the offer is never answered: an answer at all is the deadline's
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${tx}`);
    expect(st.status).toBe(200);
    expect(st.body.data).toMatchObject({ id: res.body.data.id, status: 'failed', fail_reason: 'service_unavailable' });
    // the failed deposit released its asset: the same asset can be tried again
    const again = await create(m.api_key, { ...body, merchant_tx_id: nextTx() });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
  });

  describe('an asset is in at most one live deposit of a user (pending, active, hold)', () => {
    const reservedOf = (ids: string[]) =>
      gw.ctx.db.selectFrom('deposit_items').select(['deposit_id', 'asset_id']).where('reserved', '=', true).where('asset_id', 'in', ids).execute();

    it('sequential: a second deposit of the asset → 400 item_not_available, also at another merchant; free again once the first ends', async () => {
      const partner = nextPartner();
      const inv = await inventory(gw, m.api_key, partner);
      const [a, b, c] = inv.items;
      const first = await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [a.id, b.id] });
      expect(first.status).toBe(200);
      const tx = nextTx();
      const second = await create(m.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [c.id, b.id] });
      expect(second.status).toBe(400);
      expect(second.body.message).toBe('validation error');
      expect(second.body.data).toEqual([{ field: 'asset_ids[1]', code: 'item_not_available', message: expect.stringContaining(b.id) }]);
      expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_tx_id', '=', tx).execute()).toEqual([]);
      expect(await reservedOf([c.id])).toEqual([]); // nothing of the refused deposit stays reserved
      // the same user's asset at another merchant
      const other = await gw.createMerchant({ name: 'Same user elsewhere' });
      await inventory(gw, other.api_key, partner);
      const elsewhere = await create(other.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [a.id] });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.data[0]).toMatchObject({ field: 'asset_ids[0]', code: 'item_not_available' });
      // hold keeps it reserved; a terminal status frees it
      expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${first.body.data.id}/accept`, { hold: true })).body.data.status).toBe('hold');
      expect((await create(m.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [a.id] })).status).toBe(400);
      expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${first.body.data.id}/revert`, { by: 'user' })).body.data.status).toBe('reverted');
      expect(await reservedOf([a.id, b.id])).toEqual([]);
      const later = await create(other.api_key, { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [a.id, b.id] });
      expect(later.status, JSON.stringify(later.body)).toBe(200);
      expect((await reservedOf([a.id, b.id])).map((r) => r.deposit_id)).toEqual([later.body.data.id, later.body.data.id]);
    });

    it('5 concurrent create-deposits of the same asset: exactly one wins', async () => {
      const partner = nextPartner();
      const inv = await inventory(gw, m.api_key, partner);
      const asset = inv.items[0].id;
      const txs = Array.from({ length: 5 }, () => nextTx('race'));
      const results = await Promise.all(txs.map((tx) => create(m.api_key, { merchant_tx_id: tx, game: 'csgo', partner, token: TOKEN, asset_ids: [asset] })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
      for (const r of results.filter((x) => x.status === 400)) {
        expect(r.body.message).toBe('validation error');
        expect(r.body.data[0]).toMatchObject({ code: 'item_not_available' });
        expect(r.body.data[0].field).toMatch(/^asset_ids/);
      }
      const rows = await gw.ctx.db.selectFrom('deposits').select(['id', 'status']).where('merchant_tx_id', 'in', txs).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].status).toBe('active');
      expect(await reservedOf([asset])).toEqual([{ deposit_id: rows[0].id, asset_id: asset }]);
    });
  });

  it('balances are untouched by creation; the books balance', async () => {
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).body.data).toEqual({ total: 0, hold: 0, available: 0 });
    await expectBooksBalance(gw);
  });
});
