// Jobs locked by a worker that died are unlocked after JOB_LOCK_TIMEOUT_MS (graphile-worker alone
// waits four hours); a lock held by a worker with a fresh heartbeat, or taken moments ago, stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ JOB_LOCK_TIMEOUT_MS: '1000' });
});
afterAll(async () => gw?.stop());

async function lockedJob(worker: string, lockedAgo: string): Promise<string> {
  const { rows } = await gw.ctx.pool.query(
    `select id::text from graphile_worker.add_job('trust_lock_probe', '{}'::json, run_at := now() + interval '1 day', job_key := $1)`,
    [`probe-${worker}`],
  );
  await gw.ctx.pool.query(`update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3::interval where id = $1`, [rows[0].id, worker, lockedAgo]);
  return rows[0].id;
}
const lockOf = async (id: string) =>
  (await gw.ctx.pool.query('select locked_by from graphile_worker._private_jobs where id = $1', [id])).rows[0].locked_by as string | null;

describe('job locks of dead workers', () => {
  it('unlocks a dead worker\'s job, keeps a live worker\'s and a fresh lock', async () => {
    await gw.ctx.pool.query(`insert into worker_heartbeats (worker_id, instance_id) values ('worker-alive', 'elsewhere')`);
    const keepFresh = setInterval(() => void gw.ctx.pool.query(`update worker_heartbeats set heartbeat_at = now() where worker_id = 'worker-alive'`).catch(() => {}), 200);
    try {
      const dead = await lockedJob('worker-dead', '10 seconds');
      const alive = await lockedJob('worker-alive', '10 seconds');
      const fresh = await lockedJob('worker-new', '0 seconds');
      await eventually(async () => (await lockOf(dead)) === null, 5_000);
      expect(await lockOf(alive)).toBe('worker-alive');
      expect(await lockOf(fresh)).toBe('worker-new');
      // The fresh one is someone's only until it has been locked for the timeout without a heartbeat.
      await eventually(async () => (await lockOf(fresh)) === null, 5_000);
      expect(await lockOf(alive)).toBe('worker-alive');
    } finally {
      clearInterval(keepFresh);
    }
  });

  it('this instance\'s own workers check in', async () => {
    const { rows } = await gw.ctx.pool.query('select count(*)::int as n from worker_heartbeats where heartbeat_at > now() - interval \'5 seconds\' and worker_id <> \'worker-alive\'');
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
  });
});
