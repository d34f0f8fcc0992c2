import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { insertListingsIgnore } from '../../src/modules/catalogue/catalogue-repo.js';

let gw: TestGateway;
const USER = { partner: 33445566, token: 'conc1234' };

beforeAll(async () => {
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '400' });
});
afterAll(async () => gw?.stop());

async function csgoListings(key: string) {
  return (await gw.merchant(key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string; name: string; price: number }>;
}

describe('concurrent purchases', () => {
  it('50 concurrent purchases whose sum exceeds the balance: never negative, every failure insufficient_balance, books balance', async () => {
    const m = await gw.createMerchant({ name: 'Fifty' });
    const items = (await csgoListings(m.api_key)).slice(0, 50);
    expect(items.length).toBe(50);
    const sum = items.reduce((s, i) => s + Math.round(i.price * 1000), 0);
    const budget = Math.floor(sum / 2) / 1000;
    await gw.topUp(m.id, budget);

    const results = await Promise.all(
      items.map((l, n) => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id, merchant_tx_id: `c50-${n}` })),
    );
    for (const r of results) expect(r.status).toBe(200);
    const ok = results.filter((r) => r.body.data.status !== 'failed');
    const failed = results.filter((r) => r.body.data.status === 'failed');
    expect(ok.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) expect(f.body.data.fail_reason).toBe('insufficient_balance');

    const spent = ok.reduce((s, r) => s + Math.round(r.body.data.amount * 1000), 0);
    const bal = (await gw.merchant(m.api_key, 'GET', '/balance')).body.data;
    expect(bal.available).toBeGreaterThanOrEqual(0);
    expect(Math.round(bal.available * 1000)).toBe(Math.round(budget * 1000) - spent);
    // every failure really could not be afforded at its time: at least the cheapest failed one exceeds what is left
    const cheapestFailed = Math.min(...failed.map((f) => Math.round(f.body.data.amount * 1000)));
    expect(cheapestFailed).toBeGreaterThan(Math.round(bal.available * 1000));
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
    // the failed ones are still on sale, the bought ones are not
    const live = new Set((await csgoListings(m.api_key)).map((i) => i.id));
    for (const r of ok) expect(live.has(r.body.data.item.id)).toBe(false);
    for (const f of failed) expect(live.has(f.body.data.item.id)).toBe(true);
  });

  it('20 concurrent identical requests with one merchant_tx_id: one purchase, one debit', async () => {
    const m = await gw.createMerchant({ name: 'Twenty' });
    await gw.topUp(m.id, 10_000);
    const l = (await csgoListings(m.api_key))[0];
    const body = { ...USER, game: 'csgo', asset_id: l.id, merchant_tx_id: 'same-tx' };
    const results = await Promise.all(Array.from({ length: 20 }, () => gw.merchant(m.api_key, 'POST', '/purchase', body)));
    for (const r of results) expect(r.status).toBe(200);
    const ids = new Set(results.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    for (const r of results) expect(r.body.data.status).not.toBe('failed');
    const rows = await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', m.id).execute();
    expect(rows.length).toBe(1);
    const debits = await gw.ctx.db.selectFrom('ledger_entries').selectAll().where('merchant_id', '=', m.id).where('kind', '=', 'purchase_reserve').execute();
    expect(debits.length).toBe(1);
    const bal = (await gw.merchant(m.api_key, 'GET', '/balance')).body.data;
    expect(Math.round(bal.available * 1000)).toBe(10_000_000 - Math.round(l.price * 1000));
    expect((await gw.ctx.ledger.verify(m.id)).mismatches).toEqual([]);
  });

  it('concurrent buyers of one listing: one wins, the others get item_sold', async () => {
    const buyers = await Promise.all(Array.from({ length: 8 }, (_, i) => gw.createMerchant({ name: `Rival ${i}` })));
    for (const b of buyers) await gw.topUp(b.id, 10_000);
    const l = (await csgoListings(buyers[0].api_key))[0];
    const results = await Promise.all(buyers.map((b) => gw.merchant(b.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id })));
    const winners = results.filter((r) => r.body.data.status !== 'failed');
    expect(winners.length).toBe(1);
    for (const r of results.filter((r) => r.body.data.status === 'failed')) expect(r.body.data.fail_reason).toBe('item_sold');
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });

  it('concurrent buyers by name take different listings (the next cheapest), never the same one twice', async () => {
    const m = await gw.createMerchant({ name: 'ByName' });
    await gw.topUp(m.id, 100_000);
    const name = 'Concurrency Knife | Fade (Factory New)';
    const count = 5;
    await insertListingsIgnore(
      gw.ctx.db,
      Array.from({ length: count }, (_, i) => ({ id: `c0ffee${i}`, game: 'csgo' as const, name, base_price: 1000 + i * 10, image_url: '/x.svg', source: 'import' as const })),
    );
    const n = count + 3;
    const results = await Promise.all(Array.from({ length: n }, () => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', name })));
    const ok = results.filter((r) => r.body.data.status !== 'failed');
    const bought = ok.map((r) => r.body.data.item.id);
    expect(new Set(bought).size).toBe(bought.length);
    expect(ok.length).toBe(count);
    // each one paid the price of the listing it got
    for (const r of ok) expect(r.body.data.amount).toBe((1000 + Number(r.body.data.item.id.slice(6)) * 10) / 1000);
    for (const r of results.filter((r) => r.body.data.status === 'failed')) expect(r.body.data.fail_reason).toBe('item_sold');
    expect((await gw.ctx.ledger.verify(m.id)).mismatches).toEqual([]);
  });

  it('purchases created while others of the same merchant are refunded: no deadlock, books balance', async () => {
    const m = await gw.createMerchant({ name: 'Churn' });
    await gw.topUp(m.id, 100_000);
    const items = (await csgoListings(m.api_key)).slice(0, 40);
    const first = await Promise.all(items.slice(0, 20).map((l) => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id })));
    const results = await Promise.all([
      ...first.map((r) => gw.ctx.purchases.applyEvent(r.body.data.id, 'cancel').then(() => 'ok', (err) => String(err))),
      ...items.slice(20).map((l) => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id }).then((r) => (r.status === 200 ? 'ok' : JSON.stringify(r.body)))),
    ]);
    expect(results.filter((r) => r !== 'ok' && !/invalid transition/.test(r))).toEqual([]);
    expect((await gw.ctx.ledger.verify(m.id)).mismatches).toEqual([]);
  });
});
