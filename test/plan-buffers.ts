// Plan tests count buffers, not time: a plan that walks a backlog or a merchant's history shows it in
// the buffers one node touches, on a busy machine as on an idle one.
import type pg from 'pg';
import { createDb, createPool, type Db } from '../src/db/database.js';
import { freshDatabase } from './helpers.js';
// @ts-expect-error node-postgres's own value conversion has no type declarations
import { prepareValue } from 'pg/lib/utils.js';

/**
 * The most buffers (shared hit + read) one node of the statement's plan touched, from EXPLAIN
 * ANALYZE on `on` (a pool, or a client inside the caller's transaction): a node that walks the
 * backlog shows it wherever it is (a data-modifying CTE nothing reads is not counted in the top
 * node). Planning's catalogue reads are left out. SHOW_PLAN=1 prints the plan.
 */
export async function mostBuffers(on: Pick<pg.Pool, 'query'>, text: string, values: readonly unknown[]): Promise<number> {
  const r = await on.query(`explain (analyze, buffers, costs off) ${text}`, values as unknown[]);
  const plan = r.rows.map((x) => x['QUERY PLAN'] as string).join('\n');
  if (process.env.SHOW_PLAN) console.log(plan);
  let most = 0;
  for (const m of plan.split('\nPlanning')[0]!.matchAll(/Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/g)) most = Math.max(most, Number(m[1] ?? 0) + Number(m[2] ?? 0));
  return most;
}

/**
 * The most buffers of one node of `q`'s generic plan (the one a connection keeps for a named
 * prepared statement after five runs, whatever the values), inside the caller's transaction on `c`.
 * EXPLAIN EXECUTE takes no bind parameters: the values go as literals, as node-postgres sends them.
 */
export async function genericBuffers(c: pg.PoolClient, q: { sql: string; parameters: readonly unknown[] }): Promise<number> {
  await c.query('set local plan_cache_mode = force_generic_plan');
  // A prepared statement outlives the transaction: taken back by deallocate, after a savepoint's
  // rollback if the statement failed (else the aborted transaction would refuse the deallocate).
  await c.query('savepoint generic_under_test');
  await c.query(`prepare generic_under_test as ${q.sql}`);
  try {
    const args = q.parameters.map((v) => {
      const text = prepareValue(v) as string | null;
      return text === null ? 'null' : c.escapeLiteral(text);
    });
    return await mostBuffers(c, `execute generic_under_test${args.length ? `(${args.join(', ')})` : ''}`, []);
  } catch (err) {
    await c.query('rollback to savepoint generic_under_test');
    throw err;
  } finally {
    await c.query('deallocate generic_under_test');
  }
}

/** Runs `fn` on a client of `pool` inside a transaction that is rolled back (the statements under test may write). */
export async function rolledBack<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('begin');
    return await fn(c);
  } finally {
    await c.query('rollback');
    c.release();
  }
}

/** Pages of a table: what a scan of it would read (a buffer bound under it tells a probe from a scan). */
export async function tablePages(on: Pick<pg.Pool, 'query'>, table: string): Promise<number> {
  return Number((await on.query(`select pg_relation_size($1::regclass) / 8192 as n`, [table])).rows[0].n);
}

/**
 * How often one connection planned the named prepared statement `name` generic and custom while
 * `runs` ran it: `runs` gets a Db on a pool of that one connection of `url`. PostgreSQL tries five
 * custom plans, then keeps the generic one unless it looks dearer than theirs.
 */
export async function plansOfOneConnection(url: string, name: string, runs: (db: Db) => Promise<void>): Promise<{ generic: number; custom: number }> {
  const one = createPool(url, 1);
  try {
    await runs(createDb(one));
    const r = await one.query(`select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name = $1`, [name]);
    return r.rows[0];
  } finally {
    await one.end();
  }
}

/** A fresh database for a plan test: its url, a pool of two connections, its Db and one merchant's id. */
export async function planTestDatabase(): Promise<{ url: string; pool: pg.Pool; db: Db; merchantId: number }> {
  const url = await freshDatabase();
  const pool = createPool(url, 2);
  const m = await pool.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('plan', 'h', 'sk_', 's') returning id`);
  return { url, pool, db: createDb(pool), merchantId: Number(m.rows[0].id) };
}

/** Statistics taken now and kept (autovacuum off for these tables): what grows after is unknown to the planner. */
export async function freezeStatistics(on: Pick<pg.Pool, 'query'>, tables: readonly string[]): Promise<void> {
  for (const t of tables) {
    await on.query(`analyze ${t}`);
    await on.query(`alter table ${t} set (autovacuum_enabled = false)`);
  }
}
