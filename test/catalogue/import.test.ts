import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { importListings, parseCsvRecord, type ImportProgress } from '../../src/modules/catalogue/catalogue-import.js';
import { buildCs2InspectLink } from '../../src/domain/inspect-link.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
let dir: string;

beforeAll(async () => {
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0' });
  m = await gw.createMerchant({ name: 'Importer' });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'catalogue-import-'));
});
afterAll(async () => {
  await gw?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('importListings', () => {
  it('JSON lines in batches with progress, bad rows skipped with line numbers, 503 while importing', async () => {
    const link = buildCs2InspectLink({ defindex: 7, paintindex: 44, paintseed: 661, paintwear: 0.25, itemid: '123456789' });
    const lines: string[] = [];
    for (let i = 0; i < 2500; i++) {
      lines.push(JSON.stringify({ id: (0xa0000000 + i).toString(16), game: 'csgo', name: `Imported ${i % 50}`, price: (1000 + i) / 1000, image_url: 'https://img.example/x.png', ...(i === 0 ? { inspect_url: link, class_id: '310776', instance_id: 0 } : {}) }));
    }
    lines.splice(10, 0, '{not json');
    lines.splice(20, 0, JSON.stringify({ id: 'NOT-HEX', game: 'csgo', name: 'x', price: 1 }));
    lines.splice(30, 0, JSON.stringify({ id: 'abc', game: 'minecraft', name: 'x', price: 1 }));
    lines.splice(40, 0, JSON.stringify({ id: 'abd', game: 'csgo', name: 'x', price: 1.0001 }));
    lines.push('');
    const file = path.join(dir, 'listings.jsonl');
    await fs.writeFile(file, lines.join('\n'));

    const progress: ImportProgress[] = [];
    const during: Promise<number>[] = [];
    const result = await importListings(gw.ctx, file, (p) => {
      progress.push(p);
      if (progress.length === 1) during.push(gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=1').then((r) => r.status));
    });
    expect(result).toMatchObject({ format: 'jsonl', rows: 2504, written: 2500, skipped: 4 });
    expect(result.errors.map((e) => e.line)).toEqual([11, 21, 31, 41]);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)!.bytesRead).toBe(progress.at(-1)!.totalBytes);
    for (let i = 1; i < progress.length; i++) expect(progress[i].written).toBeGreaterThanOrEqual(progress[i - 1].written);
    expect(await during[0]).toBe(503);

    const all = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&extended=true')).body.data;
    expect(all.total).toBe(2500);
    const first = all.items.find((i: any) => i.id === (0xa0000000).toString(16));
    expect(first).toMatchObject({ price: 1, inspect_url: link, asset_id: '123456789', paint_seed: 661, class_id: 310776, instance_id: 0 });
    expect(first.float).toBeCloseTo(0.25, 6);

    // a second import of the same file changes nothing; a re-priced row updates
    const again = await importListings(gw.ctx, file);
    expect(again).toMatchObject({ written: 0, unchanged: 2500 });
    await fs.writeFile(file, JSON.stringify({ id: (0xa0000001).toString(16), game: 'csgo', name: 'Imported 1', price: 9.999 }) + '\n');
    expect((await importListings(gw.ctx, file)).written).toBe(1);
    const repriced = (await gw.merchant(m.api_key, 'GET', '/purchase/search?game=csgo&names=Imported%201')).body.data.items.find((i: any) => i.id === 'a0000001');
    expect(repriced.price).toBe(9.999);
  });

  it('CSV with a header, quoted fields (commas, quotes, line breaks)', async () => {
    const file = path.join(dir, 'listings.csv');
    await fs.writeFile(
      file,
      [
        'id,game,name,price,rarity,rarity_color,extra',
        'c5f0001,rust,"Door, ""Garage""",2.5,Rare,4b69ff,ignored',
        'c5f0002,rust,"Multi',
        'line",3,,,',
        'bad!,rust,x,1,,,',
      ].join('\r\n'),
    );
    const result = await importListings(gw.ctx, file);
    expect(result).toMatchObject({ format: 'csv', rows: 3, written: 2, skipped: 1 });
    expect(result.errors[0].line).toBe(5);
    const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=rust&full=true')).body.data.items;
    expect(items.find((i: any) => i.id === 'c5f0001')).toMatchObject({ name: 'Door, "Garage"', price: 2.5, rarity: 'Rare', rarity_color: '4b69ff' });
    expect(items.find((i: any) => i.id === 'c5f0002')).toMatchObject({ name: 'Multi\nline', price: 3 });
    expect(items.find((i: any) => i.id === 'c5f0002')).not.toHaveProperty('rarity');
  });

  it('a NUL character (U+0000) in a row skips that row (with its line number), never aborts the import', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 1500; i++) lines.push(JSON.stringify({ id: (0xd0000000 + i).toString(16), game: 'dota2', name: `Nul test ${i % 10}`, price: 2 }));
    lines[5] = JSON.stringify({ id: 'd00000ff0', game: 'dota2', name: 'Bad\u0000name', price: 2 });
    lines[1200] = JSON.stringify({ id: 'd00000ff1', game: 'dota2', name: 'Fine', price: 2, rarity: 'Rare\u0000' });
    const file = path.join(dir, 'nul.jsonl');
    await fs.writeFile(file, lines.join('\n'));
    const result = await importListings(gw.ctx, file);
    expect(result).toMatchObject({ rows: 1500, written: 1498, skipped: 2 });
    expect(result.errors).toEqual([
      { line: 6, message: expect.stringMatching(/name.*NUL/) },
      { line: 1201, message: expect.stringMatching(/rarity.*NUL/) },
    ]);
    const csv = path.join(dir, 'nul.csv');
    await fs.writeFile(csv, ['id,game,name,price', 'd1000001,dota2,Ok,1', 'd1000002,dota2,"Bad\u0000",1', 'd1000003,dota2,Ok,1'].join('\n'));
    const r2 = await importListings(gw.ctx, csv);
    expect(r2).toMatchObject({ rows: 3, written: 2, skipped: 1 });
    expect(r2.errors[0].line).toBe(3);
    const total = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=dota2&full=true')).body.data.total;
    expect(total).toBe(1500);
  });

  it('parseCsvRecord', () => {
    expect(parseCsvRecord('a,"b,c",""""')).toEqual({ fields: ['a', 'b,c', '"'], complete: true });
    expect(parseCsvRecord('a,"b').complete).toBe(false);
  });
});
