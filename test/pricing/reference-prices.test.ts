// Reference prices end to end (issue 25): a real gateway with three market sources — the shipped
// book, Skinport and CSFloat stand-ins on localhost in their real formats — and PRICE_MIN_SOURCES=2.
// One source at 10× is left out and flagged; stale or illiquid sources leave too few and the item
// is not accepted; a 60 % jump is held until the operator confirms it; pin and block are audited;
// a deposit item names the basis it was credited at, and the console and dashboard show it.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SANDBOX_PRICEBOOK_DIR } from '../../src/modules/pricing/pricebook.js';
import { createPricingService } from '../../src/modules/pricing/pricing-service.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { TOKEN, inventory, nextPartner, nextTx } from '../deposits/deposit-helpers.js';
import { text, userOf } from '../dashboard/web-client.js';

const BOOK = JSON.parse(readFileSync(join(SANDBOX_PRICEBOOK_DIR, 'csgo.json'), 'utf8')) as { market_hash_name: string; price: number }[];
const bookPrice = (name: string) => BOOK.find((e) => e.market_hash_name === name)!.price;
const [OUT, STALE, THIN, JUMP, AGREED] = BOOK.slice(0, 5).map((e) => e.market_hash_name) as [string, string, string, string, string];
const NOW_S = () => Math.floor(Date.now() / 1000);

// What the stand-ins answer: per name, Skinport's price, quantity and age, and CSFloat's listings.
let skinport = new Map<string, { usd: number; quantity: number; ageS?: number }>();
let csfloat = new Map<string, { usd: number; listings: number }>();
let failing = false;
function reset() {
  skinport = new Map(BOOK.map((e) => [e.market_hash_name, { usd: e.price, quantity: 50 }]));
  csfloat = new Map([[OUT, { usd: bookPrice(OUT), listings: 20 }], [JUMP, { usd: bookPrice(JUMP), listings: 20 }]]);
  skinport.set(OUT, { usd: bookPrice(OUT) * 10, quantity: 50 }); // manipulated: 10× the others
  skinport.set(STALE, { usd: bookPrice(STALE), quantity: 50, ageS: 2 * 86400 }); // Skinport's reading is 2 days old; CSFloat has none
  skinport.set(THIN, { usd: bookPrice(THIN), quantity: 1 }); // below PRICE_MIN_LIQUIDITY
  csfloat.set(THIN, { usd: bookPrice(THIN), listings: 1 });
}
reset();

let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (failing) return void res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
    let body: unknown;
    if (url.pathname === '/v1/items') {
      body = url.searchParams.get('app_id') !== '730' ? [] : [...skinport].map(([name, s]) => ({
        market_hash_name: name, currency: 'USD', suggested_price: s.usd, min_price: s.usd, max_price: s.usd, mean_price: s.usd, median_price: s.usd,
        quantity: s.quantity, created_at: 1_535_988_253, updated_at: NOW_S() - (s.ageS ?? 60),
      }));
    } else if (url.pathname === '/api/v1/listings') {
      if (req.headers.authorization !== 'csfloat-test-key') return void res.writeHead(401).end('{"message":"invalid key"}');
      let id = 0;
      const data = [...csfloat].flatMap(([name, c]) => Array.from({ length: c.listings }, () => ({ id: String(++id), type: 'buy_now', state: 'listed', price: Math.round(c.usd * 100), item: { market_hash_name: name } })));
      body = { data };
    } else return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const env = () => ({
  PRICE_SKINPORT: `${base}/v1/items?app_id=730&currency=USD`,
  PRICE_CSFLOAT_API_KEY: 'csfloat-test-key',
  PRICE_CSFLOAT_URL: `${base}/api/v1/listings`,
  PRICE_CSFLOAT_MAX_PAGES: '1',
  PRICE_MIN_SOURCES: '2',
  PRICE_MIN_LIQUIDITY: '5',
  PRICE_REFRESH_SECONDS: '3600',
});

describe('reference prices on a gateway with three sources', () => {
  let gw: TestGateway;
  let key: string;
  let merchantId: number;
  const quote = async (names: string[]) => {
    const r = await gw.merchant(key, 'POST', '/get-prices', { game: 'csgo', marketHashNames: names, no_deposit_intent: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return Object.fromEntries(((r.body.data.items ?? []) as { name: string; price: number }[]).map((i) => [i.name, i.price]));
  };
  const item = async (name: string) => (await gw.admin('GET', `/prices/item?game=csgo&market_hash_name=${encodeURIComponent(name)}`)).body.data;

  beforeAll(async () => {
    reset();
    gw = await startTestGateway(env());
    await gw.ctx.pricing.refresh();
    const m = await gw.createMerchant({ name: 'Prices' });
    key = m.api_key;
    merchantId = m.id;
  });
  afterAll(async () => {
    failing = false;
    await gw?.stop();
  });

  it('one source at 10× the others: priced by the others, the source flagged as an outlier', async () => {
    expect((await quote([OUT]))[OUT]).toBe(bookPrice(OUT));
    const b = await item(OUT);
    expect(b.flags).toContain('outlier');
    expect(Object.fromEntries(b.readings.map((r: { source: string; status: string }) => [r.source, r.status]))).toEqual({ book: 'used', skinport: 'outlier', csfloat: 'used' });
    const flagged = await gw.admin('GET', '/prices/flagged?flag=outlier&game=csgo');
    expect(flagged.body.data.map((x: { market_hash_name: string }) => x.market_hash_name)).toContain(OUT);
  });

  it('a stale and a missing source leave one fresh source: not accepted (left out of get-prices)', async () => {
    expect(await quote([STALE, AGREED])).toEqual({ [AGREED]: bookPrice(AGREED) });
    const b = await item(STALE);
    expect(b.flags).toEqual(expect.arrayContaining(['stale', 'too_few_sources']));
    expect(b.deposit_price).toBeNull();
    // Never sold below the last good price: it has none yet, so it is unpriced for sales too.
    expect(gw.ctx.pricing.entry('csgo', STALE)).toBeUndefined();
  });

  it('below the liquidity floor (1 listing, floor 5) a source does not count', async () => {
    expect(await quote([THIN])).toEqual({});
    expect((await item(THIN)).flags).toEqual(expect.arrayContaining(['illiquid', 'too_few_sources']));
  });

  it('a 60 % jump is held at the last good price for deposits until the operator confirms it (audited)', async () => {
    const p = bookPrice(JUMP);
    expect((await quote([JUMP]))[JUMP]).toBe(p);
    const up = Math.round(p * 1.6 * 100) / 100;
    skinport.set(JUMP, { usd: up, quantity: 50 });
    csfloat.set(JUMP, { usd: up, listings: 20 });
    await gw.ctx.pricing.refresh();
    expect((await quote([JUMP]))[JUMP]).toBe(p);
    const held = await item(JUMP);
    expect(held.flags).toContain('jump');
    expect(held.pending_jump).toBe(up);
    expect(gw.ctx.pricing.entry('csgo', JUMP)?.price).toBe(Math.round(up * 1000)); // sold at the new price
    // Nothing to confirm on an item without a jump: 400.
    expect((await gw.admin('POST', '/prices/confirm', { game: 'csgo', market_hash_name: AGREED })).status).toBe(400);
    const c = await gw.admin('POST', '/prices/confirm', { game: 'csgo', market_hash_name: JUMP });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect((await quote([JUMP]))[JUMP]).toBe(up);
    const audit = await gw.admin('GET', '/audit?limit=10');
    expect(audit.body.data.find((a: { action: string }) => a.action === 'price_jump_confirmed')?.detail).toMatchObject({ market_hash_name: JUMP });
  });

  it('an operator pin prices the item, a block refuses it; both audited, removal restores the sources', async () => {
    const pin = await gw.admin('PUT', '/prices/overrides', { game: 'csgo', market_hash_name: OUT, action: 'pin', price: 7.25, reason: 'manipulated on skinport' });
    expect(pin.status, JSON.stringify(pin.body)).toBe(200);
    expect((await quote([OUT]))[OUT]).toBe(7.25);
    expect((await item(OUT)).flags).toEqual(['pinned']);
    expect((await gw.admin('PUT', '/prices/overrides', { game: 'csgo', market_hash_name: OUT, action: 'block' })).status).toBe(200);
    expect(await quote([OUT])).toEqual({});
    const list = await gw.admin('GET', '/prices/overrides');
    expect(list.body.data).toEqual([expect.objectContaining({ game: 'csgo', market_hash_name: OUT, action: 'block', price: null, set_by: 'admin-token' })]);
    expect((await gw.admin('DELETE', `/prices/overrides?game=csgo&market_hash_name=${encodeURIComponent(OUT)}`)).status).toBe(200);
    expect((await quote([OUT]))[OUT]).toBe(bookPrice(OUT));
    expect((await gw.admin('DELETE', `/prices/overrides?game=csgo&market_hash_name=${encodeURIComponent(OUT)}`)).status).toBe(404);
    const actions = (await gw.admin('GET', '/audit?limit=20')).body.data.map((a: { action: string }) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['price_pin', 'price_block', 'price_override_removed']));
  });

  it('bad overrides are 400s: a pin without a price, a block with one, an unknown game', async () => {
    expect((await gw.admin('PUT', '/prices/overrides', { game: 'csgo', market_hash_name: OUT, action: 'pin' })).status).toBe(400);
    expect((await gw.admin('PUT', '/prices/overrides', { game: 'csgo', market_hash_name: OUT, action: 'block', price: 1 })).status).toBe(400);
    expect((await gw.admin('PUT', '/prices/overrides', { game: 'chess', market_hash_name: OUT, action: 'block' })).status).toBe(400);
    expect((await gw.admin('PUT', '/prices/overrides', { game: 'csgo', market_hash_name: OUT, action: 'pin', price: 0.0001 })).status).toBe(400);
  });

  it('a deposit item names the basis it was credited at; console and dashboard show its sources', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, key, partner);
    const it = inv.items[0]!;
    const d = await gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, asset_ids: [it.id] });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const row = await gw.ctx.db.selectFrom('deposit_items').select(['id', 'deposit_id', 'price_basis_id', 'price']).where('asset_id', '=', it.id).executeTakeFirstOrThrow();
    expect(row.price_basis_id).not.toBeNull();
    const basis = await gw.admin('GET', `/prices/bases/${row.price_basis_id}`);
    // A phase-priced item is priced by its own phase's entry ("<name> - <phase>", domain/phases.ts).
    const it2 = it as { name: string; phase?: string };
    const pricedName = it2.phase ? `${it2.name} - ${it2.phase}` : it2.name;
    expect(basis.body.data).toMatchObject({ market_hash_name: pricedName, deposit_price: it.price });
    expect(basis.body.data.readings.map((r: { source: string }) => r.source).sort()).toEqual(expect.arrayContaining(['book', 'skinport']));

    const owner = await userOf(gw, merchantId, `owner-${Date.now()}@example.com`);
    const page = await owner.get(`/dashboard/deposits/${row.deposit_id}`);
    expect(page.status).toBe(200);
    expect(text(page.body)).toMatch(/skinport: \$[\d.,]+ as of .* — used/);
    const op = await userOf(gw, null, `op-${Date.now()}@example.com`, 'operator');
    const cpage = await op.get(`/console/deposits/${row.deposit_id}`);
    expect(cpage.status).toBe(200);
    expect(text(cpage.body)).toMatch(/book: \$[\d.,]+ as of .* — used/);
    expect((await op.get('/console/deposits/999999999')).status).toBe(404);
  });

  it('the hash-name flow stores the bases the quote was made at', async () => {
    const partner = nextPartner();
    const inv = await inventory(gw, key, partner);
    // A plain name: a phased item is quoted by "<name> - <phase>" (test/deposits/real-items covers that).
    const it = inv.items.find((i: { id: string; name: string; price: number; phase?: string; tradable?: boolean }) => !i.phase && i.tradable !== false)!;
    expect(it).toBeDefined();
    const q = await gw.merchant(key, 'POST', '/get-prices', { game: 'csgo', marketHashNames: [it.name] });
    expect(q.status).toBe(200);
    const d = await gw.merchant(key, 'POST', '/create-deposit-by-hash-name', { id: q.body.data.id, merchant_tx_id: nextTx(), game: 'csgo', partner, token: TOKEN, items: [{ asset_id: it.id, name: it.name }] });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const row = await gw.ctx.db.selectFrom('deposit_items').select(['price_basis_id']).where('deposit_id', '=', q.body.data.id).executeTakeFirstOrThrow();
    const basis = await gw.admin('GET', `/prices/bases/${row.price_basis_id}`);
    expect(basis.body.data.market_hash_name).toBe(it.name);
  });
});

describe('every source failing', () => {
  it('prices_stale once no source has answered for PRICE_MAX_AGE_SECONDS; one answering source is enough', async () => {
    failing = false;
    const config = loadConfig({ PRICE_BOOK: `${base}/book-missing.json`, PRICE_SKINPORT: `${base}/v1/items?app_id=730&currency=USD`, PRICE_MAX_AGE_SECONDS: '60' });
    const pricing = createPricingService({ config, log: pino({ level: 'silent' }) });
    await expect(pricing.reload()).rejects.toThrow(/HTTP 404/); // the book fails
    await pricing.refresh(); // Skinport answers
    const t = Date.now();
    expect(() => pricing.assertFresh(new Date(t + 50_000))).not.toThrow();
    failing = true;
    await pricing.refresh(); // every source fails now
    let err: any;
    try {
      pricing.assertFresh(new Date(t + 70_000));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ kind: 'integration', data: [{ field: 'prices', code: 'prices_stale' }] });
    failing = false;
    await pricing.stop();
  });
});

describe('sandbox cases (PRICE_SANDBOX_CASES=1)', () => {
  it('the magic items play each rule through get-prices', async () => {
    const gw = await startTestGateway({ PRICE_SANDBOX_CASES: '1' });
    try {
      const m = await gw.createMerchant({ name: 'Cases' });
      const names = ['Agreed', 'Outlier', 'Stale', 'Illiquid', 'Jump', 'Guard', 'Pinned', 'Blocked'].map((c) => `Sandbox Price | ${c}`);
      const r = await gw.merchant(m.api_key, 'POST', '/get-prices', { game: 'rust', marketHashNames: names, no_deposit_intent: true });
      expect(r.status).toBe(200);
      expect(Object.fromEntries(r.body.data.items.map((i: { name: string; price: number }) => [i.name, i.price]))).toEqual({
        'Sandbox Price | Agreed': 10,
        'Sandbox Price | Outlier': 10.1,
        'Sandbox Price | Jump': 10,
        'Sandbox Price | Pinned': 5,
      });
      const flags = (n: string) => gw.ctx.pricing.basis('rust', `Sandbox Price | ${n}`)!.flags;
      expect(flags('Outlier')).toContain('outlier');
      expect(flags('Jump')).toContain('jump');
      expect(flags('Guard')).toContain('guard');
      expect(flags('Stale')).toContain('stale');
      expect(flags('Illiquid')).toContain('illiquid');
      expect(flags('Blocked')).toEqual(['blocked']);
      // Never drawn into sandbox inventories or the catalogue.
      expect(gw.ctx.pricing.namesFor('rust').some((n) => n.startsWith('Sandbox Price'))).toBe(false);
      expect(gw.ctx.pricing.sandboxItems('rust').some((n) => n.name.startsWith('Sandbox Price'))).toBe(false);
    } finally {
      await gw.stop();
    }
  });
});
