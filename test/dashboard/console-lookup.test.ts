// The console's one search box (issue 24): any merchant's deposit or purchase by id,
// merchant_tx_id, trade offer id (or its Steam link) or asset id; several readings of one input;
// not found; operators only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, text, type WebClient } from './web-client.js';
import { lookupTerms } from '../../src/modules/web/console/lookup.js';

let gw: TestGateway;
let operator: WebClient;
let owner: WebClient;
let depositId: number;
let purchaseId: number;
let otherDepositId: number;

beforeAll(async () => {
  gw = await startTestGateway();
  const a = await gw.createMerchant({ name: 'Lookup A' });
  const b = await gw.createMerchant({ name: 'Lookup B' });
  const dep = async (merchantId: number, tx: string, offer: string | null, asset: string) => {
    const r = await sql<{ id: number }>`insert into deposits (merchant_id, merchant_tx_id, flow, status, game, partner, token, amount, trade_offer_id)
      values (${merchantId}, ${tx}, 'inventory', 'active', 'csgo', 12345678, 'abcdefgh', 1243, ${offer}) returning id`.execute(gw.ctx.db);
    const id = Number(r.rows[0].id);
    await sql`insert into deposit_items (deposit_id, asset_id, market_hash_name, price, game, partner) values (${id}, ${asset}, 'AK-47 | Redline (Field-Tested)', 1243, 'csgo', 12345678)`.execute(gw.ctx.db);
    return id;
  };
  depositId = await dep(a.id, 'order-777', '6100000001', '31000000001');
  // the same merchant_tx_id at another merchant: both are found
  otherDepositId = await dep(b.id, 'order-777', '6100000002', '31000000002');
  const p = await sql<{ id: number }>`insert into purchases (merchant_id, merchant_tx_id, status, game, partner, token, platform_id, amount, item_name, item_asset_id, trade_offer_id)
    values (${a.id}, 'buy-1', 'active', 'csgo', 12345678, 'abcdefgh', '76561198000000000', 2500, 'AWP | Asiimov', '32000000001', '6200000001') returning id`.execute(gw.ctx.db);
  purchaseId = Number(p.rows[0].id);
  [operator, owner] = await Promise.all([userOf(gw, null, 'ops@lookup.example'), userOf(gw, a.id, 'owner@lookup.example')]);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

describe('console lookup', () => {
  it('reads a pasted value several ways', () => {
    expect(lookupTerms('  ')).toEqual([]);
    expect(lookupTerms(' #42 ')).toEqual([{ text: '#42' }, { text: '42', id: 42 }]);
    expect(lookupTerms('https://steamcommunity.com/tradeoffer/6100000001/').map((t) => t.text)).toContain('6100000001');
    expect(lookupTerms('http://gw.example/dashboard/purchases/9?x=1')).toContainEqual({ text: '9', id: 9 });
    expect(lookupTerms('order-777')).toEqual([{ text: 'order-777' }]);
  });

  const find = (c: WebClient, q: string) => c.get(`/console/find?q=${encodeURIComponent(q)}`);

  it('one match opens the record: by id, trade offer id, asset id, Steam link, "#id"', async () => {
    for (const [q, where] of [
      [String(depositId), `/console/deposits/${depositId}`],
      [`#${purchaseId}`, `/console/purchases/${purchaseId}`],
      ['6100000001', `/console/deposits/${depositId}`],
      ['https://steamcommunity.com/tradeoffer/6200000001/', `/console/purchases/${purchaseId}`],
      ['  31000000001 ', `/console/deposits/${depositId}`],
      ['32000000001', `/console/purchases/${purchaseId}`],
      ['buy-1', `/console/purchases/${purchaseId}`],
    ]) {
      const r = await find(operator, q);
      expect(r.status, q).toBe(303);
      expect(r.location, q).toBe(where);
    }
    const d = await operator.get(`/console/deposits/${depositId}`);
    expect(text(d.body)).toContain('6100000001');
    const p = await operator.get(`/console/purchases/${purchaseId}`);
    expect(p.status).toBe(200);
    expect(text(p.body)).toContain('AWP | Asiimov');
  });

  it('several matches are listed with their merchant and what matched', async () => {
    const r = await find(operator, 'order-777');
    expect(r.status).toBe(200);
    const t = text(r.body);
    expect(t).toContain(`deposit #${depositId}`);
    expect(t).toContain(`deposit #${otherDepositId}`);
    expect(t).toContain('Lookup A');
    expect(t).toContain('Lookup B');
    expect(t).toContain('merchant_tx_id');
  });

  it('not found says so (404 with the search box); an empty search shows the box; odd input is no 500', async () => {
    const r = await find(operator, 'no-such-thing');
    expect(r.status).toBe(404);
    expect(text(r.body)).toContain('No deposit or purchase has the id, merchant_tx_id, trade offer id or asset id “no-such-thing”');
    expect(r.body).toContain('id="find-q"');
    expect((await operator.get('/console/find')).status).toBe(200);
    for (const q of ['9'.repeat(40), "'; drop table deposits; --", '\u0000x', 'x'.repeat(5000), '-1', '0']) {
      expect((await find(operator, q)).status, q).toBeLessThan(500);
    }
    expect((await operator.get('/console/find?q=a&q=b')).status).toBeLessThan(500);
    expect((await operator.get('/console/purchases/999999999')).status).toBe(404);
    expect((await operator.get('/console/purchases/abc')).status).toBe(404);
  });

  it('is for operators only', async () => {
    expect((await owner.get(`/console/find?q=${depositId}`)).status).toBe(403);
    expect((await owner.get(`/console/purchases/${purchaseId}`)).status).toBe(403);
  });
});
