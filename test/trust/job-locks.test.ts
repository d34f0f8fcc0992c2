// Jobs locked by a worker that died are unlocked after JOB_LOCK_TIMEOUT_MS (graphile-worker alone
// waits four hours); a lock held by a worker with a fresh heartbeat, or taken moments ago, stays.
// A job of this instance's own running worker keeps its lock however long it runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { featureTasks } from '../../src/assembly/tasks.js';

// A task that runs until the test lets it end (this file's module registry only; every gateway
// this file starts runs it, so a second run anywhere counts).
let slowRuns = 0;
let endSlow: () => void = () => {};
let slowEnds = Promise.resolve();
function armSlow() {
  slowRuns = 0;
  slowEnds = new Promise<void>((resolve) => (endSlow = resolve));
}
// A task of this file only: added for its gateways and taken out after them, since the test files
// of a worker share one module graph (job-names.test.ts checks the product's own task list).
const slowTask = () => ({
  trust_slow_job: async () => {
    slowRuns += 1;
    await slowEnds;
  },
});

let gw: TestGateway;
beforeAll(async () => {
  featureTasks.push(slowTask);
  gw = await startTestGateway({ JOB_LOCK_TIMEOUT_MS: '1000' });
});
afterAll(async () => {
  endSlow();
  await gw?.stop();
  featureTasks.splice(featureTasks.indexOf(slowTask), 1);
});

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

type Pool = TestGateway['ctx']['pool'];
interface JobLock {
  locked_by: string | null;
  locked_at: Date | null;
}

/** Queues the slow job and waits until it runs, locked; `lock` reads its lock now, `taken` is the lock it was run under. */
async function runSlowJob(pool: Pool): Promise<{ id: string; lock: () => Promise<JobLock>; taken: JobLock }> {
  const { rows } = await pool.query(`select id::text from graphile_worker.add_job('trust_slow_job', '{}'::json)`);
  const id: string = rows[0].id;
  const lock = async () => (await pool.query<JobLock>('select locked_by, locked_at from graphile_worker._private_jobs where id = $1', [id])).rows[0]!;
  await eventually(async () => slowRuns === 1 && (await lock()).locked_by !== null, 10_000);
  return { id, lock, taken: await lock() };
}

/** Waits until `sql` (heartbeats, as column t) has returned three different ones. */
async function threeCheckIns(pool: Pool, sql: string, params: unknown[]): Promise<void> {
  const seen = new Set<string>();
  await eventually(async () => {
    const { rows: beats } = await pool.query(sql, params);
    for (const b of beats) seen.add(b.t);
    return seen.size >= 3;
  }, 10_000);
}

/** The job still holds the lock it was run under, and has run once. */
async function expectLockKept(job: { lock: () => Promise<JobLock>; taken: JobLock }): Promise<void> {
  const now = await job.lock();
  expect(now.locked_by).toBe(job.taken.locked_by);
  expect(now.locked_at?.getTime()).toBe(job.taken.locked_at?.getTime());
  expect(slowRuns).toBe(1);
}

/** Once let end, the job is done and gone, and it ran once. */
async function expectDoneOnce(pool: Pool, id: string): Promise<void> {
  await eventually(async () => (await pool.query('select 1 from graphile_worker._private_jobs where id = $1', [id])).rowCount === 0, 10_000);
  expect(slowRuns).toBe(1);
}

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

describe('job locks of live workers', () => {
  it('a job running longer than the timeout on this instance\'s worker keeps its lock and runs once', async () => {
    armSlow();
    try {
      const job = await runSlowJob(gw.ctx.pool);
      // Wait until this instance's reaper has checked in three times after the lock became older
      // than the timeout (a tick checks in, then unlocks what it finds dead; the next starts after
      // it ended): a lock wrongly taken would be gone, and the job run again, by then.
      await threeCheckIns(
        gw.ctx.pool,
        `select heartbeat_at::text as t from worker_heartbeats where instance_id <> 'elsewhere' and heartbeat_at > $1::timestamptz + interval '2 seconds'`,
        [job.taken.locked_at],
      );
      await expectLockKept(job);
      endSlow();
      await expectDoneOnce(gw.ctx.pool, job.id);
    } finally {
      endSlow();
    }
  });
});

describe('job locks of a stopping instance', () => {
  it('a job still running while its instance stops keeps its lock from the other instances', async () => {
    armSlow();
    // A takes the job alone; then B, whose reaper watches A's lock while A stops.
    const a = await startTestGateway({ JOB_LOCK_TIMEOUT_MS: '1000' });
    let b: TestGateway | undefined;
    let stopping: Promise<void> | undefined;
    try {
      const job = await runSlowJob(a.ctx.pool);
      b = await startTestGateway({ JOB_LOCK_TIMEOUT_MS: '1000' }, { databaseUrl: a.databaseUrl });
      const bPool = b.ctx.pool;
      const shuttingDown = new Promise<void>((resolve) => a.worker!.events.once('pool:gracefulShutdown', () => resolve()));
      stopping = a.stop();
      await shuttingDown; // A's worker now waits for the job to end
      // B's reaper checks in three times after that, and after the lock is older than the timeout
      // (a tick checks in, then unlocks what it finds dead; the next starts after it ended).
      const { rows: t0 } = await bPool.query(`select greatest(now(), $1::timestamptz + interval '2 seconds') as t`, [job.taken.locked_at]);
      await threeCheckIns(
        bPool,
        `select h.heartbeat_at::text as t from worker_heartbeats h
          where h.heartbeat_at > $1 and h.instance_id is distinct from
            (select instance_id from worker_heartbeats where worker_id = $2)`,
        [t0[0].t, job.taken.locked_by],
      );
      await expectLockKept(job);
      endSlow();
      await stopping;
      await expectDoneOnce(bPool, job.id);
    } finally {
      endSlow();
      await (stopping ?? a.stop()).catch(() => {});
      await b?.stop();
    }
  });
});
