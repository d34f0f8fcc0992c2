// PLATFORM=steam never prices a real item from the sandbox book: the start is refused without a
// price source of the operator's, and with PRICE_BOOK naming the shipped sandbox book; the steam
// platform without PRICE_BOOK has no book at all (its prices are the market sources' alone). The
// sandbox platform is unchanged: no setting at all still starts it with its shipped book.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SANDBOX_PRICEBOOK_DIR, steamPricingProblem } from '../../src/config.js';
import { createPricingService } from '../../src/modules/pricing/pricing-service.js';

const STEAM = { PLATFORM: 'steam', BOT_SECRETS_KEY: 'ab'.repeat(32) };
const SKINPORT = 'https://api.skinport.com/v1/items?app_id=730&currency=USD';
/** Every setting the refusal must name, so that the operator knows what to set. */
const NAMED = ['PRICE_BOOK', 'PRICE_SKINPORT', 'PRICE_CSFLOAT_API_KEY', 'PRICE_STEAM_MARKET_URL', 'PRICE_MIN_SOURCES'];

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

let tmp: string;
let server: http.Server;
let feed: string;
/** One CS2 item the stand-in Skinport lists; the sandbox book prices thousands of others. */
const LISTED = 'AK-47 | Redline (Field-Tested)';
const UNLISTED = 'AWP | Asiimov (Field-Tested)';

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-price-settings-'));
  server = http.createServer((_req, res) => {
    const now = Math.floor(Date.now() / 1000);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ market_hash_name: LISTED, currency: 'USD', suggested_price: 12.5, quantity: 40, updated_at: now }]));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  feed = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/items?app_id=730&currency=USD`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('PLATFORM=steam and its price sources', () => {
  it('no price source set: refused, the message naming the settings that price items (a Steam guard alone is no source)', () => {
    for (const env of [STEAM, { ...STEAM, PRICE_STEAM_MARKET_URL: 'https://steamcommunity.com/market/priceoverview/' }]) {
      const message = refusal(env);
      expect(message).toMatch(/PLATFORM=steam needs a price source/);
      for (const name of NAMED) expect(message).toContain(name);
    }
  });

  it('accepted with any one source of the operator: own book, Skinport or CSFloat', async () => {
    const book = path.join(tmp, 'book.json');
    await fs.writeFile(book, JSON.stringify([{ market_hash_name: LISTED, price: 12.5 }]));
    expect(loadConfig({ ...STEAM, PRICE_BOOK: book }).priceBookSource).toBe(book);
    expect(loadConfig({ ...STEAM, PRICE_BOOK: `skinport:${SKINPORT}` }).priceBookSource).toBe(`skinport:${SKINPORT}`);
    expect(loadConfig({ ...STEAM, PRICE_SKINPORT: SKINPORT }).pricing.skinportUrls).toEqual([SKINPORT]);
    expect(loadConfig({ ...STEAM, PRICE_CSFLOAT_API_KEY: 'k' }).pricing.csfloatApiKey).toBe('k');
  });

  it('PRICE_BOOK naming the shipped sandbox book is refused however it is written (absolute, relative, one file of it, a symlink)', async () => {
    const link = path.join(tmp, 'looks-like-mine');
    await fs.symlink(SANDBOX_PRICEBOOK_DIR, link);
    const rel = path.relative(process.cwd(), SANDBOX_PRICEBOOK_DIR);
    for (const p of [SANDBOX_PRICEBOOK_DIR, rel, `./${rel}/`, path.join(rel, 'csgo.json'), link, path.join(link, 'rust.json')]) {
      const message = refusal({ ...STEAM, PRICE_BOOK: p, PRICE_SKINPORT: SKINPORT });
      expect(message, p).toMatch(/PRICE_BOOK names the sandbox book shipped in data\/pricebook\//);
      for (const name of NAMED) expect(message).toContain(name);
    }
  });

  it('PRICE_MIN_SOURCES above the number of sources set is refused (no item could be accepted); met, accepted', () => {
    expect(refusal({ ...STEAM, PRICE_SKINPORT: SKINPORT, PRICE_MIN_SOURCES: '2' })).toMatch(/PRICE_MIN_SOURCES=2 but only 1 price source is set \(PRICE_SKINPORT\)/);
    expect(loadConfig({ ...STEAM, PRICE_SKINPORT: SKINPORT, PRICE_CSFLOAT_API_KEY: 'k', PRICE_MIN_SOURCES: '2' }).pricing.minSources).toBe(2);
  });

  it('the doctor reads the configuration without the refusal and reports it itself', () => {
    const c = loadConfig(STEAM, { priceSources: false });
    expect(c.platform).toBe('steam');
    expect(steamPricingProblem(c)).toMatch(/needs a price source/);
  });

  it('the sandbox platform is unchanged: no setting at all takes the shipped book, and PRICE_BOOK may name it', () => {
    const c = loadConfig({});
    expect(c.platform).toBe('sandbox');
    expect(c.priceBookSource).toBeUndefined();
    expect(steamPricingProblem(c)).toBeUndefined();
    expect(loadConfig({ PRICE_BOOK: SANDBOX_PRICEBOOK_DIR }).priceBookSource).toBe(SANDBOX_PRICEBOOK_DIR);
  });

  it('steam with Skinport and no PRICE_BOOK: no book source, so an item only the sandbox book prices stays unpriced', async () => {
    const log = pino({ level: 'silent' });
    const pricing = createPricingService({ config: loadConfig({ ...STEAM, PRICE_SKINPORT: feed }), log });
    try {
      await pricing.reload();
      expect(pricing.sources().map((s) => s.id)).toEqual(['skinport']);
      expect(pricing.entry('csgo', LISTED)?.price).toBe(12_500);
      expect(pricing.entry('csgo', UNLISTED)).toBeUndefined();
      expect(pricing.quote({ deposit_multiplier: '1' } as never, 'csgo', UNLISTED)).toBeUndefined();
    } finally {
      await pricing.stop();
    }
    // The sandbox platform still prices it from its shipped book.
    const sandbox = createPricingService({ config: loadConfig({}), log });
    try {
      await sandbox.reload();
      expect(sandbox.entry('csgo', UNLISTED)?.price).toBeGreaterThan(0);
    } finally {
      await sandbox.stop();
    }
  });

  it('npm start with PLATFORM=steam and no price source exits at once with the refusal on one line', async () => {
    const child = spawn(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'src/main.ts'], {
      env: { PATH: process.env.PATH ?? '', ...STEAM, DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(err).toMatch(/^configuration error: PLATFORM=steam needs a price source/m);
    for (const name of NAMED) expect(err).toContain(name);
    await expect(fs.access(path.join(tmp, 'data', 'pg'))).rejects.toThrow(); // refused before any database was made
  });
});
