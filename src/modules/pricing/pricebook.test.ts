import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GAMES } from '../../domain/games.js';
import { PriceBook, PriceBookError, SANDBOX_PRICEBOOK_DIR, parseCsvRecords, parsePriceBook } from './pricebook.js';

const EXTERIORS = new Set(['Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred']);

function thrown(fn: () => unknown): PriceBookError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PriceBookError);
    return err as PriceBookError;
  }
  throw new Error('expected a PriceBookError');
}

describe('shipped sandbox price book', () => {
  let book: PriceBook;
  beforeAll(async () => {
    book = await PriceBook.load(SANDBOX_PRICEBOOK_DIR);
  });

  it('has enough entries per game', () => {
    expect(book.size('csgo')).toBeGreaterThanOrEqual(3000);
    for (const g of ['rust', 'dota2', 'tf2'] as const) expect(book.size(g)).toBeGreaterThanOrEqual(300);
    expect(book.games()).toEqual([...GAMES]);
  });

  it('has no duplicate names and only positive, well-formed prices', async () => {
    for (const game of GAMES) {
      const raw = JSON.parse(await readFile(join(SANDBOX_PRICEBOOK_DIR, `${game}.json`), 'utf8')) as Array<{ market_hash_name: string; price: number }>;
      expect(new Set(raw.map((e) => e.market_hash_name)).size).toBe(raw.length);
      expect(book.size(game)).toBe(raw.length);
      const badRaw = raw.filter((e) => !(e.price > 0) || Math.round(e.price * 100) / 100 !== e.price);
      expect(badRaw, `${game}: prices must be > 0 with at most 2 decimals`).toEqual([]);
      const badEntries = book
        .list(game)
        .filter(
          (e) =>
            e.game !== game ||
            !Number.isSafeInteger(e.price_mills) ||
            e.price_mills <= 0 ||
            (e.rarity_color !== undefined && !/^[0-9a-f]{6}$/.test(e.rarity_color)) ||
            (e.exterior !== undefined && !EXTERIORS.has(e.exterior)),
        );
      expect(badEntries, `${game}: malformed entries`).toEqual([]);
    }
  });

  it('carries real csgo names with exteriors, rarities and colours', () => {
    const redline = book.get('csgo', 'AK-47 | Redline (Field-Tested)');
    expect(redline).toMatchObject({ exterior: 'Field-Tested', rarity: 'Classified', rarity_color: 'd32ce6' });
    expect(book.get('csgo', 'StatTrak™ AWP | Asiimov (Field-Tested)')).toMatchObject({ rarity: 'Covert', rarity_color: 'eb4b4b' });
    expect(book.get('csgo', 'M4A4 | Howl (Minimal Wear)')).toMatchObject({ rarity: 'Contraband', rarity_color: 'e4ae39' });
    expect(book.get('csgo', 'Glock-18 | Fade (Factory New)')?.exterior).toBe('Factory New');
    expect(book.get('csgo', 'M4A4 | 龍王 (Dragon King) (Field-Tested)')).toBeDefined();
    // Redline has no Factory New; Asiimov AWPs start at Field-Tested.
    expect(book.get('csgo', 'AK-47 | Redline (Factory New)')).toBeUndefined();
    expect(book.get('csgo', 'AWP | Asiimov (Minimal Wear)')).toBeUndefined();

    const sticker = book.get('csgo', 'Sticker | Natus Vincere | Katowice 2014');
    expect(sticker).toMatchObject({ rarity: 'High Grade', rarity_color: '4b69ff' });
    expect(sticker?.exterior).toBeUndefined();
    const bravo = book.get('csgo', 'Operation Bravo Case');
    expect(bravo?.exterior).toBeUndefined();
    expect(bravo!.price_mills).toBeGreaterThanOrEqual(30);
    expect(bravo!.price_mills).toBeLessThanOrEqual(5000);
    expect(book.get('csgo', 'Recoil Case')).toBeDefined();
  });

  it('prices knives and resolves Doppler phases', () => {
    const doppler = book.get('csgo', '★ Karambit | Doppler (Factory New)');
    expect(doppler).toMatchObject({ exterior: 'Factory New', rarity: 'Covert' });
    expect(doppler!.price_mills).toBeGreaterThanOrEqual(100_000);
    expect(doppler!.price_mills).toBeLessThanOrEqual(2_000_000);
    const ruby = book.get('csgo', '★ Karambit | Doppler (Factory New)', 'Ruby');
    expect(ruby?.phase).toBe('Ruby');
    expect(ruby!.price_mills).toBeGreaterThan(doppler!.price_mills);
    expect(book.get('csgo', '★ StatTrak™ Karambit | Gamma Doppler (Minimal Wear)', 'Emerald')?.phase).toBe('Emerald');
    // Unknown phase falls back to the plain listing.
    expect(book.get('csgo', '★ Karambit | Doppler (Factory New)', 'Phase 9')).toBe(doppler);
    expect(book.get('csgo', '★ Karambit')).toBeDefined();
  });

  it('carries real rust, dota2 and tf2 names', () => {
    for (const name of ['Tempered AK47', 'Alien Red', 'Big Grin', 'Punishment Mask', 'It is Wednesday, my dudes']) {
      expect(book.get('rust', name), name).toBeDefined();
    }
    expect(book.get('dota2', 'Exalted Manifold Paradox')).toMatchObject({ rarity: 'Arcana', rarity_color: 'ade55c' });
    expect(book.get('dota2', 'Genuine Weather Rain')).toBeDefined();
    expect(book.get('dota2', 'God’s Mercy')).toBeDefined();
    const key = book.get('tf2', 'Mann Co. Supply Crate Key');
    expect(key!.price_mills).toBeGreaterThan(2000);
    expect(key!.price_mills).toBeLessThan(3000);
    expect(book.get('tf2', 'Strange Rocket Launcher')).toMatchObject({ rarity: 'Strange', rarity_color: 'cf6a32' });
    expect(book.get('tf2', 'Unusual Team Captain')).toMatchObject({ rarity: 'Unusual', rarity_color: '8650ac' });
    expect(book.get('tf2', 'Taunt: Rock, Paper, Scissors')).toBeDefined();
    // Names are per game.
    expect(book.get('csgo', 'Tempered AK47')).toBeUndefined();
  });
});

describe('parsePriceBook: CSV', () => {
  it('handles RFC 4180 quoting, commas, newlines, CRLF, BOM and unicode', () => {
    const csv =
      '\uFEFFgame,market_hash_name,price,exterior,rarity,rarity_color,phase\r\n' +
      'csgo,"Sticker | Team, ""x""",1.5,,High Grade,#4B69FF,\r\n' +
      'csgo,★ StatTrak™ Karambit | Doppler (Factory New) - Ruby,4200.125,Factory New,Covert,eb4b4b,Ruby\r\n' +
      'csgo,M4A4 | 龍王 (Dragon King) (Field-Tested),8.48,Field-Tested,Classified,d32ce6,\r\n' +
      'dota2,God’s Mercy,12,,Immortal,e4ae39,\r\n' +
      'tf2,"Taunt: Rock, Paper, Scissors",1.4,,,,\r\n' +
      'rust,"Multi\nline, name",0.1,,,,\r\n' +
      '\r\n' +
      ',Tempered AK47,45,,,,';
    const entries = parsePriceBook(csv, 'csv', 'rust');
    expect(entries).toHaveLength(7);
    expect(entries[0]).toEqual({
      game: 'csgo',
      market_hash_name: 'Sticker | Team, "x"',
      price_mills: 1500,
      rarity: 'High Grade',
      rarity_color: '4b69ff',
    });
    expect(entries[1]).toMatchObject({ market_hash_name: '★ StatTrak™ Karambit | Doppler (Factory New) - Ruby', price_mills: 4_200_125, phase: 'Ruby' });
    expect(entries[2]!.market_hash_name).toBe('M4A4 | 龍王 (Dragon King) (Field-Tested)');
    expect(entries[3]).toMatchObject({ game: 'dota2', market_hash_name: 'God’s Mercy', price_mills: 12_000 });
    expect(entries[4]).toMatchObject({ game: 'tf2', market_hash_name: 'Taunt: Rock, Paper, Scissors', price_mills: 1400 });
    expect(entries[5]).toMatchObject({ game: 'rust', market_hash_name: 'Multi\nline, name', price_mills: 100 });
    expect(entries[6]).toMatchObject({ game: 'rust', market_hash_name: 'Tempered AK47', price_mills: 45_000 });
    expect(entries[6]).not.toHaveProperty('exterior');

    const book = PriceBook.fromText(csv, 'csv', 'rust');
    expect(book.get('csgo', '★ StatTrak™ Karambit | Doppler (Factory New)', 'Ruby')?.price_mills).toBe(4_200_125);
  });

  it('accepts columns in any order, no game column and unknown columns', () => {
    const entries = parsePriceBook('price,note,market_hash_name\n0.03,cheap,Recoil Case\n', 'csv', 'csgo');
    expect(entries).toEqual([{ game: 'csgo', market_hash_name: 'Recoil Case', price_mills: 30 }]);
  });

  it('reports every bad row with its line number', () => {
    const csv = [
      'market_hash_name,price,rarity_color', // line 1
      'Good One,1.00,eb4b4b', // 2
      'Bad Price,abc,', // 3
      '"Multi', // 4
      'line",-2,', // 5 (record starts on 4)
      'Short Row', // 6
      'Bad Colour,1,#12345', // 7
      ',1,', // 8: no name
      'Good One,2,', // 9: duplicate
    ].join('\n');
    const err = thrown(() => parsePriceBook(csv, 'csv', 'csgo'));
    expect(err.issues.map((i) => i.line)).toEqual([3, 4, 6, 7, 8, 9]);
    expect(err.message).toMatch(/line 3.*price is not a number/);
    expect(err.message).toMatch(/line 4.*must not be negative/);
    expect(err.message).toMatch(/line 6.*expected 3 fields, got 1/);
    expect(err.message).toMatch(/line 7.*rarity_color/);
    expect(err.message).toMatch(/line 9.*duplicate market_hash_name "Good One".*first on line 2/);
  });

  it('rejects unterminated quotes, missing columns and rows without a game', () => {
    expect(thrown(() => parsePriceBook('market_hash_name,price\n"Open quote,1\n', 'csv', 'csgo')).message).toMatch(/line 2: unterminated quoted field/);
    expect(thrown(() => parsePriceBook('name,price\nx,1\n', 'csv', 'csgo')).message).toMatch(/no market_hash_name column/);
    expect(thrown(() => parsePriceBook('market_hash_name,price\nx,1\n', 'csv')).message).toMatch(/line 2.*no game/);
    expect(thrown(() => parsePriceBook('game,market_hash_name,price\nfortnite,x,1\n', 'csv')).message).toMatch(/line 2.*unknown game "fortnite"/);
  });

  it('splits records exactly per RFC 4180', () => {
    expect(parseCsvRecords('a,"b,c",""\r\n"d""e",,f')).toEqual([
      { line: 1, fields: ['a', 'b,c', ''] },
      { line: 2, fields: ['d"e', '', 'f'] },
    ]);
  });
});

describe('parsePriceBook: JSON', () => {
  it('parses entries with their own game and converts prices to mills', () => {
    const json = JSON.stringify([
      { market_hash_name: 'AK-47 | Redline (Field-Tested)', price: 30.95, exterior: 'Field-Tested', rarity: 'Classified', rarity_color: 'D32CE6' },
      { game: 'tf2', market_hash_name: 'Mann Co. Supply Crate Key', price: 2.47 },
      { market_hash_name: 'Free Thing', price: 0 },
      { market_hash_name: 'Tiny', price: 0.0126 },
    ]);
    expect(parsePriceBook(json, 'json', 'csgo')).toEqual([
      { game: 'csgo', market_hash_name: 'AK-47 | Redline (Field-Tested)', price_mills: 30_950, exterior: 'Field-Tested', rarity: 'Classified', rarity_color: 'd32ce6' },
      { game: 'tf2', market_hash_name: 'Mann Co. Supply Crate Key', price_mills: 2470 },
      { game: 'csgo', market_hash_name: 'Free Thing', price_mills: 0 },
      { game: 'csgo', market_hash_name: 'Tiny', price_mills: 13 },
    ]);
  });

  it('rejects bad prices with index and line', () => {
    const json = [
      '[',
      '  {"market_hash_name": "Ok", "price": 1},', // line 2, index 0
      '  {"market_hash_name": "Negative", "price": -1},', // line 3, index 1
      '  {',
      '    "market_hash_name": "Text",', // element starts on line 4, index 2
      '    "price": "cheap"',
      '  },',
      '  {"market_hash_name": "Missing"},', // line 8, index 3
      '  {"market_hash_name": "Huge", "price": 1e300},', // line 9, index 4
      '  "not an object"', // line 10, index 5
      ']',
    ].join('\n');
    const err = thrown(() => parsePriceBook(json, 'json', 'csgo'));
    expect(err.issues.map((i) => [i.line, i.index])).toEqual([
      [3, 1],
      [4, 2],
      [8, 3],
      [9, 4],
      [10, 5],
    ]);
    expect(err.message).toMatch(/line 3, entry 1: "Negative": price must not be negative/);
    expect(err.message).toMatch(/line 4, entry 2: "Text": price is not a number/);
    expect(err.message).toMatch(/line 8, entry 3: "Missing": price is missing/);
    expect(err.message).toMatch(/line 9, entry 4: "Huge": price is too large/);
    expect(err.message).toMatch(/line 10, entry 5: entry must be an object/);
  });

  it('rejects non-arrays, invalid JSON, unknown games and duplicates', () => {
    expect(thrown(() => parsePriceBook('{"a":1}', 'json', 'csgo')).message).toMatch(/must be an array/);
    expect(thrown(() => parsePriceBook('[{', 'json', 'csgo')).message).toMatch(/not valid JSON/);
    expect(thrown(() => parsePriceBook('[{"game":"wow","market_hash_name":"x","price":1}]', 'json')).message).toMatch(/unknown game/);
    const dup = '[{"market_hash_name":"x","price":1},\n{"market_hash_name":"x","price":2}]';
    expect(thrown(() => parsePriceBook(dup, 'json', 'rust')).message).toMatch(/line 2, entry 1: duplicate market_hash_name "x" for rust \(first on line 1\)/);
    // Same name in two games is fine.
    expect(parsePriceBook('[{"game":"rust","market_hash_name":"x","price":1},{"game":"tf2","market_hash_name":"x","price":1}]', 'json')).toHaveLength(2);
  });
});

describe('PriceBook.load', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pricebook-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a directory of per-game files, defaulting rows to the file game', async () => {
    const sub = join(dir, 'book');
    await rm(sub, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(sub));
    await writeFile(join(sub, 'rust.csv'), 'market_hash_name,price\nTempered AK47,45.10\n');
    await writeFile(join(sub, 'tf2.json'), '[{"market_hash_name":"Mann Co. Supply Crate Key","price":2.45}]');
    await writeFile(join(sub, 'README.txt'), 'ignored');
    const book = await PriceBook.load(sub);
    expect(book.get('rust', 'Tempered AK47')?.price_mills).toBe(45_100);
    expect(book.get('tf2', 'Mann Co. Supply Crate Key')?.price_mills).toBe(2450);
    expect(book.size('csgo')).toBe(0);
    expect(book.games()).toEqual(['rust', 'tf2']);
  });

  it('loads a single file and names the file in errors', async () => {
    const file = join(dir, 'dota2.csv');
    await writeFile(file, 'market_hash_name,price\nGenuine Weather Rain,0.57\n');
    const book = await PriceBook.load(file);
    expect(book.get('dota2', 'Genuine Weather Rain')?.price_mills).toBe(570);

    const bad = join(dir, 'mixed.json');
    await writeFile(bad, '[\n{"market_hash_name":"no game","price":1}\n]');
    await expect(PriceBook.load(bad)).rejects.toThrow(/mixed\.json: .*line 2, entry 0: no game/s);
    await expect(PriceBook.load(join(dir, 'nope.csv'))).rejects.toThrow(/not found/);
    const empty = join(dir, 'empty-dir');
    await import('node:fs/promises').then((fs) => fs.mkdir(empty, { recursive: true }));
    await expect(PriceBook.load(empty)).rejects.toThrow(/no price book files/);
  });

  describe('from an http URL', () => {
    let server: Server;
    let base: string;
    const csv = 'game,market_hash_name,price,exterior,rarity,rarity_color\r\ncsgo,"Sticker | Team, ""x""",1.5,,High Grade,4b69ff\r\ncsgo,AK-47 | Redline (Field-Tested),30.95,Field-Tested,Classified,d32ce6\r\n';
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/prices') {
          res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
          res.end(csv);
        } else if (req.url === '/books/tf2.csv') {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.end('market_hash_name,price\nStrange Rocket Launcher,1.56\n');
        } else if (req.url === '/bad.json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('[{"game":"csgo","market_hash_name":"x","price":"NaN"}]');
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('takes the format from Content-Type', async () => {
      const book = await PriceBook.load(`${base}/prices`);
      expect(book.size('csgo')).toBe(2);
      expect(book.get('csgo', 'Sticker | Team, "x"')?.price_mills).toBe(1500);
      expect(book.get('csgo', 'AK-47 | Redline (Field-Tested)')).toMatchObject({ price_mills: 30_950, rarity_color: 'd32ce6' });
    });

    it('falls back to the extension and takes the game from the file name', async () => {
      const book = await PriceBook.load(`${base}/books/tf2.csv`);
      expect(book.get('tf2', 'Strange Rocket Launcher')?.price_mills).toBe(1560);
    });

    it('reports HTTP errors and bad rows with the URL', async () => {
      await expect(PriceBook.load(`${base}/missing.csv`)).rejects.toThrow(/HTTP 404/);
      await expect(PriceBook.load(`${base}/bad.json`)).rejects.toThrow(/bad\.json: .*entry 0: "x": price is not a number/s);
    });
  });
});
