import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { insertListingsIgnore } from '../../src/modules/catalogue/catalogue-repo.js';
import { depositListingId } from './deposit-listing-id.js';
import { sql } from 'kysely';

let gw: TestGateway;
let m: { id: number; api_key: string };
const USER = { partner: 55667788, token: 'events12' };
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'Events', purchase_markup: 1.25 });
  await gw.topUp(m.id, 100_000);
});
afterAll(async () => gw?.stop());

const events = (q: string) => gw.merchant(m.api_key, 'GET', `/purchase/events${q ? `?${q}` : ''}`);

let n = 0;
const rows = (count: number, game: 'csgo' | 'rust' = 'csgo') =>
  Array.from({ length: count }, () => {
    const i = n++;
    return { id: `e0${i.toString(16).padStart(6, '0')}`, game, name: `Event item ${i}`, base_price: 2000, image_url: '/e.svg', source: 'import' as const };
  });

describe('GET /purchase/events', () => {
  it('without since: from now (nothing old); cursors are fixed-width UTC ISO', async () => {
    const res = await events('');
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ count: 0, more: false, reset: false, events: [] });
    expect(d.since).toMatch(ISO_MS);
    expect(d.next).toMatch(ISO_MS);
  });

  it('a purchase removes, a refund puts back (upsert with the item at the merchant price)', async () => {
    const since = (await events('')).body.data.next;
    const l = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items[0];
    const p = (await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id })).body.data;
    const d1 = (await events(`since=${since}`)).body.data;
    expect(d1.events).toEqual([{ type: 'remove', at: expect.stringMatching(ISO_MS), game: 'csgo', id: l.id }]);
    await eventually(async () => (await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${p.id}`)).body.data.status === 'active');
    await gw.merchant(m.api_key, 'POST', `/sandbox/purchase/${p.id}/decline`);
    const d2 = (await events(`since=${d1.next}&extended=true`)).body.data;
    expect(d2.count).toBe(1);
    expect(d2.events[0]).toMatchObject({ type: 'upsert', game: 'csgo', id: l.id });
    expect(d2.events[0].item).toMatchObject({ id: l.id, name: l.name, price: l.price });
    expect(d2.events[0].item).toHaveProperty('class_id');
    // nothing new: same cursor back
    const d3 = (await events(`since=${d2.next}`)).body.data;
    expect(d3).toMatchObject({ count: 0, events: [], next: d2.next, more: false });
  });

  it('a page last_update_at is accepted as since and covers the change that set it', async () => {
    const [row] = rows(1);
    await insertListingsIgnore(gw.ctx.db, [row]);
    const pages = await Promise.all(Array.from({ length: 16 }, (_, i) => gw.merchant(m.api_key, 'GET', `/purchase/available?game=csgo&full=true&page=${i + 1}`)));
    const pg = pages.find((p) => p.body.data.items.some((i: any) => i.id === row.id))!;
    const since = pg.body.data.last_update_at;
    expect(since).toMatch(ISO_MS);
    const d = (await events(`since=${encodeURIComponent(since)}`)).body.data;
    expect(d.events.some((e: any) => e.id === row.id && e.type === 'upsert')).toBe(true);
  });

  it('paging with limit: no skip, no repeat, more until the end; game filter', async () => {
    const start = (await events('')).body.data.next;
    const batch = rows(45);
    for (let i = 0; i < batch.length; i += 15) await insertListingsIgnore(gw.ctx.db, batch.slice(i, i + 15));
    await insertListingsIgnore(gw.ctx.db, rows(5, 'rust'));
    const seen: string[] = [];
    let cursor = start;
    let pagesRead = 0;
    for (;;) {
      const d = (await events(`since=${cursor}&limit=4&game=csgo`)).body.data;
      pagesRead++;
      expect(d.count).toBe(d.events.length);
      for (const e of d.events) {
        expect(e.game).toBe('csgo');
        seen.push(e.id);
      }
      expect(d.next >= cursor).toBe(true);
      cursor = d.next;
      if (!d.more) break;
      expect(pagesRead).toBeLessThan(100);
    }
    expect(seen.length).toBe(45);
    expect(new Set(seen).size).toBe(45);
    expect(new Set(seen)).toEqual(new Set(batch.map((b) => b.id)));
    const all = (await events(`since=${start}&limit=10000`)).body.data;
    expect(all.count).toBe(50);
    expect(all.more).toBe(false);
  });

  it('reset: true when since is older than the kept history', async () => {
    const old = '2020-01-01T00:00:00.000Z';
    expect((await events(`since=${old}`)).body.data.reset).toBe(false);
    await gw.ctx.catalogue.pruneEvents(0);
    const d = (await events(`since=${old}`)).body.data;
    expect(d).toMatchObject({ reset: true, events: [], count: 0 });
    expect(d.next).toMatch(ISO_MS);
    // continuing from next works
    await insertListingsIgnore(gw.ctx.db, rows(1));
    const after = (await events(`since=${d.next}`)).body.data;
    expect(after.reset).toBe(false);
    expect(after.count).toBe(1);
  });

  it('bad input → 400', async () => {
    expect((await events('since=yesterday')).status).toBe(400);
    const g = await events('game=minecraft');
    expect(g.status).toBe(400);
    expect(g.body.message).toBe('invalid game code');
    expect((await events('limit=10001')).status).toBe(400);
    expect((await events('limit=0')).status).toBe(400);
  });
});

describe('catalogue_add_deposit_items', () => {
  it('lists the items of a completed deposit at the book price × the buying merchant markup, once', async () => {
    const depositor = await gw.createMerchant({ name: 'Depositor' });
    const dep = await sql<{ id: number }>`
      insert into deposits (merchant_id, flow, status, game, amount) values (${depositor.id}, 'inventory', 'completed', 'rust', 3000) returning id`.execute(gw.ctx.db);
    const depositId = dep.rows[0].id;
    await sql`insert into deposit_items (deposit_id, asset_id, market_hash_name, price, original_price, image_url, rarity)
              values (${depositId}, '111', 'Deposited Door', 1800, 2000, 'https://img.example/door.png', 'Rare'),
                     (${depositId}, '222', 'Deposited Door', 900, 1000, null, null)`.execute(gw.ctx.db);
    const { addJob } = await import('../../src/jobs/enqueue.js');
    await addJob(gw.ctx.db, 'catalogue_add_deposit_items', { deposit_id: depositId });
    const id = depositListingId(depositId, '111');
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    const found = await eventually(async () => {
      const d = (await gw.merchant(m.api_key, 'GET', '/purchase/search?game=rust&names=Deposited%20Door')).body.data;
      return d.items.length === 2 ? d.items : undefined;
    });
    const item = found.find((i: any) => i.id === id);
    expect(item).toMatchObject({ name: 'Deposited Door', price: 2.5, image_url: 'https://img.example/door.png', rarity: 'Rare' });
    // a replay adds nothing
    expect(await gw.ctx.catalogue.addDepositItems(depositId)).toBe(0);
    // and the listing can be bought
    const p = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'rust', name: 'Deposited Door' });
    expect(p.body.data).toMatchObject({ status: 'pending', amount: 1.25 });
  });
});
