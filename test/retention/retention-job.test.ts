// The retention job in a running gateway: scheduled at start (one keyed job for all instances), and
// its handler prunes and keeps the chain going (the next run RETENTION_INTERVAL_SECONDS later).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTaskList } from '../../src/assembly/worker.js';
import { RETENTION_TASKS } from '../../src/modules/retention/retention-jobs.js';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ RETENTION_INTERVAL_SECONDS: '7200', STATUS_HISTORY_DAYS: '30' });
});
afterAll(async () => gw?.stop());

const job = async (key: string = RETENTION_TASKS.prune) => {
  await gw.flushJobs();
  const r = await gw.ctx.pool.query(`select extract(epoch from run_at - now())::int as in_s from graphile_worker.jobs where key = $1`, [key]);
  return r.rows[0] as { in_s: number } | undefined;
};

describe('retention job', () => {
  it('is scheduled at start, prunes when it runs, and schedules the next run', async () => {
    const first = await job();
    expect(first).toBeDefined();
    expect(first!.in_s).toBeLessThanOrEqual(60);
    await gw.ctx.pool.query(`insert into record_status_history (kind, record_id, merchant_id, to_status, at) values
      ('deposit', 1, 1, 'completed', now() - interval '31 days'), ('deposit', 2, 1, 'completed', now())`);
    const handler = buildTaskList(gw.ctx)[RETENTION_TASKS.prune] as (payload: unknown, helpers: unknown) => Promise<void>;
    await handler({}, {});
    const left = await gw.ctx.pool.query(`select record_id::int from record_status_history where kind = 'deposit' and record_id in (1, 2)`);
    expect(left.rows).toEqual([{ record_id: 2 }]);
    // preserve_run_at keeps the earlier waiting run; once that one has run, the next is an interval away.
    await gw.ctx.pool.query(`select graphile_worker.remove_job($1)`, [RETENTION_TASKS.prune]);
    await handler({}, {});
    const next = await job();
    expect(next!.in_s).toBeGreaterThan(7000);
  });

  it("does nothing more once the job's abortSignal has aborted (a stop); the next run takes it all", async () => {
    await gw.ctx.pool.query(`insert into record_status_history (kind, record_id, merchant_id, to_status, at)
      select 'purchase', 1000000 + g, 1, 'completed', now() - interval '31 days' from generate_series(1, 2500) g`);
    // Every row past STATUS_HISTORY_DAYS (30), these and any the gateway wrote.
    const aged = async () => Number((await gw.ctx.pool.query(`select count(*) as n from record_status_history where at < now() - interval '30 days'`)).rows[0].n);
    const before = await aged();
    expect(before).toBeGreaterThanOrEqual(2500);
    const handler = buildTaskList(gw.ctx)[RETENTION_TASKS.prune] as (payload: unknown, helpers: unknown) => Promise<void>;
    const stop = new AbortController();
    stop.abort();
    await handler({}, { abortSignal: stop.signal });
    expect(await aged()).toBe(before);
    await handler({}, {});
    expect(await aged()).toBe(0);
  });

  it('purchase_counts_fold: scheduled at start, folds the count deltas (sums kept), schedules the next run', async () => {
    const first = await job(RETENTION_TASKS.fold);
    expect(first).toBeDefined();
    expect(first!.in_s).toBeLessThanOrEqual(10); // PURCHASE_COUNT_FOLD_SECONDS
    await gw.ctx.pool.query(`insert into purchase_counts (merchant_id, status, n) values (424242, 'pending', 1), (424242, 'pending', 1), (424242, 'pending', -1), (424242, 'failed', 1)`);
    const handler = buildTaskList(gw.ctx)[RETENTION_TASKS.fold] as (payload: unknown, helpers: unknown) => Promise<void>;
    await handler({}, {});
    const rows = await gw.ctx.pool.query(`select status, n::int, base from purchase_counts where merchant_id = 424242 order by status`);
    expect(rows.rows).toEqual([{ status: 'failed', n: 1, base: true }, { status: 'pending', n: 1, base: true }]);
    expect(await job(RETENTION_TASKS.fold)).toBeDefined();
  });
});
