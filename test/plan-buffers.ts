// Plan tests count buffers, not time: a plan that walks a backlog or a merchant's history shows it in
// the buffers one node touches, on a busy machine as on an idle one.
import type pg from 'pg';

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
