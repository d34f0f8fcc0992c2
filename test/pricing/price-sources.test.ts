// Skinport's public item list as a price source (PRICE_BOOK=skinport:<url>).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSourceList, loadSourceList, skinportEntries, skinportGame } from '../../src/modules/pricing/price-sources.js';
import { createPricingService } from '../../src/modules/pricing/pricing-service.js';
import { loadConfig } from '../../src/config.js';
import pino from 'pino';

// As https://api.skinport.com/v1/items?app_id=730&currency=USD answers (fields trimmed to a few).
const CS2 = [
  { market_hash_name: 'AK-47 | Redline (Minimal Wear)', currency: 'USD', suggested_price: 41.07, item_page: 'https://skinport.com/item/ak-47-redline-minimal-wear', min_price: 38.5, max_price: 60, mean_price: 42.1, median_price: 40.9, quantity: 12, created_at: 1535988253, updated_at: 1763900000 },
  { market_hash_name: 'AWP | Asiimov (Field-Tested)', currency: 'USD', suggested_price: null, min_price: 102.333, max_price: 130, mean_price: 110, median_price: null, quantity: 3, created_at: 1535988253, updated_at: 1763900000 },
  { market_hash_name: 'Sticker | Unpriced', currency: 'USD', suggested_price: null, min_price: null, max_price: null, mean_price: null, median_price: null, quantity: 0, created_at: 1535988253, updated_at: 1763900000 },
];
const RUST = [{ market_hash_name: 'Tempered AK47', currency: 'USD', suggested_price: 25.25, min_price: 20, median_price: 24 }];

let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const app = new URL(req.url!, 'http://x').searchParams.get('app_id');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(app === '730' ? CS2 : app === '252490' ? RUST : []));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/items`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('skinport price source', () => {
  it('price = suggested, else median, else min, in mills; unpriced items left out', () => {
    expect(skinportEntries(JSON.stringify(CS2), 'csgo')).toEqual([
      { game: 'csgo', market_hash_name: 'AK-47 | Redline (Minimal Wear)', price_mills: 41070 },
      { game: 'csgo', market_hash_name: 'AWP | Asiimov (Field-Tested)', price_mills: 102333 },
    ]);
  });
  it('refuses another currency, a missing name and non-arrays', () => {
    expect(() => skinportEntries(JSON.stringify([{ ...CS2[0], currency: 'EUR' }]), 'csgo')).toThrow(/currency "EUR"; ask for currency=USD/);
    expect(() => skinportEntries(JSON.stringify([{ currency: 'USD', suggested_price: 1 }]), 'csgo')).toThrow(/entry 0: market_hash_name missing/);
    expect(() => skinportEntries('{"items":[]}', 'csgo')).toThrow(/expected an array/);
    expect(() => skinportEntries('<html>', 'csgo')).toThrow(/not JSON/);
  });
  it('the game comes from app_id', () => {
    expect(skinportGame('https://api.skinport.com/v1/items?app_id=730&currency=USD')).toBe('csgo');
    expect(skinportGame('https://api.skinport.com/v1/items?app_id=252490&currency=USD')).toBe('rust');
    expect(() => skinportGame('https://api.skinport.com/v1/items?app_id=1')).toThrow(/app_id/);
  });
  it('a whitespace-separated list loads every game; PRICE_BOOK with it feeds the pricing service', async () => {
    const source = `skinport:${base}?app_id=730&currency=USD  skinport:${base}?app_id=252490&currency=USD`;
    expect(isSourceList(source)).toBe(true);
    expect(isSourceList('https://example.com/book.json')).toBe(false);
    expect((await loadSourceList(source)).map((e) => `${e.game}:${e.market_hash_name}`)).toEqual([
      'csgo:AK-47 | Redline (Minimal Wear)', 'csgo:AWP | Asiimov (Field-Tested)', 'rust:Tempered AK47',
    ]);
    await expect(loadSourceList('skinport:ftp://x')).rejects.toThrow(/expected skinport:<http\(s\) URL>/);
    const pricing = createPricingService({ config: loadConfig({ PRICE_BOOK: source }), log: pino({ level: 'silent' }) });
    await pricing.reload();
    expect(pricing.entry('csgo', 'AWP | Asiimov (Field-Tested)')?.price).toBe(102333);
    expect(pricing.entry('rust', 'Tempered AK47')?.price).toBe(25250);
    expect(pricing.entry('csgo', 'Sticker | Unpriced')).toBeUndefined();
  });
});
