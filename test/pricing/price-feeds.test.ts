// The price sources against stand-in servers on localhost answering in each source's real format:
// Skinport's item list, CSFloat's cursor-paged listings (API key header), the Steam Market price
// overview; errors, 429 with Retry-After, partial answers, and the poller's backoff.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skinportSource } from '../../src/modules/pricing/sources/skinport.js';
import { csfloatSource } from '../../src/modules/pricing/sources/csfloat.js';
import { steamMarketSource, steamUsdToMills } from '../../src/modules/pricing/sources/steam-market.js';
import { backoffMs, createPoller } from '../../src/modules/pricing/sources/poller.js';
import { SourceError, type PollResult } from '../../src/modules/pricing/sources/source.js';

const log = pino({ level: 'silent' });
type Handler = (req: http.IncomingMessage, url: URL) => { status?: number; headers?: Record<string, string>; body: unknown };
let handler: Handler = () => ({ body: [] });
const seen: { url: URL; auth?: string }[] = [];
let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    seen.push({ url, auth: req.headers.authorization });
    const a = handler(req, url);
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers }).end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function failure(p: Promise<unknown>): Promise<SourceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(SourceError);
    return err as SourceError;
  }
  throw new Error('expected a SourceError');
}

const UPDATED = 1_763_900_000;
const skinportItem = (name: string, over: Record<string, unknown> = {}) => ({
  market_hash_name: name, currency: 'USD', suggested_price: 10.5, item_page: 'https://skinport.com/item/x', market_page: 'https://skinport.com/market?x',
  min_price: 9.8, max_price: 14, mean_price: 10.9, median_price: 10.4, quantity: 25, created_at: 1_535_988_253, updated_at: UPDATED, ...over,
});

describe('skinport /v1/items', () => {
  it('one request per game; liquidity = quantity, as-of = updated_at; a game listed in full', async () => {
    handler = (_req, url) => ({ body: url.searchParams.get('app_id') === '730' ? [skinportItem('AK-47 | Redline (Field-Tested)'), skinportItem('Sticker | Gone', { suggested_price: null, min_price: null, median_price: null, quantity: 0 })] : [skinportItem('Tempered AK47', { quantity: 2 })] });
    const src = skinportSource([`${base}/v1/items?app_id=730&currency=USD`, `${base}/v1/items?app_id=252490&currency=USD`]);
    const r = await src.poll();
    expect(r.complete).toEqual(['csgo', 'rust']);
    expect(r.readings).toEqual([
      { game: 'csgo', name: 'AK-47 | Redline (Field-Tested)', price: 10_500, asOf: UPDATED * 1000, liquidity: 25 },
      { game: 'rust', name: 'Tempered AK47', price: 10_500, asOf: UPDATED * 1000, liquidity: 2 },
    ]);
  });

  it('429 carries Retry-After; a game that fails after another answered gives a partial answer', async () => {
    handler = (_req, url) => (url.searchParams.get('app_id') === '730' ? { body: [skinportItem('AK-47 | Redline (Field-Tested)')] } : { status: 429, headers: { 'retry-after': '120' }, body: { errors: [{ id: 'rate_limit_exceeded' }] } });
    const e = await failure(skinportSource([`${base}/v1/items?app_id=730&currency=USD`, `${base}/v1/items?app_id=252490&currency=USD`]).poll());
    expect(e.message).toMatch(/HTTP 429/);
    expect(e.retryAfterMs).toBe(120_000);
    expect(e.partial?.readings.map((x) => x.name)).toEqual(['AK-47 | Redline (Field-Tested)']);
    expect(e.partial?.complete).toEqual(['csgo']);
  });

  it('a server error, a non-JSON answer and another currency are failures', async () => {
    handler = () => ({ status: 502, body: 'bad gateway' });
    expect((await failure(skinportSource([`${base}/v1/items?app_id=730&currency=USD`]).poll())).message).toMatch(/HTTP 502/);
    handler = () => ({ body: '<html>' });
    expect((await failure(skinportSource([`${base}/v1/items?app_id=730&currency=USD`]).poll())).message).toMatch(/not JSON/);
    handler = () => ({ body: [skinportItem('X', { currency: 'EUR' })] });
    expect((await failure(skinportSource([`${base}/v1/items?app_id=730&currency=USD`]).poll())).message).toMatch(/currency "EUR"/);
  });
});

const listing = (id: number, name: string, cents: number, over: Record<string, unknown> = {}) => ({
  id: String(id), created_at: '2025-11-20T10:00:00.000000Z', type: 'buy_now', price: cents, state: 'listed',
  seller: { steam_id: '76561198000000000', statistics: { total_trades: 10 } },
  item: { asset_id: String(1000 + id), def_index: 7, paint_index: 282, float_value: 0.2, market_hash_name: name, is_stattrak: false, scm: { price: cents + 50, volume: 3 } },
  min_offer_price: cents - 100, max_offer_discount: 1500, watchers: 0, ...over,
});

describe('csfloat /api/v1/listings', () => {
  const PAGES: Record<string, { data: unknown[]; cursor?: string }> = {
    '': { data: [listing(1, 'AK-47 | Redline (Field-Tested)', 1200), listing(2, 'AK-47 | Redline (Field-Tested)', 1150), listing(3, 'AWP | Asiimov (Field-Tested)', 9000)], cursor: 'c2' },
    c2: { data: [listing(4, 'AWP | Asiimov (Field-Tested)', 8800), listing(5, 'AK-47 | Redline (Field-Tested)', 1300), listing(6, 'M4A4 | Howl (Factory New)', 500_000, { type: 'auction' })], cursor: 'c3' },
    c3: { data: [listing(7, 'Glock-18 | Fade (Factory New)', 150_000)] },
  };
  const opts = () => ({ url: `${base}/api/v1/listings`, apiKey: 'test-key-secret', maxPages: 10, pageDelayMs: 5, intervalMs: 60_000 });

  it('walks the cursor pages with the API key; per name the lowest buy-now price and the number of listings', async () => {
    seen.length = 0;
    handler = (_req, url) => ({ body: PAGES[url.searchParams.get('cursor') ?? '']! });
    const r = await csfloatSource(opts()).poll();
    expect(seen.map((s) => s.url.searchParams.get('cursor'))).toEqual([null, 'c2', 'c3']);
    expect(seen.every((s) => s.auth === 'test-key-secret' && s.url.searchParams.get('limit') === '50')).toBe(true);
    const byName = Object.fromEntries(r.readings.map((x) => [x.name, [x.price, x.liquidity]]));
    expect(byName).toEqual({
      'AK-47 | Redline (Field-Tested)': [11_500, 3],
      'AWP | Asiimov (Field-Tested)': [88_000, 2],
      'Glock-18 | Fade (Factory New)': [1_500_000, 1],
    });
    expect(r.complete).toEqual([]);
  });

  it('429 on a later page: the pages read come back as a partial answer with the wait asked for', async () => {
    handler = (_req, url) => (url.searchParams.get('cursor') === 'c3' ? { status: 429, headers: { 'retry-after': '30' }, body: { message: 'too many requests' } } : { body: PAGES[url.searchParams.get('cursor') ?? '']! });
    const e = await failure(csfloatSource(opts()).poll());
    expect(e.retryAfterMs).toBe(30_000);
    expect(e.partial?.readings.map((x) => x.name).sort()).toEqual(['AK-47 | Redline (Field-Tested)', 'AWP | Asiimov (Field-Tested)']);
    expect(e.message).not.toContain('test-key-secret');
  });

  it('the older bare-array answer is read too; a wrong key (401) is a failure', async () => {
    handler = () => ({ body: [listing(1, 'AK-47 | Redline (Field-Tested)', 1200)] });
    expect((await csfloatSource({ ...opts(), maxPages: 1 }).poll()).readings).toHaveLength(1);
    handler = () => ({ status: 401, body: { message: 'invalid api key' } });
    expect((await failure(csfloatSource(opts()).poll())).message).toMatch(/HTTP 401/);
  });
});

describe('steam market priceoverview', () => {
  it('parses the real answer: median price (else lowest), volume with thousands separators', async () => {
    seen.length = 0;
    handler = () => ({ body: { success: true, lowest_price: '$1,234.56', volume: '1,234', median_price: '$1,200.05' } });
    const src = steamMarketSource({ url: `${base}/market/priceoverview/`, next: () => ({ game: 'rust', name: 'Tempered AK47' }) });
    const r = await src.poll();
    expect(r.readings).toEqual([{ game: 'rust', name: 'Tempered AK47', price: 1_200_050, asOf: expect.any(Number), liquidity: 1234 }]);
    expect(seen[0]!.url.searchParams.get('appid')).toBe('252490');
    expect(seen[0]!.url.searchParams.get('currency')).toBe('1');
    expect(seen[0]!.url.searchParams.get('market_hash_name')).toBe('Tempered AK47');
    expect(src.role).toBe('guard');
    expect(steamUsdToMills('$0.03')).toBe(30);
    expect(steamUsdToMills('1,23€')).toBeUndefined();
  });

  it('success:false gives no reading; 429 is a failure with its wait', async () => {
    const src = steamMarketSource({ url: `${base}/market/priceoverview/`, next: () => ({ game: 'csgo', name: 'Nothing' }) });
    handler = () => ({ body: { success: false } });
    expect((await src.poll()).readings).toEqual([]);
    handler = () => ({ status: 429, headers: { 'retry-after': '60' }, body: 'null' });
    expect((await failure(src.poll())).retryAfterMs).toBe(60_000);
  });
});

describe('poller', () => {
  it('backoff doubles per failure up to the cap, and never waits less than the source asked', () => {
    expect(backoffMs(1000, 1, 60_000)).toBe(2000);
    expect(backoffMs(1000, 3, 60_000)).toBe(8000);
    expect(backoffMs(1000, 10, 60_000)).toBe(60_000);
    expect(backoffMs(1000, 1, 60_000, 120_000)).toBe(120_000);
  });

  it('a partial answer is applied before backing off; a success resets the failures', async () => {
    const got: [number, boolean][] = [];
    let fail = true;
    const partial: PollResult = { readings: [{ game: 'csgo', name: 'A', price: 1000, asOf: 1 }], complete: [] };
    const p = createPoller(
      { id: 'x', role: 'market', intervalMs: 50, poll: async () => { if (fail) throw new SourceError('boom', 500, partial); return { readings: [], complete: [] }; } },
      (r, ok) => void got.push([r.readings.length, ok]),
      log,
      { maxBackoffMs: 10_000 },
    );
    expect(await p.pollNow()).toBe(500);
    expect(p.state.failures).toBe(1);
    expect(p.state.lastError).toBe('boom');
    fail = false;
    expect(await p.pollNow()).toBeLessThanOrEqual(50); // the interval counts from the poll's start
    expect(p.state.failures).toBe(0);
    expect(got).toEqual([[1, false], [0, true]]);
  });
});
