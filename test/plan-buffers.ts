// Plan tests count buffers, not time: a plan that walks a backlog or a merchant's history shows it in
// the buffers one node touches, on a busy machine as on an idle one.
import type pg from 'pg';
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
