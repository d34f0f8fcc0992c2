// The statements of a deposit's acceptance that run as named prepared statements (db/prepared.ts),
// on a grown table whose statistics were taken when it was small: a connection keeps their generic
// plan after five runs, whatever the ids, so that plan must find its rows by index. Counted in
// buffers, not time (test/plan-buffers.ts): a scan of the grown table reads thousands.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers.js';
import { genericBuffers, mostBuffers } from '../plan-buffers.js';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { DEPOSIT_COLUMNS, depositsByIdsStatement, findDepositById } from '../../src/modules/deposits/deposit-repo.js';
import { receiveDepositTradesStatement } from '../../src/platform/sandbox/bot-holdings.js';
import { sql } from 'kysely';

const GROWN = 60_000; // deposits and offers after the statistics were taken (before: 20)

let url: string;
let pool: pg.Pool;
let db: Db;

beforeAll(async () => {
  url = await freshDatabase();
  pool = createPool(url, 2);
  db = createDb(pool);
  const m = await pool.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('plan', 'h', 'sk_', 's') returning id`);
  const grow = (from: number, n: number) =>
    pool.query(
      `with d as (
         insert into deposits (merchant_id, flow, game, partner) select $1, 'inventory', 'csgo', g from generate_series($2::int, $2::int + $3 - 1) g returning id, partner)
       insert into sandbox_deposit_offers (trade_offer_id, deposit_id, bot_id, expires_at, game, partner, asset_ids)
       select 'plan-' || d.id, d.id, 1, now() + interval '1 hour', 'csgo', d.partner, array['a' || d.id] from d`,
      [m.rows[0].id, from, n],
    );
  await grow(1, 20);
  await pool.query('analyze deposits; analyze sandbox_deposit_offers');
  for (const t of ['deposits', 'sandbox_deposit_offers']) await pool.query(`alter table ${t} set (autovacuum_enabled = false)`); // keep them stale
  await grow(100, GROWN);
});
afterAll(async () => pool?.end());

/** Runs `fn` in a transaction that is rolled back (the trades statement writes). */
async function rolledBack<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('begin');
    return await fn(c);
  } finally {
    await c.query('rollback');
    c.release();
  }
}

/** Pages of a table: what a scan of it would read (each bound below is under it, or it tells nothing). */
const pages = async (table: string) => Number((await pool.query(`select pg_relation_size($1::regclass) / 8192 as n`, [table])).rows[0].n);

const someIds = async (n: number) => (await pool.query(`select id from deposits order by id desc limit $1`, [n])).rows.map((r) => Number(r.id));

describe('the acceptance reads on a grown table with stale statistics', () => {
  it('a deposit by id reads every column, by the primary key, custom and generic', async () => {
    const [id] = await someIds(1);
    const d = await findDepositById(db, id!);
    expect(Object.keys(d!).sort()).toEqual([...DEPOSIT_COLUMNS].sort());
    expect(d!.id).toBe(id);
    const q = sql`/* prepared:deposit_by_id */ select ${sql.raw(DEPOSIT_COLUMNS.join(', '))} from deposits where id = ${id}`.compile(db);
    expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(10);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(10);
  });

  it('the grouped read of deposits by ids: index probes, custom and generic', async () => {
    const ids = await someIds(16);
    const q = depositsByIdsStatement(ids).compile(db);
    expect(q.sql).toMatch(/^\/\* prepared:deposits_by_ids \*\//);
    expect((await depositsByIdsStatement(ids).execute(db)).rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    // ≈ 3 a deposit
    expect(await pages('deposits')).toBeGreaterThan(500);
    expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(100);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(100);
  });

  it('a connection keeps the generic plan of the grouped read after five runs (it does not plan it at every call)', async () => {
    const ids = await someIds(4); // fewer than the 10 a generic plan guesses: with `id = any($1)` every custom plan looked cheaper
    const one = createPool(url, 1); // every run on the same connection
    try {
      const oneDb = createDb(one);
      for (let i = 0; i < 8; i++) await depositsByIdsStatement(ids).execute(oneDb);
      const r = await one.query(`select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name = 'deposits_by_ids'`);
      expect(r.rows[0]).toEqual({ generic: 3, custom: 5 });
    } finally {
      await one.end();
    }
  });

  it("the deposits' trades find their offers by index, custom and generic", async () => {
    const ids = await someIds(16);
    const q = receiveDepositTradesStatement(ids).compile(db);
    expect(q.sql).toMatch(/^\/\* prepared:sandbox_deposit_trades \*\//);
    const received = await rolledBack(async (c) => (await c.query(q.sql, q.parameters as unknown[])).rows);
    expect(received.map((r) => Number(r.deposit_id)).sort()).toEqual([...ids].sort());
    // ≈ 8 a deposit: its offer, its trade and its departed asset, with their indexes
    expect(await pages('sandbox_deposit_offers')).toBeGreaterThan(600);
    expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(300);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(300);
  });
});
