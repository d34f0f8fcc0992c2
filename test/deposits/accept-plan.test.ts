// The statements of a deposit's acceptance that run as named prepared statements (db/prepared.ts),
// on a grown table whose statistics were taken when it was small: a connection keeps their generic
// plan after five runs, whatever the ids, so that plan must find its rows by index. Counted in
// buffers, not time (test/plan-buffers.ts): a scan of the grown table reads thousands.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeStatistics, genericBuffers, mostBuffers, planTestDatabase, plansOfOneConnection, rolledBack as rolledBackOn, tablePages } from '../plan-buffers.js';
import type { Db } from '../../src/db/database.js';
import { DEPOSIT_COLUMNS, depositsByIdsStatement, findDepositById } from '../../src/modules/deposits/deposit-repo.js';
import { receiveDepositTradesStatement } from '../../src/platform/sandbox/bot-holdings.js';
import { sql } from 'kysely';

const GROWN = 60_000; // deposits and offers after the statistics were taken (before: 20)

let url: string;
let pool: pg.Pool;
let db: Db;

beforeAll(async () => {
  let merchantId: number;
  ({ url, pool, db, merchantId } = await planTestDatabase());
  const grow = (from: number, n: number) =>
    pool.query(
      `with d as (
         insert into deposits (merchant_id, flow, game, partner) select $1, 'inventory', 'csgo', g from generate_series($2::int, $2::int + $3 - 1) g returning id, partner)
       insert into sandbox_deposit_offers (trade_offer_id, deposit_id, bot_id, expires_at, game, partner, asset_ids)
       select 'plan-' || d.id, d.id, 1, now() + interval '1 hour', 'csgo', d.partner, array['a' || d.id] from d`,
      [merchantId, from, n],
    );
  await grow(1, 20);
  await freezeStatistics(pool, ['deposits', 'sandbox_deposit_offers']);
  await grow(100, GROWN);
});
afterAll(async () => pool?.end());

const rolledBack = <T,>(fn: (c: pg.PoolClient) => Promise<T>) => rolledBackOn(pool, fn);

const pages = (table: string) => tablePages(pool, table);

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
    const plans = await plansOfOneConnection(url, 'deposits_by_ids', async (oneDb) => {
      for (let i = 0; i < 8; i++) await depositsByIdsStatement(ids).execute(oneDb);
    });
    expect(plans).toEqual({ generic: 3, custom: 5 });
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

  it("a connection keeps the generic plan of the deposits' trades after five runs", async () => {
    // The oldest deposits: the runs commit their trades, and the test above reads the newest.
    const ids = (await pool.query(`select id from deposits order by id limit 4`)).rows.map((r) => Number(r.id));
    const plans = await plansOfOneConnection(url, 'sandbox_deposit_trades', async (oneDb) => {
      for (let i = 0; i < 8; i++) await receiveDepositTradesStatement(ids).execute(oneDb);
    });
    expect(plans).toEqual({ generic: 3, custom: 5 });
  });
});
