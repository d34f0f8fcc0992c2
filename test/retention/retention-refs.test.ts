// Retention of rows other records may name (issue 26): sold/delisted listings, superseded price
// bases, reconciliation runs, sandbox departed assets — each at its cutoff and one past it, and
// never what a money record or a credit's explanation names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { pruneAll, type RetentionConfig } from '../../src/modules/retention/retention-service.js';
import { freshDatabase } from '../helpers.js';

let pool: pg.Pool;
let db: Db;
let merchantId: number;

const config = (env: Record<string, string> = {}): RetentionConfig => {
  const c = loadConfig({ RETENTION_BATCH: '2', ...env });
  return { retention: c.retention, webhookRetentionDays: c.webhookRetentionDays, platform: c.platform };
};
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
const ids = async (sqlText: string) => (await q<{ id: string }>(sqlText)).map((r) => String(r.id)).sort();
/** Just inside the 90-day default cutoff (kept), and just past it (goes). */
const IN = `now() - interval '90 days' + interval '1 minute'`;
const PAST = `now() - interval '90 days' - interval '1 minute'`;

beforeAll(async () => {
  pool = createPool(await freshDatabase(), 4);
  db = createDb(pool);
  [{ id: merchantId }] = await q<{ id: number }>(
    `insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('m', 'h', 'p', 's') returning id::int`,
  );
});
afterAll(async () => db?.destroy());

async function deposit(status: string): Promise<number> {
  const [d] = await q<{ id: number }>(`insert into deposits (merchant_id, flow, status, game, amount, created_at, updated_at)
     values ($1, 'inventory', $2, 'csgo', 500, now() - interval '400 days', now() - interval '400 days') returning id::int`, [merchantId, status]);
  return d.id;
}

describe('retention of named rows', () => {
  it('listings: sold and delisted ones past the cutoff go, unless an open purchase names them; live and reserved stay', async () => {
    const add = (id: string, status: string, at: string) =>
      q(`insert into listings (id, game, name, base_price, source, status, created_at, updated_at) values ($1, 'csgo', 'AK', 100, 'seed', $2, ${at}, ${at})`, [id, status]);
    await add('a1', 'sold', PAST);
    await add('a2', 'sold', IN);
    await add('a3', 'delisted', PAST);
    await add('a4', 'delisted', IN);
    await add('a5', 'live', `now() - interval '400 days'`);
    await add('a6', 'reserved', `now() - interval '400 days'`);
    await add('a7', 'sold', PAST); // named by a purchase on hold: stays
    await add('a8', 'sold', PAST); // named by a completed purchase: goes (the purchase keeps its copy)
    for (const [listing, status] of [['a7', 'hold'], ['a8', 'completed']]) {
      await q(`insert into purchases (merchant_id, status, game, partner, token, platform_id, amount, listing_id, item_name)
               values ($1, $2, 'csgo', 12345678, 'abcdefgh', '1', 100, $3, 'AK')`, [merchantId, status, listing]);
    }
    const run = await pruneAll(db, config(), ['listings']);
    expect(run.deleted.listings).toBe(3);
    expect(await ids(`select id from listings where id like 'a%'`)).toEqual(['a2', 'a4', 'a5', 'a6', 'a7']);
    expect(await q(`select 1 from purchases where listing_id = 'a8'`)).toHaveLength(1);
  });

  it('price bases: superseded past the cutoff and named by nothing go; current, recently superseded and named ones stay', async () => {
    const basis = async (name: string, at: string) =>
      (await q<{ id: number }>(`insert into price_bases (game, market_hash_name, reference, readings, computed_at) values ('csgo', $1, 100, '[]', ${at}) returning id::int`, [name]))[0].id;
    const old = `now() - interval '400 days'`;
    const x1 = await basis('X', old);
    const x2 = await basis('X', PAST); // replaces x1 past the cutoff: x1 goes
    const x3 = await basis('X', IN); // replaces x2 inside it: x2 stays
    const y1 = await basis('Y', old); // a deposit item was credited at it
    const y2 = await basis('Y', old); // a stored quote resolves to it
    const y3 = await basis('Y', old); // named by nothing: goes
    const y4 = await basis('Y', old); // the current basis of Y: stays
    const d = await deposit('completed');
    await q(`insert into deposit_items (deposit_id, market_hash_name, price, price_basis_id) values ($1, 'Y', 100, $2)`, [d, y1]);
    const draft = await deposit('canceled');
    // A quote made when y2 was Y's newest: its version is y2 (or anything below y3).
    await q(`insert into deposit_quotes (deposit_id, packed, price_version) values ($1, decode(repeat('00', 24), 'hex'), $2)`, [draft, y2]);
    const run = await pruneAll(db, config(), ['price_bases']);
    expect(run.deleted.price_bases).toBe(2);
    expect(run.batchesOf.price_bases).toBeGreaterThan(2); // batches of 2, walked past batches that delete nothing
    expect(await ids(`select id from price_bases`)).toEqual([x2, x3, y1, y2, y4].map(String).sort());
  });

  it('reconciliation runs: started past the cutoff go with their discrepancies, but never the latest finished run', async () => {
    const run = async (started: string, finished: boolean) =>
      (await q<{ id: number }>(`insert into reconcile_runs (started_at, finished_at, since) values (${started}, ${finished ? started : 'null'}, ${started}) returning id::int`))[0].id;
    const a = await run(`now() - interval '400 days'`, true);
    const b = await run(PAST, true); // the latest finished run: kept, however old
    await run(PAST, false); // a run that never finished: goes
    const d = await run(IN, false);
    await q(`insert into reconcile_discrepancies (run_id, n, kind, detail, action) values ($1, 1, 'k', 'd', 'a')`, [a]);
    const r = await pruneAll(db, config(), ['reconcile_runs']);
    expect(r.deleted.reconcile_runs).toBe(2);
    expect(await ids(`select id from reconcile_runs`)).toEqual([b, d].map(String).sort());
    expect(await q(`select 1 from reconcile_discrepancies where run_id = $1`, [a])).toHaveLength(0);
  });

  it('sandbox departed assets: past SANDBOX_RETENTION_DAYS go, inside it stay', async () => {
    await q(`insert into sandbox_departed_assets (game, partner, asset_id, deposit_id, departed_at) values
             ('csgo', 1, 'past', 1, now() - interval '30 days' - interval '1 minute'), ('csgo', 1, 'in', 1, now() - interval '30 days' + interval '1 minute')`);
    const r = await pruneAll(db, config(), ['sandbox_departed_assets']);
    expect(r.deleted.sandbox_departed_assets).toBe(1);
    expect(await ids(`select asset_id as id from sandbox_departed_assets`)).toEqual(['in']);
  });

  it('every kind at 1 day over a year-old database: money records and what credits name all stay', async () => {
    const money = ['balances', 'ledger_entries', 'deposits', 'deposit_items', 'deposit_quotes', 'purchases', 'withdrawals', 'top_ups', 'purchase_counts'];
    const before = await Promise.all(money.map(async (t) => (await q<{ n: string }>(`select count(*) as n from ${t}`))[0].n));
    // What each stored quote prices each item at: the newest basis at or below its version.
    const resolved = () => q(`select q.deposit_id, b.game, b.market_hash_name, max(b.id) as basis from deposit_quotes q
                              join price_bases b on b.id <= q.price_version group by 1, 2, 3 order by 1, 2, 3`);
    const quoted = await resolved();
    expect(quoted.length).toBeGreaterThan(0);
    const days = Object.fromEntries(['LISTING_RETENTION_DAYS', 'PRICE_BASIS_RETENTION_DAYS', 'RECONCILE_RETENTION_DAYS', 'SANDBOX_RETENTION_DAYS',
      'STATUS_HISTORY_DAYS', 'DRAFT_RETENTION_DAYS', 'SESSION_RETENTION_DAYS', 'JOB_HISTORY_DAYS', 'WEBHOOK_RETENTION_DAYS'].map((k) => [k, '1']));
    await pruneAll(db, config(days));
    const after = await Promise.all(money.map(async (t) => (await q<{ n: string }>(`select count(*) as n from ${t}`))[0].n));
    expect(after).toEqual(before);
    // Every credited item's basis is still there to explain it, and every stored quote still resolves.
    expect(await q(`select i.id from deposit_items i left join price_bases b on b.id = i.price_basis_id where i.price_basis_id is not null and b.id is null`)).toEqual([]);
    expect(await resolved()).toEqual(quoted);
  });
});
