// GET /purchase `total` (spec 4.10: the number of matching purchases) from the kept counts of
// migration 067: exact under concurrent creation, after status changes by any writer, across the
// fold of the deltas (also while purchases are being created), and read without touching purchases.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldAllPurchaseCounts } from '../../src/modules/retention/retention-service.js';
import { foldPurchaseCounts } from '../../src/modules/retention/retention-repo.js';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
const USER = { partner: 33445566, token: 'tot12345' };

beforeAll(async () => {
  // No worker: purchases stay as created unless a test moves them; the fold is called by the tests.
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '400' }, { worker: false });
});
afterAll(async () => gw?.stop());

async function items(key: string) {
  return (await gw.merchant(key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string; price: number }>;
}

async function total(key: string, query = ''): Promise<number> {
  const r = await gw.merchant(key, 'GET', `/purchase?limit=1${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.total;
}

/** What a full count of the purchases says, per status and in all. */
async function counted(merchantId: number): Promise<Record<string, number>> {
  const r = await sql<{ status: string; n: string }>`select status, count(*) as n from purchases where merchant_id = ${merchantId} group by status`.execute(gw.ctx.db);
  const out: Record<string, number> = { all: 0 };
  for (const row of r.rows) {
    out[row.status] = Number(row.n);
    out.all += Number(row.n);
  }
  return out;
}

async function expectExact(m: { id: number; api_key: string }) {
  const c = await counted(m.id);
  expect(await total(m.api_key)).toBe(c.all);
  for (const s of ['pending', 'failed', 'canceled', 'completed']) expect(await total(m.api_key, `&status=${s}`), s).toBe(c[s] ?? 0);
}

const deltas = async () => Number((await sql<{ n: string }>`select count(*) as n from purchase_counts where not base`.execute(gw.ctx.db)).rows[0].n);

describe('GET /purchase total', () => {
  it('50 parallel creates (some refused for balance, one twin pair): total and status totals exact, before and after the fold', async () => {
    const m = await gw.createMerchant({ name: 'Total fifty' });
    const other = await gw.createMerchant({ name: 'Total other' });
    const list = (await items(m.api_key)).slice(0, 50);
    expect(list.length).toBe(50);
    const sum = list.reduce((s, i) => s + Math.round(i.price * 1000), 0);
    await gw.topUp(m.id, Math.floor(sum / 2) / 1000);
    const results = await Promise.all([
      ...list.map((l, n) => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id, merchant_tx_id: `t-${n}` })),
      gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: list[0].id, merchant_tx_id: 't-0' }), // a twin
    ]);
    for (const r of results) expect(r.status).toBe(200);
    const c = await counted(m.id);
    expect(c.all).toBe(50);
    expect(c.failed).toBeGreaterThan(0);
    expect(c.pending).toBeGreaterThan(0);
    await expectExact(m);
    expect(await total(other.api_key)).toBe(0); // another merchant's count is its own
    expect(await deltas()).toBeGreaterThan(0);
    await foldAllPurchaseCounts(gw.ctx.db, 1000);
    expect(await deltas()).toBe(0);
    await expectExact(m);
  });

  it('status changes by any writer move the status totals; the sum stays', async () => {
    const m = await gw.createMerchant({ name: 'Total moves' });
    await gw.topUp(m.id, 10_000);
    const list = (await items(m.api_key)).slice(0, 3);
    const ids: number[] = [];
    for (const [n, l] of list.entries()) {
      const r = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id, merchant_tx_id: `mv-${n}` });
      expect(r.body.data.status).toBe('pending');
      ids.push(r.body.data.id);
    }
    await sql`update purchases set status = 'canceled' where id = ${ids[0]}`.execute(gw.ctx.db);
    await sql`update purchases set status = 'completed' where id = any(${ids.slice(1)})`.execute(gw.ctx.db);
    await sql`update purchases set updated_at = now() where id = ${ids[0]}`.execute(gw.ctx.db); // not a status change
    expect(await total(m.api_key, '&status=pending')).toBe(0);
    expect(await total(m.api_key, '&status=canceled')).toBe(1);
    expect(await total(m.api_key, '&status=completed')).toBe(2);
    await expectExact(m);
    // Filtered by more than the status: counted on the purchases themselves, exact too.
    expect(await total(m.api_key, '&status=completed&date_range=1')).toBe(2);
    expect(await total(m.api_key, '&search=zzz-no-such-name')).toBe(0);
  });

  it('folding in batches while purchases are created keeps every total exact', async () => {
    const m = await gw.createMerchant({ name: 'Total fold race' });
    await gw.topUp(m.id, 100_000);
    const list = (await items(m.api_key)).slice(0, 40);
    const creates = Promise.all(list.map((l, n) => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id, merchant_tx_id: `fr-${n}` })));
    const folds = (async () => {
      for (let i = 0; i < 20; i++) await foldPurchaseCounts(gw.ctx.db, 3); // small batches, interleaved with the creates
    })();
    await Promise.all([creates, folds]);
    await expectExact(m);
    // A batch takes at most `limit` deltas: with 7 left, a batch of 3 leaves 4 (the edge), then 1, then none.
    await foldAllPurchaseCounts(gw.ctx.db, 1000);
    for (let n = 0; n < 7; n++) await sql`update purchases set status = case when status = 'pending' then 'canceled' else status end where merchant_id = ${m.id} and id = (select min(id) from purchases where merchant_id = ${m.id} and status = 'pending')`.execute(gw.ctx.db);
    expect(await deltas()).toBe(14); // -1 pending, +1 canceled per change
    expect(await foldPurchaseCounts(gw.ctx.db, 13)).toBe(13);
    expect(await deltas()).toBe(1);
    expect(await foldPurchaseCounts(gw.ctx.db, 13)).toBe(1);
    expect(await deltas()).toBe(0);
    await expectExact(m);
  });

  it('one statement writes one delta row per merchant and status, and one history row per changed purchase', async () => {
    const m = await gw.createMerchant({ name: 'Total statement' });
    await foldAllPurchaseCounts(gw.ctx.db, 1000);
    const made = await sql<{ id: string }>`insert into purchases (merchant_id, game, partner, token, platform_id, status, created_at, updated_at)
      select ${m.id}, 'csgo', 1, 'tok', '76561198000000000', 'pending', now(), now() from generate_series(1, 3) returning id`.execute(gw.ctx.db);
    const ids = made.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const rows = async () => (await sql<{ status: string; n: string }>`select status, n from purchase_counts where merchant_id = ${m.id} and not base order by status, n`.execute(gw.ctx.db)).rows.map((r) => [r.status, Number(r.n)]);
    const history = async () => (await sql<{ record_id: string; from_status: string | null; to_status: string }>`
      select record_id, from_status, to_status from record_status_history where kind = 'purchase' and merchant_id = ${m.id} order by id`.execute(gw.ctx.db)).rows
      .map((r) => [Number(r.record_id), r.from_status, r.to_status]);
    expect(await rows()).toEqual([['pending', 3]]);
    expect(await history()).toEqual(ids.map((id) => [id, null, 'pending']));
    // Two of three change status in one statement, the third is updated without a change: -2 and +2, two history rows.
    await sql`update purchases set status = case when id = ${ids[2]} then status else 'canceled' end, updated_at = now() where id = any(${ids})`.execute(gw.ctx.db);
    expect(await rows()).toEqual([['canceled', 2], ['pending', -2], ['pending', 3]]);
    expect((await history()).slice(3)).toEqual([[ids[0], 'pending', 'canceled'], [ids[1], 'pending', 'canceled']]);
    // An update that changes no status writes neither.
    await sql`update purchases set updated_at = now() where id = any(${ids})`.execute(gw.ctx.db);
    expect(await rows()).toHaveLength(3);
    expect(await history()).toHaveLength(5);
    await expectExact(m);
  });

  it('the total is read from the kept counts by their index, not from purchases', async () => {
    for (const status of [undefined, 'completed']) {
      const r = await sql<{ 'QUERY PLAN': string }>`explain (costs off) select coalesce(sum(n), 0) as n from purchase_counts
         where merchant_id = ${1} ${status ? sql`and status = ${status}` : sql``}`.execute(gw.ctx.db);
      const plan = r.rows.map((x) => x['QUERY PLAN']).join('\n');
      expect(plan).not.toMatch(/purchases\b/);
    }
  });
});
