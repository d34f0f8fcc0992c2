import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { insertListingsIgnore } from '../../src/modules/catalogue/catalogue-repo.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
const USER = { partner: 44556677, token: 'pages123' };
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '600' });
  m = await gw.createMerchant({ name: 'Pages' });
  await gw.topUp(m.id, 100_000);
});
afterAll(async () => gw?.stop());

const page = (n: number | string, extra = '', headers: Record<string, string> = {}) =>
  gw.merchant(m.api_key, 'GET', `/purchase/available?game=csgo&full=true&page=${n}${extra}`, undefined, headers);
const pageOf = (id: string) => (crypto.createHash('md5').update(id).digest()[0] % 16) + 1;

let seq = 0;
function newListings(n: number) {
  return Array.from({ length: n }, () => {
    const i = seq++;
    return { id: `beef${i.toString(16).padStart(6, '0')}`, game: 'csgo' as const, name: `Walk item ${i % 7}`, base_price: 500 + i, image_url: '/w.svg', source: 'import' as const };
  });
}

describe('pages (4.11)', () => {
  it('always 16 pages; every listing on the page given by its ID; counts add up to total', async () => {
    let sum = 0;
    let total = -1;
    for (let p = 1; p <= 16; p++) {
      const res = await page(p);
      expect(res.status).toBe(200);
      const d = res.body.data;
      expect(d.page).toBe(p);
      expect(d.total_pages).toBe(16);
      expect(d.count).toBe(d.items.length);
      expect(d.last_update_at).toMatch(ISO_MS);
      for (const it of d.items) expect(pageOf(it.id)).toBe(p);
      sum += d.count;
      total = d.total;
    }
    expect(sum).toBe(total);
    const whole = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true');
    expect(whole.body.data.total).toBe(total);
  });

  it('next/previous are absolute URLs that keep the query; null at the ends; past the last page is empty', async () => {
    const first = (await page(1, '&extended=true')).body.data;
    expect(first.previous).toBeNull();
    const next = new URL(first.next);
    expect(`${next.protocol}//${next.host}`).toBe(gw.url);
    expect(next.pathname).toBe('/api/v1/merchant/purchase/available');
    expect(Object.fromEntries(next.searchParams)).toEqual({ game: 'csgo', full: 'true', page: '2', extended: 'true' });
    const last = (await page(16)).body.data;
    expect(last.next).toBeNull();
    expect(new URL(last.previous).searchParams.get('page')).toBe('15');
    const past = await page(17);
    expect(past.status).toBe(200);
    expect(past.body.data).toMatchObject({ page: 17, total_pages: 16, count: 0, items: [], next: null, total: first.total });
    expect((await page(1000000)).body.data.items).toEqual([]);
  });

  it.each(['0', '-1', 'abc', '2.5', '1e3'])('page=%s → 400 page must be 1 or greater', async (p) => {
    const res = await page(p);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('page must be 1 or greater');
  });

  it('grouped (full=false) with page: page 1 of 1 holding every name; page 2 empty', async () => {
    const whole = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo')).body.data;
    const one = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&page=1');
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ page: 1, total_pages: 1, next: null, previous: null, total: whole.total, count: whole.items.length });
    expect(one.body.data.items).toEqual(whole.items);
    const two = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&page=2')).body.data;
    expect(two).toMatchObject({ page: 2, total_pages: 1, items: [], count: 0, next: null });
  });

  it('ETag per page: 304 on If-None-Match without a body; a change on the page changes it, others keep theirs', async () => {
    const a = await page(3);
    const etag = a.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/purchase/available?game=csgo&full=true&page=3', headers: { 'x-api-key': m.api_key, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const weak = await page(3, '', { 'if-none-match': `W/${etag}, "other"` });
    expect(weak.status).toBe(304);

    const other = await page(4);
    // buy a listing of page 3
    const victim = a.body.data.items[0];
    const bought = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: victim.id });
    expect(bought.body.data.status).toBe('pending');
    const b = await page(3, '', { 'if-none-match': etag });
    expect(b.status).toBe(200);
    expect(b.headers.etag).not.toBe(etag);
    expect(b.body.data.items.some((i: any) => i.id === victim.id)).toBe(false);
    expect(Date.parse(b.body.data.last_update_at)).toBeGreaterThanOrEqual(Date.parse(a.body.data.last_update_at));
    expect((await page(4, '', { 'if-none-match': other.headers.etag })).status).toBe(304);
    // another merchant with another markup sees other prices: another ETag
    const marked = await gw.createMerchant({ name: 'Marked', purchase_markup: 1.1 });
    const mk = await gw.merchant(marked.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=4', undefined, { 'if-none-match': other.headers.etag });
    expect(mk.status).toBe(200);
    // extended is another representation
    expect((await page(4, '&extended=true', { 'if-none-match': other.headers.etag })).status).toBe(200);
  });

  it('503 with Retry-After (whole seconds) while the catalogue is rebuilt; fine again after', async () => {
    await gw.ctx.catalogue.setRebuilding(true, 30);
    try {
      const res = await page(1);
      expect(res.status).toBe(503);
      expect(res.body.success).toBe(false);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo')).status).toBe(503);
    } finally {
      await gw.ctx.catalogue.setRebuilding(false);
    }
    expect((await page(1)).status).toBe(200);
  });

  it('a walk over 16 pages while listings are added and sold never skips or repeats an item', async () => {
    const startIds = new Set<string>();
    for (let p = 1; p <= 16; p++) for (const it of (await page(p)).body.data.items) startIds.add(it.id);
    const sold = new Set<string>();
    const seen = new Map<string, number>();
    const startList = [...startIds];
    for (let p = 1; p <= 16; p++) {
      // meanwhile: new listings arrive and some are sold, on pages before and after this one
      await insertListingsIgnore(gw.ctx.db, newListings(10));
      const buys = await Promise.all(
        [0, 1].map(() => {
          const id = startList[Math.floor(Math.random() * startList.length)];
          return gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: id });
        }),
      );
      for (const b of buys) if (b.body.data.status === 'pending') sold.add(b.body.data.item.id);
      const res = await page(p);
      for (const it of res.body.data.items) seen.set(it.id, (seen.get(it.id) ?? 0) + 1);
    }
    for (const [id, n] of seen) expect(n, id).toBe(1);
    for (const id of startIds) if (!sold.has(id)) expect(seen.has(id), id).toBe(true);
    expect(sold.size).toBeGreaterThan(0);
    // the next walk shows every listing added meanwhile
    const next = new Set<string>();
    for (let p = 1; p <= 16; p++) for (const it of (await page(p)).body.data.items) next.add(it.id);
    for (let i = 0; i < seq; i++) expect(next.has(`beef${i.toString(16).padStart(6, '0')}`)).toBe(true);
  });
});
