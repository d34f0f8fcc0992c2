// The own book read in a worker thread (sources/book-off-thread.ts): the same entries as the event
// loop's parse, the book's own errors, and the previous prices kept when a reload fails.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { GAMES } from '../../src/domain/games.js';
import { PriceBook, PriceBookError, type PriceBookEntry } from '../../src/modules/pricing/pricebook.js';
import { loadBook, loadBookOffThread } from '../../src/modules/pricing/sources/book-off-thread.js';
import { createPricingService } from '../../src/modules/pricing/pricing-service.js';
import type { ItemPrice } from '../../src/modules/pricing/price-engine.js';

let dir = '';
const CSGO = [
  { market_hash_name: 'AK-47 | Redline (Field-Tested)', price: 12.345, exterior: 'Field-Tested', rarity: 'Classified', rarity_color: 'd32ce6' },
  { market_hash_name: '★ Karambit | Doppler (Factory New)', price: 900 },
  { market_hash_name: '★ Karambit | Doppler (Factory New) - Ruby', price: 4200.5, phase: 'Ruby' },
  { market_hash_name: 'Sticker | Free', price: 0 },
];
const RUST_CSV = 'market_hash_name,price,rarity\n"Tempered AK47, ""red""",25.25,Rare\nWood Storage Box,0.07,\n';

async function collect(source: string, chunk?: number): Promise<PriceBookEntry[]> {
  const out: PriceBookEntry[] = [];
  const total = await loadBookOffThread(source, (es) => void out.push(...es), chunk);
  expect(total).toBe(out.length);
  return out;
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'book-off-thread-'));
  await fs.mkdir(path.join(dir, 'book'));
  await fs.writeFile(path.join(dir, 'book', 'csgo.json'), JSON.stringify(CSGO));
  await fs.writeFile(path.join(dir, 'book', 'rust.csv'), RUST_CSV);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('the own book parsed in a worker thread', () => {
  it('hands over the same entries as the event loop parse, in slices (a directory of JSON and CSV)', async () => {
    const book = path.join(dir, 'book');
    const expected = (await PriceBook.load(book)).list.bind(await PriceBook.load(book));
    const want = GAMES.flatMap((g) => expected(g));
    expect(want.length).toBe(6);
    expect(await collect(book, 2)).toEqual(want); // slices of 2: three and more messages
    expect(await collect(book)).toEqual(want);
  });

  it('a bad book is the same PriceBookError, with its rows, as on the event loop', async () => {
    const bad = path.join(dir, 'bad.csv');
    await fs.writeFile(bad, 'game,market_hash_name,price\ncsgo,A,1.00\ncsgo,B,-2\ncsgo,A,3\n');
    const main = await PriceBook.load(bad).catch((e: unknown) => e as PriceBookError);
    const off = await collect(bad).catch((e: unknown) => e as PriceBookError);
    expect(off).toBeInstanceOf(PriceBookError);
    expect((off as PriceBookError).message).toBe((main as PriceBookError).message);
    expect((off as PriceBookError).issues).toEqual((main as PriceBookError).issues);
    await expect(collect(path.join(dir, 'missing.json'))).rejects.toThrow(/price book source not found: .*missing\.json/);
  });

  it('a small book is parsed on the event loop, with the same entries', async () => {
    const book = path.join(dir, 'book');
    const out: PriceBookEntry[] = [];
    expect(await loadBook(book, (es) => void out.push(...es), { chunk: 2 })).toBe(6);
    expect(out).toEqual(await collect(book));
  });

  it('a reload that fails (in the worker) keeps the previous prices (and says why)', async () => {
    const file = path.join(dir, 'csgo.json');
    await fs.writeFile(file, JSON.stringify(CSGO));
    const pricing = createPricingService({ config: loadConfig({ PRICE_BOOK: file }), log: pino({ level: 'silent' }), bookOffThreadBytes: 0 });
    await pricing.reload();
    expect(pricing.entry('csgo', 'AK-47 | Redline (Field-Tested)')).toMatchObject({ price: 12345, exterior: 'Field-Tested', rarity_color: 'd32ce6' });
    expect(pricing.itemEntry('csgo', { marketHashName: '★ Karambit | Doppler (Factory New)', phase: 'Ruby' })?.price).toBe(4200500);
    expect(pricing.sandboxItems('csgo')).toContainEqual({ name: '★ Karambit | Doppler (Factory New)', phase: 'Ruby' });
    await fs.writeFile(file, '[{"market_hash_name":"AK-47 | Redline (Field-Tested)","price":"twelve"}]');
    await expect(pricing.reload()).rejects.toThrow(/csgo\.json: .*1 bad row/);
    expect(pricing.entry('csgo', 'AK-47 | Redline (Field-Tested)')?.price).toBe(12345);
    await fs.writeFile(file, '[{"market_hash_name":"AK-47 | Redline (Field-Tested)","price":13}]');
    await pricing.reload();
    expect(pricing.entry('csgo', 'AK-47 | Redline (Field-Tested)')?.price).toBe(13000);
  });
  it('a reload of a changed book: card fields, sandbox names and per-phase pricing follow the new book (an unchanged name keeps its object)', async () => {
    await fs.mkdir(path.join(dir, 'changing'));
    const file = path.join(dir, 'changing', 'csgo.json'); // a directory: the game from the file's name
    await fs.writeFile(file, JSON.stringify(CSGO));
    const pricing = createPricingService({ config: loadConfig({ PRICE_BOOK: path.dirname(file) }), log: pino({ level: 'silent' }), bookOffThreadBytes: 0 });
    await pricing.reload();
    const first = pricing.sandboxItems('csgo');
    const karambit = '★ Karambit | Doppler (Factory New)';
    const cardOf = (name: string) => (pricing.pricedItem('csgo', name) as ItemPrice | undefined)?.meta; // the engine's item, typed narrowly for get-prices
    const [akCard, karambitCard] = [cardOf('AK-47 | Redline (Field-Tested)'), cardOf(karambit)];
    await fs.writeFile(file, JSON.stringify([
      { market_hash_name: 'AK-47 | Redline (Field-Tested)', price: 12.345, exterior: 'Field-Tested', rarity: 'Covert', rarity_color: 'eb4b4b' },
      { market_hash_name: `${karambit} - Sapphire`, price: 5000, phase: 'Sapphire' },
      { market_hash_name: karambit, price: 900 },
    ]));
    await pricing.reload();
    expect(pricing.entry('csgo', 'AK-47 | Redline (Field-Tested)')).toMatchObject({ exterior: 'Field-Tested', rarity: 'Covert', rarity_color: 'eb4b4b' });
    expect(pricing.sandboxItems('csgo')).toEqual([{ name: 'AK-47 | Redline (Field-Tested)' }, { name: karambit, phase: 'Sapphire' }, { name: karambit }]);
    expect(pricing.sandboxItems('csgo')[0]).toBe(first[0]);
    expect(cardOf(karambit)).toBe(karambitCard); // unchanged: the same object
    expect(cardOf('AK-47 | Redline (Field-Tested)')).not.toBe(akCard);
    expect(pricing.itemEntry('csgo', { marketHashName: karambit, phase: 'Sapphire' })?.price).toBe(5_000_000);
    expect(pricing.itemEntry('csgo', { marketHashName: karambit, phase: 'Phase 2' })).toBeUndefined(); // priced per phase, and not this one
    await fs.writeFile(file, JSON.stringify([{ market_hash_name: 'AK-47 | Redline (Field-Tested)', price: 12.345 }, { market_hash_name: karambit, price: 900 }]));
    await pricing.reload();
    expect(pricing.itemEntry('csgo', { marketHashName: karambit, phase: 'Phase 2' })?.price).toBe(900_000); // no longer priced per phase
    expect(pricing.entry('csgo', 'AK-47 | Redline (Field-Tested)')?.rarity).toBeUndefined();
    expect(pricing.sandboxItems('csgo')).toEqual([{ name: 'AK-47 | Redline (Field-Tested)' }, { name: karambit }]);
  });
});
