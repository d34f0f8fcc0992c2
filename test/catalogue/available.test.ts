import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { parseInspectLink } from '../../src/domain/inspect-link.js';

let gw: TestGateway;
let key: string;
let merchantId: number;

beforeAll(async () => {
  gw = await startTestGateway();
  const m = await gw.createMerchant({ name: 'Catalogue merchant' });
  key = m.api_key;
  merchantId = m.id;
});
afterAll(async () => gw?.stop());

const get = (path: string, headers: Record<string, string> = {}) => gw.merchant(key, 'GET', path, undefined, headers);

async function fullCatalogue(game: string, extended = false) {
  const res = await get(`/purchase/available?game=${game}&full=true${extended ? '&extended=true' : ''}`);
  expect(res.status).toBe(200);
  return res.body.data as { game: string; total: number; items: any[] };
}

describe('sandbox seed', () => {
  it('seeds SANDBOX_CATALOGUE_SIZE listings across games, idempotently', async () => {
    const n = await gw.ctx.db.selectFrom('listings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(200);
    // a second seed run (another instance, a restart) adds nothing
    expect(await gw.ctx.catalogue.seedSandbox(200, [{ game: 'csgo', name: 'x', price: 1 }])).toBe(0);
  });

  it('listing IDs are lowercase hex or digits, at most 300 characters, some long', async () => {
    const rows = await gw.ctx.db.selectFrom('listings').select(['id']).execute();
    for (const r of rows) expect(r.id).toMatch(/^[0-9a-f]{1,300}$/);
    expect(rows.some((r) => r.id.length > 100)).toBe(true);
    expect(rows.some((r) => /^\d+$/.test(r.id))).toBe(true);
  });
});

describe('GET /purchase/available without page (streamed)', () => {
  it('full form: every live listing of the game, total = count', async () => {
    const data = await fullCatalogue('csgo');
    expect(data.game).toBe('csgo');
    expect(data.total).toBe(data.items.length);
    expect(data.items.length).toBeGreaterThan(0);
    const ids = data.items.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const it of data.items) {
      expect(typeof it.id).toBe('string');
      expect(typeof it.name).toBe('string');
      expect(typeof it.price).toBe('number');
      expect(it.image_url).toMatch(/^http/);
      for (const v of Object.values(it)) expect(v).not.toBeNull();
      expect(it).not.toHaveProperty('float');
      expect(it).not.toHaveProperty('inspect_url');
    }
  });

  it('extended: float/paint_seed/asset_id derived from the inspect link, absent without one', async () => {
    const data = await fullCatalogue('csgo', true);
    const withLink = data.items.filter((i) => i.inspect_url);
    expect(withLink.length).toBeGreaterThan(0);
    for (const it of data.items) {
      const derived = parseInspectLink(it.inspect_url);
      expect(it.asset_id).toBe(derived.asset_id);
      expect(it.float).toBe(derived.float);
      expect(it.paint_seed).toBe(derived.paint_seed);
      expect(typeof it.class_id).toBe('number');
    }
    expect(withLink.some((i) => typeof i.float === 'number')).toBe(true);
    expect(withLink.some((i) => i.asset_id && i.float === undefined)).toBe(true); // classic links
    const rust = await fullCatalogue('rust', true);
    for (const it of rust.items) {
      expect(it).not.toHaveProperty('asset_id');
      expect(it).not.toHaveProperty('float');
    }
  });

  it('grouped form (default): one entry per name with count and min price', async () => {
    const full = await fullCatalogue('csgo');
    const res = await get('/purchase/available?game=csgo');
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.total).toBe(data.items.length);
    const byName = new Map<string, { count: number; min: number }>();
    for (const it of full.items) {
      const g = byName.get(it.name) ?? { count: 0, min: Infinity };
      g.count++;
      g.min = Math.min(g.min, it.price);
      byName.set(it.name, g);
    }
    expect(data.items.length).toBe(byName.size);
    for (const g of data.items) {
      expect(g.game).toBe('csgo');
      expect(g.count).toBe(byName.get(g.name)!.count);
      expect(g.price).toBe(byName.get(g.name)!.min);
      expect(Object.keys(g).sort()).toEqual(['count', 'game', 'image_url', 'name', 'price']);
    }
  });

  it('prices follow the buying merchant purchase_markup', async () => {
    const base = await fullCatalogue('csgo');
    const other = await gw.createMerchant({ name: 'Markup 1.5', purchase_markup: 1.5 });
    const res = await gw.merchant(other.api_key, 'GET', '/purchase/available?game=csgo&full=true');
    const marked = new Map((res.body.data.items as any[]).map((i) => [i.id, i.price]));
    for (const it of base.items.slice(0, 20)) {
      expect(marked.get(it.id)).toBe(Math.round(it.price * 1000 * 1.5) / 1000);
    }
  });

  it('streams a few thousand listings', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      id: `ab${i.toString(16).padStart(8, '0')}`,
      game: 'tf2' as const,
      name: `Bulk item ${i % 37}`,
      base_price: 1000 + i,
      image_url: '/static/x.svg',
      source: 'import' as const,
    }));
    const { insertListingsIgnore } = await import('../../src/modules/catalogue/catalogue-repo.js');
    for (let i = 0; i < rows.length; i += 1000) await insertListingsIgnore(gw.ctx.db, rows.slice(i, i + 1000));
    const res = await fetch(`${gw.url}/api/v1/merchant/purchase/available?game=tf2&full=true`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.data.total).toBeGreaterThanOrEqual(3000);
    expect(body.data.items.length).toBe(body.data.total);
    const grouped = await get('/purchase/available?game=tf2');
    expect(grouped.body.data.items.find((g: any) => g.name === 'Bulk item 0').count).toBeGreaterThanOrEqual(Math.ceil(3000 / 37));
  });
});

describe('validation', () => {
  it('invalid game → 400 invalid game code; missing game → the same message (spec 7.2), code required', async () => {
    const bad = await get('/purchase/available?game=minecraft');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid game code');
    expect(bad.body.data[0]).toMatchObject({ field: 'game', code: 'oneof' });
    const missing = await get('/purchase/available');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('invalid game code');
    expect(missing.body.data[0].code).toBe('required');
  });

  it('a game longer than 16 characters, or given twice, is an invalid game code on every catalogue endpoint', async () => {
    const long = 'x'.repeat(17);
    for (const path of [
      `/purchase/available?game=${long}`,
      `/purchase/available?game=${long}&page=1`,
      '/purchase/available?game=csgo&game=rust&full=true',
      `/purchase/search?game=${long}&names=a`,
      '/purchase/search?names=a',
      `/purchase/events?game=${long}`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.message, path).toBe('invalid game code');
    }
  });

  it('a page value longer than 32 characters (or repeated) → page must be 1 or greater', async () => {
    for (const p of ['1'.repeat(33), `${'0'.repeat(40)}1`, '1&page=2']) {
      const res = await get(`/purchase/available?game=csgo&full=true&page=${p}`);
      expect(res.status, p).toBe(400);
      expect(res.body.message, p).toBe('page must be 1 or greater');
    }
    // 32 digits is still a (past-the-end) page
    expect((await get(`/purchase/available?game=csgo&full=true&page=${'1'.repeat(32)}`)).status).toBe(200);
  });

  it('bad booleans name the endpoint schema: AvailableRequest.full, SearchRequest.extended, CatalogueEventsRequest.extended', async () => {
    const a = await get('/purchase/available?game=csgo&full=maybe');
    expect(a.status).toBe(400);
    expect(a.body.data[0]).toMatchObject({ field: 'AvailableRequest.full', code: 'oneof' });
    const s = await get('/purchase/search?game=csgo&names=a&extended=yes');
    expect(s.status).toBe(400);
    expect(s.body.data[0]).toMatchObject({ field: 'SearchRequest.extended', code: 'oneof' });
    const e = await get('/purchase/events?extended=nope');
    expect(e.status).toBe(400);
    expect(e.body.data[0]).toMatchObject({ field: 'CatalogueEventsRequest.extended', code: 'oneof' });
  });

  it.each(['0', '-1', 'abc', '1.5', ''])('page=%s → 400 page must be 1 or greater', async (p) => {
    const res = await get(`/purchase/available?game=csgo&full=true&page=${p}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('page must be 1 or greater');
  });
});

describe('search', () => {
  it('names repeated, full format, only those names', async () => {
    const full = await fullCatalogue('csgo');
    const names = [...new Set(full.items.map((i) => i.name))].slice(0, 2);
    const res = await get(`/purchase/search?game=csgo&${names.map((n) => `names=${encodeURIComponent(n)}`).join('&')}&extended=true`);
    expect(res.status).toBe(200);
    const items = res.body.data.items as any[];
    expect(items.length).toBe(full.items.filter((i) => names.includes(i.name)).length);
    for (const it of items) expect(names).toContain(it.name);
    expect(items.some((i) => 'class_id' in i)).toBe(true);
  });

  it('a single name works; more than 50 names → 400; invalid game → 400', async () => {
    const one = await get('/purchase/search?game=csgo&names=nothing-like-this');
    expect(one.status).toBe(200);
    expect(one.body.data.items).toEqual([]);
    const many = await get(`/purchase/search?game=csgo&${Array.from({ length: 51 }, (_, i) => `names=n${i}`).join('&')}`);
    expect(many.status).toBe(400);
    expect(many.body.message).toBe('validation error');
    expect(many.body.data[0].code).toBe('len');
    const fifty = await get(`/purchase/search?game=csgo&${Array.from({ length: 50 }, (_, i) => `names=n${i}`).join('&')}`);
    expect(fifty.status).toBe(200);
    expect((await get('/purchase/search?game=xx&names=a')).body.message).toBe('invalid game code');
  });
});

describe('OpenAPI', () => {
  it('documents the purchase and catalogue endpoints', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const p of ['/api/v1/merchant/purchase', '/api/v1/merchant/purchase/status', '/api/v1/merchant/purchase/available', '/api/v1/merchant/purchase/search', '/api/v1/merchant/purchase/events', '/api/v1/merchant/sandbox/purchase/{id}/{action}']) {
      expect(paths).toContain(p);
    }
  });
});
