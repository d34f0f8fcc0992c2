// GET /purchase history: date_range looks back whole days from now; older purchases drop out.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'History' });
  await gw.topUp(m.id, 100_000);
  const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as { id: string }[];
  const ages = { 'h-today': 0, 'h-3d': 3, 'h-20d': 20, 'h-60d': 60, 'h-200d': 200, 'h-400d': 400 };
  let i = 0;
  for (const [tx, days] of Object.entries(ages)) {
    const res = await gw.merchant(m.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', asset_id: items[i++].id, merchant_tx_id: tx });
    expect(res.status).toBe(200);
    await sql`update purchases set created_at = now() - make_interval(days => ${days}) - interval '1 hour' where id = ${res.body.data.id}`.execute(gw.ctx.db);
  }
});
afterAll(async () => gw?.stop());

async function txIds(range: number) {
  const res = await gw.merchant(m.api_key, 'GET', `/purchase?date_range=${range}&sort=merchant_tx_id&limit=100`);
  expect(res.status).toBe(200);
  return { ids: (res.body.data.data as { merchant_tx_id: string }[]).map((p) => p.merchant_tx_id), total: res.body.data.total };
}

describe('purchase history date_range', () => {
  it.each([
    [1, ['h-today']],
    [7, ['h-3d', 'h-today']],
    [30, ['h-20d', 'h-3d', 'h-today']],
    [90, ['h-20d', 'h-3d', 'h-60d', 'h-today']],
    [365, ['h-200d', 'h-20d', 'h-3d', 'h-60d', 'h-today']],
  ])('date_range=%i keeps only purchases of the last that many days', async (range, expected) => {
    const { ids, total } = await txIds(range);
    expect(ids).toEqual(expected);
    expect(total).toBe(expected.length);
  });

  it('without date_range every purchase is listed', async () => {
    const res = await gw.merchant(m.api_key, 'GET', '/purchase?limit=100');
    expect(res.body.data.total).toBe(6);
  });

  it.each(['2', '0', '366', 'week'])('date_range=%s is a validation error', async (range) => {
    const res = await gw.merchant(m.api_key, 'GET', `/purchase?date_range=${range}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('validation error');
  });
});
