// Hash-name flow (spec 4.4, 4.5): get-prices drafts and the nine commit rules in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { OffsetClock } from '../../src/domain/clock.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { TOKEN, nextPartner, nextTx, expectBooksBalance, webhookEvents, payloadOf, realAssets } from './deposit-helpers.js';
import { MAGIC_USER_ERRORS } from '../fixtures.js';
import { packedLine, unpackQuote } from '../../src/modules/deposits/quote-pack.js';

let gw: TestGateway;
let m: any;
const clock = new OffsetClock();
let names: string[];
beforeAll(async () => {
  gw = await startTestGateway({ QUOTE_TTL_SECONDS: '300', DEPOSIT_TIMEOUT_MS: '400' }, { clock });
  m = await gw.createMerchant({ name: 'Hash name', webhook_url: 'http://127.0.0.1:9/hooks' });
  names = [...gw.ctx.pricing.namesFor('csgo')].slice(0, 10);
});
afterAll(async () => gw?.stop());

const quote = (key: string, body: Record<string, unknown>) => gw.merchant(key, 'POST', '/get-prices', body);
const commit = (key: string, body: Record<string, unknown>) => gw.merchant(key, 'POST', '/create-deposit-by-hash-name', body);

type Draft = { id: number; total: number; sum: number; items: { name: string; price: number; originalPrice: number }[]; partner: number; assets: string[] };
/** A draft quoting n items the user `partner` really holds (issue 9: every credit is backed by a real item). */
async function draft(key = m.api_key, n = 2, partner = nextPartner(), skip = 0): Promise<Draft> {
  const held = (await realAssets(gw, partner, n + skip)).slice(skip);
  expect(held.length).toBe(n);
  const res = await quote(key, { game: 'csgo', marketHashNames: held.map((h) => h.name) });
  expect(res.status).toBe(200);
  return { ...res.body.data, partner, assets: held.map((h) => h.asset_id) };
}
const itemsOf = (q: Draft, extra: Record<string, unknown> = {}) =>
  q.items.map((it, i) => ({ asset_id: q.assets[i], name: it.name, ...extra }));
const commitBody = (q: Draft, extra: Record<string, unknown> = {}) => ({
  id: q.id, merchant_tx_id: nextTx('h'), game: 'csgo', partner: q.partner, token: TOKEN, items: itemsOf(q), ...extra,
});
/** A sandbox user holding two tradable assets of one priced, unphased name. */
async function userWithTwins() {
  for (let i = 0; i < 500; i++) {
    const partner = nextPartner();
    const inv = await gw.ctx.platform.loadInventory('csgo', partner, TOKEN);
    const byName = new Map<string, string[]>();
    for (const it of inv) {
      if (it.tradable === false || it.phase || !gw.ctx.pricing.entry('csgo', it.marketHashName)) continue;
      byName.set(it.marketHashName, [...(byName.get(it.marketHashName) ?? []), it.assetId]);
    }
    for (const [name, ids] of byName) if (ids.length >= 2) return { partner, twins: ids.slice(0, 2).map((asset_id) => ({ asset_id, name })) };
  }
  throw new Error('no sandbox user with two assets of one name');
}
const row = (id: number) => gw.ctx.db.selectFrom('deposits').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('POST /get-prices', () => {
  it('quotes names and leaves a draft (status new) with an id', async () => {
    const res = await quote(m.api_key, { game: 'csgo', marketHashNames: [...names.slice(0, 3), 'Not A Real Item', names[0]] });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(['id', 'items', 'sum', 'total']);
    expect(d.total).toBe(3);
    expect(d.items.map((i: any) => i.name)).toEqual(names.slice(0, 3));
    for (const it of d.items) {
      expect(Object.keys(it)).toEqual(['name', 'price', 'originalPrice']);
      expect(it.originalPrice).toBe(gw.ctx.pricing.entry('csgo', it.name)!.price / 1000);
    }
    expect(d.sum).toBe(d.items.reduce((s: number, i: any) => s + Math.round(i.price * 1000), 0) / 1000);
    const r = await row(d.id);
    expect(r).toMatchObject({ status: 'new', flow: 'hash_name', merchant_tx_id: null, game: 'csgo' });
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}`);
    expect(st.body.data.status).toBe('new');
    // The same names again: quoted again in full (a name is taken once per call, not once ever).
    const again = await quote(m.api_key, { game: 'csgo', marketHashNames: [names[1], names[1], ...names.slice(0, 3)] });
    expect(again.body.data.items.map((i: any) => i.name)).toEqual([names[1], names[0], names[2]]);
    expect(again.body.data.id).not.toBe(d.id);
  });

  it('price = base × deposit multiplier; originalPrice is the base', async () => {
    const mm = await gw.createMerchant({ name: 'Mult' });
    await gw.admin('PATCH', `/merchants/${mm.id}`, { deposit_multiplier: 1.2345 });
    const res = await quote(mm.api_key, { game: 'csgo', marketHashNames: names.slice(0, 5), no_deposit_intent: true });
    for (const it of res.body.data.items) {
      const base = gw.ctx.pricing.entry('csgo', it.name)!.price;
      expect(it.originalPrice).toBe(base / 1000);
      expect(it.price).toBe(Math.round(base * 1.2345) / 1000);
    }
  });

  it('no_deposit_intent: prices only, no id, no record', async () => {
    const before = await gw.ctx.db.selectFrom('deposits').select('id').execute();
    const res = await quote(m.api_key, { game: 'csgo', marketHashNames: names.slice(0, 2), no_deposit_intent: true });
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('id');
    expect(res.body.data.total).toBe(2);
    expect((await gw.ctx.db.selectFrom('deposits').select('id').execute()).length).toBe(before.length);
  });

  it('nothing priced: total 0, sum 0, items null, no id, no draft', async () => {
    const before = (await gw.ctx.db.selectFrom('deposits').select('id').execute()).length;
    const res = await quote(m.api_key, { game: 'csgo', marketHashNames: ['Nope 1', 'Nope 2'] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ total: 0, sum: 0, items: null });
    expect((await gw.ctx.db.selectFrom('deposits').select('id').execute()).length).toBe(before);
  });

  it('1 to 2000 names: 0 and 2001 are validation errors, 2000 passes; bad game is 400', async () => {
    const empty = await quote(m.api_key, { game: 'csgo', marketHashNames: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.data[0]).toMatchObject({ field: 'GetPricesRequest.marketHashNames', code: 'len' });
    const many = Array.from({ length: 2000 }, (_, i) => names[i % names.length] + (i >= names.length ? ` #${i}` : ''));
    expect((await quote(m.api_key, { game: 'csgo', marketHashNames: many, no_deposit_intent: true })).status).toBe(200);
    const over = await quote(m.api_key, { game: 'csgo', marketHashNames: [...many, 'x'] });
    expect(over.status).toBe(400);
    expect(over.body.data[0].code).toBe('len');
    const game = await quote(m.api_key, { game: 'chess', marketHashNames: ['x'] });
    expect(game.status).toBe(400);
    expect(game.body.data[0]).toMatchObject({ field: 'GetPricesRequest.game', code: 'oneof' });
  });
});

describe('POST /create-deposit-by-hash-name', () => {
  it('commits a draft: active with bot and offer, amount from the quote, items stored', async () => {
    const q = await draft();
    const body = commitBody(q, { success_url: 'https://shop.example/s', result_url: 'http://127.0.0.1:9/r' });
    const res = await commit(m.api_key, body);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual(['id', 'merchant_tx_id', 'status', 'amount', 'bot_name', 'bot_platform_id', 'trade_offer_id', 'trade_offer_expiry_at']);
    expect(d).toMatchObject({ id: q.id, merchant_tx_id: body.merchant_tx_id, status: 'active', amount: q.sum });
    const r = await row(q.id);
    expect(r).toMatchObject({ status: 'active', partner: body.partner, token: TOKEN, success_url: 'https://shop.example/s', result_url: 'http://127.0.0.1:9/r', amount: Math.round(q.sum * 1000) });
    const items = await gw.ctx.db.selectFrom('deposit_items').selectAll().where('deposit_id', '=', q.id).execute();
    expect(items.map((i) => i.market_hash_name)).toEqual(q.items.map((i) => i.name));
  });

  it('rule 1: the trade key first (magic partners → their code), the draft stays new', async () => {
    const q = await draft();
    const cases = MAGIC_USER_ERRORS.map(([partner, code, field]) => [partner, field, code] as const);
    for (const [partner, field, code] of cases) {
      const res = await commit(m.api_key, commitBody(q, { partner }));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('validation error');
      expect(res.body.data[0]).toMatchObject({ field, code });
    }
    expect((await row(q.id)).status).toBe('new');
    // 90000009 (empty inventory) is a valid user, but holds none of the assets: stored failed item_not_available
    const empty = await commit(m.api_key, commitBody(q, { partner: 90000009 }));
    expect(empty.status).toBe(400);
    expect(empty.body.data.map((e: any) => e.code)).toEqual(['item_not_available', 'item_not_available']);
    expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'item_not_available', partner: 90000009 });
    // rule 1 comes before rule 2: a bad key on a missing trade is still the key error
    const missing = await commit(m.api_key, { ...commitBody(q, { partner: 90000003 }), id: 999999999 });
    expect(missing.body.data[0]).toMatchObject({ code: 'trade_banned' });
  });

  it("rule 2: another merchant's or a missing trade → 404; not new → 400 denied", async () => {
    const q = await draft();
    const other = await gw.createMerchant({ name: 'Other' });
    const foreign = await commit(other.api_key, commitBody(q));
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('not found error');
    expect((await commit(m.api_key, { ...commitBody(q), id: 999999999 })).status).toBe(404);
    expect((await commit(m.api_key, commitBody(q))).status).toBe(200);
    const again = await commit(m.api_key, commitBody(q));
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('validation error');
    expect(again.body.data[0]).toMatchObject({ field: 'status', code: 'denied' });
  });

  it('rule 3: a duplicate merchant_tx_id → 409 already exist error', async () => {
    const q1 = await draft();
    const body = commitBody(q1);
    expect((await commit(m.api_key, body)).status).toBe(200);
    const q2 = await draft();
    const dup = await commit(m.api_key, { ...commitBody(q2), merchant_tx_id: body.merchant_tx_id });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('already exist error');
    expect((await row(q2.id)).status).toBe('new'); // the draft can still be committed
    expect((await commit(m.api_key, commitBody(q2))).status).toBe(200);
  });

  it('rule 4: a quote older than QUOTE_TTL → 400 inventory_reload, stored as failed', async () => {
    const q = await draft();
    clock.advance(301_000);
    const res = await commit(m.api_key, commitBody(q));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data[0]).toMatchObject({ field: 'inventory', code: 'inventory_reload' });
    const st = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${q.id}`)).body.data;
    expect(st).toMatchObject({ status: 'failed', fail_reason: 'inventory_reload' });
    const ev = await webhookEvents(gw, q.id);
    expect(ev.map((e) => e.status)).toEqual(['failed']);
    expect(payloadOf(ev[0])).toMatchObject({ status: 'failed', fail_reason: 'inventory_reload', trade_id: q.id });
  });

  it('rule 6: a price below min_price → 400 item_specified_price_not_found, stored; min_price <= 0 ignored; at the floor passes', async () => {
    const q = await draft();
    const items = itemsOf(q);
    items[1] = { ...items[1], min_price: q.items[1].price + 0.001 } as any;
    const res = await commit(m.api_key, { ...commitBody(q), items });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('item_specified_price_not_found');
    expect(res.body.data[0]).toMatchObject({ field: 'items[1].min_price', code: 'item_specified_price_not_found' });
    expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'item_specified_price_not_found' });

    const q2 = await draft();
    const ok = itemsOf(q2).map((it, i) => ({ ...it, min_price: i === 0 ? q2.items[0].price : -5 }));
    expect((await commit(m.api_key, { ...commitBody(q2), items: ok })).status).toBe(200);
  });

  it('rule 4 comes before rule 6', async () => {
    const q = await draft();
    clock.advance(301_000);
    const items = itemsOf(q).map((it) => ({ ...it, min_price: 1_000_000 }));
    const res = await commit(m.api_key, { ...commitBody(q), items });
    expect(res.body.data[0].code).toBe('inventory_reload');
  });

  it('rule 8: the platform does not answer (90000010) → HTTP 200 failed/service_unavailable after DEPOSIT_TIMEOUT_MS', async () => {
    const q = await draft(m.api_key, 2, 90000010);
    const t0 = Date.now();
    const res = await commit(m.api_key, commitBody(q));
    const took = Date.now() - t0;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: q.id, status: 'failed', fail_reason: 'service_unavailable', bot_name: null, bot_platform_id: null, trade_offer_id: null });
    expect(took).toBeGreaterThanOrEqual(380); // never answered: an answer at all is the deadline's
    expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
    const ev = await webhookEvents(gw, q.id);
    expect(payloadOf(ev[0])).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
  });

  it('names must have been quoted; asset_id numeric; at least one item', async () => {
    const q = await draft();
    const res = await commit(m.api_key, { ...commitBody(q), items: [{ asset_id: '1', name: 'Not quoted' }] });
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ field: 'items[0].name', code: 'item_not_available' });
    expect((await row(q.id)).status).toBe('new');
    const nonNumeric = await commit(m.api_key, { ...commitBody(q), items: [{ asset_id: 'abc', name: q.items[0].name }] });
    expect(nonNumeric.status).toBe(400);
    expect(nonNumeric.body.data[0]).toMatchObject({ field: 'CreateDepositByHashNameRequest.items[0].asset_id', code: 'numeric' });
    const none = await commit(m.api_key, { ...commitBody(q), items: [] });
    expect(none.body.data[0]).toMatchObject({ code: 'len' });
    const wrongGame = await commit(m.api_key, { ...commitBody(q), game: 'rust' });
    expect(wrongGame.status).toBe(400);
  });

  it('more items than max_items → 400 too_many_items, the draft untouched; the edge passes', async () => {
    const mm = await gw.createMerchant({ name: 'Max 2', max_items: 2 });
    const q = await draft(mm.api_key, 3);
    const over = await commit(mm.api_key, commitBody(q));
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('deposit exceeds the maximum of 2 items per deposit');
    expect(over.body.data[0]).toMatchObject({ field: 'items', code: 'too_many_items' });
    expect((await row(q.id)).status).toBe('new');
    const edge = await commit(mm.api_key, { ...commitBody(q), items: itemsOf(q).slice(0, 2) });
    expect(edge.status).toBe(200);
    expect(edge.body.data.amount).toBe((Math.round(q.items[0].price * 1000) + Math.round(q.items[1].price * 1000)) / 1000);
  });

  it('custom currency on this path: limits checked, stored, shown by status in hold with the computed sum', async () => {
    const q = await draft();
    const bad = await commit(m.api_key, commitBody(q, { custom_currency: 'EUR', custom_currency_multiplier: 1 }));
    expect(bad.status).toBe(400);
    expect(bad.body.data[0]).toMatchObject({ code: 'required' });
    const res = await commit(m.api_key, commitBody(q, { custom_currency: 'EUR', custom_currency_multiplier: 1.5, custom_currency_rate: 0.9 }));
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('custom_currency');
    let st = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${q.id}`)).body.data;
    expect(st).not.toHaveProperty('custom_currency'); // active
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${q.id}/accept`, { hold: true });
    st = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${q.id}`)).body.data;
    expect(st).toMatchObject({ status: 'hold', custom_currency: 'EUR', custom_currency_multiplier: 1.5, custom_currency_rate: 0.9 });
    expect(st.custom_currency_sum).toBe(Math.round(Math.round(q.sum * 1000) * 0.9 * 1.5) / 1000);
    expect(st.hold_end_date).toBeTruthy();
  });

  it('a duplicate asset_id among the items → 400 validation error duplicate, the draft untouched', async () => {
    const q = await draft(m.api_key, 3);
    const items = itemsOf(q);
    items[2] = { ...items[2], asset_id: items[0].asset_id };
    const res = await commit(m.api_key, { ...commitBody(q), items });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
    expect(res.body.data).toEqual([{ field: 'items[2].asset_id', code: 'duplicate', message: `asset ${items[0].asset_id} is listed twice` }]);
    expect(await row(q.id)).toMatchObject({ status: 'new', amount: 0 });
    expect(await gw.ctx.db.selectFrom('deposit_items').select('id').where('deposit_id', '=', q.id).execute()).toEqual([]);
    // the same name twice with different assets (a user holding two of it) is two items
    const { partner, twins } = await userWithTwins();
    const qt = (await quote(m.api_key, { game: 'csgo', marketHashNames: [twins[0].name] })).body.data;
    const ok = await commit(m.api_key, { ...commitBody({ ...qt, partner, assets: [] }), items: twins });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.amount).toBe((2 * Math.round(qt.items[0].price * 1000)) / 1000);
  });

  it('1001 items at max_items 1000 → the spec message and too_many_items, not a schema error', async () => {
    const big = await gw.createMerchant({ name: 'Max 1000', max_items: 1000 });
    const q = await draft(big.api_key, 1);
    const items = Array.from({ length: 1001 }, (_, i) => ({ asset_id: String(32_000_000_000 + i), name: q.items[0].name }));
    const over = await commit(big.api_key, { ...commitBody(q), items });
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('deposit exceeds the maximum of 1000 items per deposit');
    expect(over.body.data[0]).toMatchObject({ field: 'items', code: 'too_many_items' });
    expect((await row(q.id)).status).toBe('new');
    // the edge passes the limit and reaches the inventory check (nobody holds these assets)
    const edge = await commit(big.api_key, { ...commitBody(q), items: items.slice(0, 1000) });
    expect(edge.status).toBe(400);
    expect(edge.body.data).toHaveLength(1000);
    expect(edge.body.data[0]).toMatchObject({ field: 'items[0].asset_id', code: 'item_not_available' });
  });

  it('custom_currency_rate: 1 000 000 passes, one past → 400 max', async () => {
    const q = await draft();
    const over = await commit(m.api_key, commitBody(q, { custom_currency: 'PTS', custom_currency_multiplier: 1, custom_currency_rate: 1_000_000.5 }));
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('validation error');
    expect(over.body.data[0]).toMatchObject({ field: 'CreateDepositByHashNameRequest.custom_currency_rate', code: 'max' });
    expect((await row(q.id)).status).toBe('new');
    const ok = await commit(m.api_key, commitBody(q, { custom_currency: 'PTS', custom_currency_multiplier: 2, custom_currency_rate: 1_000_000 }));
    expect(ok.status).toBe(200);
    const rm = await gw.createMerchant({ name: 'Rate max hold' }); // a hold moves money: not on m
    const q2 = await draft(rm.api_key);
    expect((await commit(rm.api_key, commitBody(q2, { custom_currency: 'PTS', custom_currency_multiplier: 2, custom_currency_rate: 1_000_000 }))).status).toBe(200);
    expect((await gw.merchant(rm.api_key, 'POST', `/sandbox/deposit/${q2.id}/accept`, { hold: true })).status).toBe(200);
    const st = await gw.merchant(rm.api_key, 'GET', `/deposit/status?id=${q2.id}`);
    expect(st.status).toBe(200);
    expect(st.body.data).toMatchObject({ status: 'hold', custom_currency_rate: 1_000_000, custom_currency_sum: Math.round(q2.sum * 1000) * 2_000_000 / 1000 });
  });

  it('rules 4 and 6: the failed trade carries its amount in status and in the failed webhook', async () => {
    const q = await draft();
    clock.advance(301_000);
    expect((await commit(m.api_key, commitBody(q))).status).toBe(400);
    const st = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${q.id}`)).body.data;
    expect(st).toMatchObject({ status: 'failed', fail_reason: 'inventory_reload', amount: q.sum });
    expect(payloadOf((await webhookEvents(gw, q.id))[0])).toMatchObject({ status: 'failed', amount: q.sum });

    const q2 = await draft();
    const items = itemsOf(q2).map((it, i) => (i === 0 ? { ...it, min_price: 1_000_000 } : it));
    expect((await commit(m.api_key, { ...commitBody(q2), items })).status).toBe(400);
    const st2 = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${q2.id}`)).body.data;
    expect(st2).toMatchObject({ status: 'failed', fail_reason: 'item_specified_price_not_found', amount: q2.sum });
    expect(payloadOf((await webhookEvents(gw, q2.id))[0])).toMatchObject({ status: 'failed', fail_reason: 'item_specified_price_not_found', amount: q2.sum });
  });

  it('a trade failed meanwhile (e.g. by the pending watchdog) still answers the rule 4 refusal, never 409', async () => {
    // A trigger fails this trade the moment it becomes pending, as a concurrent watchdog would.
    const q = await draft();
    const tx = nextTx('meanwhile');
    await sql`create or replace function test_fail_on_commit() returns trigger language plpgsql as $$
      begin
        if new.status = 'pending' and new.merchant_tx_id like 'meanwhile-%' then
          new.status := 'failed';
          new.fail_reason := 'service_unavailable';
        end if;
        return new;
      end $$`.execute(gw.ctx.db);
    await sql`create trigger test_fail_on_commit before update on deposits for each row execute function test_fail_on_commit()`.execute(gw.ctx.db);
    try {
      clock.advance(301_000);
      const res = await commit(m.api_key, { ...commitBody(q), merchant_tx_id: tx });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.data[0]).toMatchObject({ field: 'inventory', code: 'inventory_reload' });
      expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
    } finally {
      await sql`drop trigger test_fail_on_commit on deposits`.execute(gw.ctx.db);
    }
  });

  describe('assets already in a live deposit of the user', () => {
    it('→ 400 item_not_available naming the item; the draft stays new; free again once that deposit ends', async () => {
      const partner = nextPartner();
      const first = await draft(m.api_key, 2, partner);
      const a = await commit(m.api_key, commitBody(first));
      expect(a.status).toBe(200);
      const q = await draft(m.api_key, 3, partner);
      const items = itemsOf(q); // items 0 and 1 are taken, 2 is free
      const res = await commit(m.api_key, { ...commitBody(q), items });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('validation error');
      expect(res.body.data.map((e: any) => `${e.field}:${e.code}`)).toEqual(['items[0].asset_id:item_not_available', 'items[1].asset_id:item_not_available']);
      expect((await row(q.id)).status).toBe('new');
      // once the first deposit is canceled its assets are free (a declined offer leaves them with the user)
      expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${a.body.data.id}/decline`)).body.data.status).toBe('canceled');
      const q3 = await draft(m.api_key, 2, partner);
      expect((await commit(m.api_key, commitBody(q3))).status).toBe(200);
    });

    it('concurrent commits of two drafts with the same asset: one active, the other 400 item_not_available', async () => {
      for (let round = 0; round < 3; round++) {
        const partner = nextPartner();
        const drafts = [await draft(m.api_key, 2, partner), await draft(m.api_key, 2, partner)];
        const results = await Promise.all(drafts.map((q) => commit(m.api_key, commitBody(q))));
        expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
        const loser = results.findIndex((r) => r.status === 400);
        expect(results[loser].body.data[0]).toMatchObject({ code: 'item_not_available' });
        expect(results[loser].body.data[0].field).toMatch(/^items/);
        const lost = await row(drafts[loser].id);
        // refused by the pre-check (still new) or by the reservation at rule 7 (stored as failed)
        if (lost.status === 'failed') expect(lost.fail_reason).toBe('item_not_available');
        else expect(lost.status).toBe('new');
        expect((await row(drafts[1 - loser].id)).status).toBe('active');
      }
    });
  });

  it('rule 7: an asset taken after the pre-check → the deposit is stored failed item_not_available (one transaction, savepoint), 400 naming it', async () => {
    const partner = nextPartner();
    // Another live deposit of the same user (its own asset), to own the conflicting reservation.
    const other = await draft(m.api_key, 1, partner, 2);
    const otherRes = await commit(m.api_key, commitBody(other));
    expect(otherRes.body.data.status).toBe('active');
    const q = await draft(m.api_key, 2, partner);
    const body = commitBody(q);
    const taken = body.items[0].asset_id;
    // Deterministic race: when this draft goes pending (rule 3), the other deposit reserves the
    // asset in the same instant, i.e. after the pre-check and before this deposit's items (rule 7).
    await sql
      .raw(
        `create or replace function test_take_asset() returns trigger language plpgsql as $$ begin
           insert into deposit_items (deposit_id, asset_id, market_hash_name, price, game, partner, reserved)
           values (${otherRes.body.data.id}, '${taken}', 'taken meanwhile', 1, 'csgo', ${partner}, true);
           return new; end $$;
         create trigger test_take_asset after update on deposits for each row
           when (new.id = ${q.id} and new.status = 'pending') execute function test_take_asset();`,
      )
      .execute(gw.ctx.db);
    try {
      const res = await commit(m.api_key, body);
      expect(res.status).toBe(400);
      expect(res.body.data).toEqual([{ field: 'items[0].asset_id', code: 'item_not_available', message: `asset ${taken} is already in another deposit that is not finished` }]);
      expect(await row(q.id)).toMatchObject({ status: 'failed', fail_reason: 'item_not_available', merchant_tx_id: body.merchant_tx_id, partner });
      // Nothing of this deposit stays reserved, and the failure was reported.
      const items = await gw.ctx.db.selectFrom('deposit_items').select(['asset_id', 'reserved']).where('deposit_id', '=', q.id).execute();
      expect(items.filter((i) => i.reserved)).toEqual([]);
      expect((await webhookEvents(gw, q.id)).map((e) => e.status)).toEqual(['failed']);
    } finally {
      await sql.raw('drop trigger test_take_asset on deposits; drop function test_take_asset();').execute(gw.ctx.db);
    }
  });

  it('two concurrent commits of the same draft produce one deposit', async () => {
    for (let round = 0; round < 3; round++) {
      const q = await draft();
      const bodies = [commitBody(q), commitBody(q), commitBody(q)];
      const results = await Promise.all(bodies.map((b) => commit(m.api_key, b)));
      const okRes = results.filter((r) => r.status === 200);
      expect(okRes).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(400);
        // the same user's assets: refused as not new, or (read before the winner's commit) as already reserved
        expect(['denied', 'item_not_available']).toContain(r.body.data[0].code);
      }
      const r = await row(q.id);
      expect(r.merchant_tx_id).toBe(okRes[0].body.data.merchant_tx_id);
      const items = await gw.ctx.db.selectFrom('deposit_items').select('id').where('deposit_id', '=', q.id).execute();
      expect(items).toHaveLength(q.items.length);
    }
    await expectBooksBalance(gw);
  });
});

describe('the quote of a draft (014_deposit_quotes.sql, packed since 019_packed_quotes.sql)', () => {
  const linesOf = (d: Draft) => d.items.map((i) => [i.name, Math.round(i.price * 1000), Math.round(i.originalPrice * 1000)] as [string, number, number]);

  it('is one deposit_quotes row holding every priced line packed, 2000 names included', async () => {
    const priced = gw.ctx.pricing.namesFor('csgo');
    const many = Array.from({ length: 2000 }, (_, i) => (i < priced.length ? priced[i] : `Unpriced name #${i}`));
    const res = await quote(m.api_key, { game: 'csgo', marketHashNames: many });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.total).toBe(Math.min(2000, priced.length));
    const rows = await gw.ctx.db.selectFrom('deposit_quotes').selectAll().where('deposit_id', '=', d.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].packed!.length).toBe(24 * d.total);
    const lookup = unpackQuote(rows[0].packed);
    for (const [name, price, original_price] of linesOf(d)) expect(lookup(name)).toEqual({ price, original_price });
    expect(lookup('Unpriced name #1999')).toBeUndefined();
  });

  it('a packed quote is honoured after the price book changes: the commit credits the quoted prices', async () => {
    const q = await draft();
    // The stored prices are what counts, not today's book: raise them in the row and commit.
    const raised = linesOf(q).map(([n, p, o]) => [n, p + 1, o + 2] as [string, number, number]);
    await gw.ctx.db.updateTable('deposit_quotes').set({ packed: Buffer.concat(raised.map(([n, p, o]) => packedLine(n, p, o))) }).where('deposit_id', '=', q.id).execute();
    const res = await commit(m.api_key, commitBody(q));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const items = await gw.ctx.db.selectFrom('deposit_items').select(['market_hash_name', 'price', 'original_price']).where('deposit_id', '=', q.id).orderBy('id').execute();
    expect(items.map((i) => [i.market_hash_name, Number(i.price), Number(i.original_price)])).toEqual(raised);
    expect(Number((await row(q.id)).amount)).toBe(raised.reduce((s, l) => s + l[1], 0));
  });

  it('a draft without its quote (one of the forms before 019, removed by migration 071) is refused: nothing was quoted', async () => {
    const q = await draft();
    await gw.ctx.db.deleteFrom('deposit_quotes').where('deposit_id', '=', q.id).execute();
    const res = await commit(m.api_key, commitBody(q));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('was not quoted by get-prices');
    expect((await row(q.id)).status).toBe('new');
  });

  it('a name the packed quote does not hold is refused as not quoted', async () => {
    const q = await draft(m.api_key, 2);
    const body = commitBody(q);
    body.items[1] = { ...body.items[1], name: `${q.items[1].name} ` };
    const res = await commit(m.api_key, body);
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([{ field: 'items[1].name', code: 'item_not_available', message: `${q.items[1].name}  was not quoted by get-prices` }]);
  });
});
