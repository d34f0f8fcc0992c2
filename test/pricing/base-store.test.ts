// Prices answer before their bases are written (base-store.ts): the rows follow in the background,
// a credit's rows are written first, a clean stop writes the rest, and after a restart the bases a
// quote was made at are still the ones it names.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { createPricingService } from '../../src/modules/pricing/pricing-service.js';
import * as repo from '../../src/modules/pricing/price-repo.js';
import { eventually, freshDatabase, startTestGateway } from '../helpers.js';

let dir = '';
let url = '';
let db: Db;
const NAMES = ['AK-47 | Redline (Field-Tested)', 'AWP | Asiimov (Field-Tested)', 'M4A1-S | Printstream (Minimal Wear)'];
const rows = async () => Number((await db.selectFrom('price_bases').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'base-store-'));
  await fs.writeFile(path.join(dir, 'csgo.json'), JSON.stringify(NAMES.map((n, i) => ({ market_hash_name: n, price: 10 + i }))));
  url = await freshDatabase();
  db = createDb(createPool(url, 4));
});
afterAll(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

const service = () => createPricingService({ config: loadConfig({ PRICE_BOOK: path.join(dir, 'csgo.json'), DATABASE_URL: url }), log: pino({ level: 'silent' }), db });

describe('price bases written in the background', () => {
  it('prices answer while their rows cannot be written yet; a credit waits for its own rows; a restart keeps them', async () => {
    // Another session holds the table: every insert waits (ids still come from the sequence).
    const lock = new pg.Client({ connectionString: url });
    await lock.connect();
    await lock.query('begin');
    await lock.query('lock table price_bases in exclusive mode');
    const pricing = service();
    await pricing.reload(); // ready: it did not wait for the rows
    const b = pricing.basis('csgo', NAMES[1]!)!;
    expect(b.deposit_price).toBe(11000);
    expect(b.basis_id).toBeGreaterThan(0);
    expect(pricing.refreshState()).toMatchObject({ running: true, basesPending: 3 });
    const version = pricing.version();
    expect(version).toBeGreaterThanOrEqual(b.basis_id!);

    // A credit naming the bases (a hash-name commit looks them up) waits for their rows.
    let looked = false;
    const lookup = pricing.basesAt('csgo', NAMES, version).then((m) => ((looked = true), m));
    await new Promise((r) => setTimeout(r, 300));
    expect(looked).toBe(false);
    await lock.query('rollback');
    await lock.end();
    const ids = await lookup;
    expect(ids.get(NAMES[1]!)).toBe(b.basis_id);
    expect(ids.size).toBe(3);
    const row = await repo.findBasis(db, b.basis_id!);
    expect(row?.market_hash_name).toBe(NAMES[1]);
    expect(Number(row?.deposit_price)).toBe(11000);
    await pricing.stop();
    expect(pricing.refreshState()).toMatchObject({ running: false, basesPending: 0 });
    expect(await rows()).toBe(3);

    // Restart: new bases (new ids) for the same prices; the quote made before still finds its own.
    const again = service();
    await again.reload();
    expect(again.basis('csgo', NAMES[1]!)!.basis_id).toBeGreaterThan(version);
    const after = await again.basesAt('csgo', NAMES, version);
    expect(after.get(NAMES[1]!)).toBe(b.basis_id);
    expect(await again.basesAt('csgo', NAMES, again.version())).toEqual(new Map(NAMES.map((n) => [n, again.basis('csgo', n)!.basis_id!])));
    await again.stop();
    expect(await rows()).toBe(6);
  });

  it('a clean stop writes every basis left (nothing is lost between publish and write)', async () => {
    const before = await rows();
    await fs.writeFile(path.join(dir, 'csgo.json'), JSON.stringify(NAMES.map((n, i) => ({ market_hash_name: n, price: 20 + i }))));
    const pricing = service();
    await pricing.reload();
    const ids = NAMES.map((n) => pricing.basis('csgo', n)!.basis_id!);
    await pricing.stop();
    for (const id of ids) expect(await repo.findBasis(db, id)).toBeDefined();
    expect(await rows()).toBe(before + 3);
  });
});

describe('the admin refresh', () => {
  it('POST starts a refresh (202) and GET follows it until nothing polls or waits; both need the admin token', async () => {
    const gw = await startTestGateway();
    try {
      const started = await gw.admin('POST', '/prices/refresh');
      expect(started.status).toBe(202);
      expect(started.body.data).toMatchObject({ running: expect.any(Boolean), polling: expect.any(Array), bases_pending: expect.any(Number) });
      const done = await eventually(async () => {
        const r = await gw.admin('GET', '/prices/refresh');
        return r.body.data.running === false && r.body.data;
      }, 60_000);
      expect(done).toEqual({ running: false, polling: [], bases_pending: 0 });
      expect((await gw.app.inject({ method: 'GET', url: '/api/admin/prices/refresh' })).statusCode).toBe(401);
    } finally {
      await gw.stop();
    }
  });
});
