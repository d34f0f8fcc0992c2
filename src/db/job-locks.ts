// graphile-worker leaves the jobs of a worker that died (kill -9, a lost machine) locked for four
// hours before another worker may take them, so a crash would stall hold ends, offer expiries,
// dispatches and webhooks that long. Each instance records a heartbeat for its worker pools: a job's
// locked_by is the id of the pool that took it (graphile-worker locks for the pool, not for the
// worker inside it that runs the job), and a pool lives until it is released, its workers replaced
// within it. The workers' own ids check in too (locks taken under a worker's id stay covered). A job
// locked longer than JOB_LOCK_TIMEOUT_MS by an id without a fresh heartbeat (or one never
// registered) is unlocked for the living. A live pool's lock is never taken from it.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { WorkerEvents } from 'graphile-worker';

export interface JobLockReaper {
  stop(): Promise<void>;
}

export function startJobLockReaper(opts: {
  pool: pg.Pool;
  events: WorkerEvents;
  timeoutMs: number;
  log: (msg: string, unlocked: string[]) => void;
}): JobLockReaper {
  const instance = crypto.randomUUID();
  // The ids this instance checks in: its live pools and their live workers.
  const workers = new Set<string>();
  let running: Promise<void> | undefined;
  opts.events.on('pool:create', ({ workerPool }) => {
    workers.add(workerPool.id);
    setImmediate(run); // check in before the pool's first lock can age
  });
  opts.events.on('pool:release', ({ workerPool }) => void workers.delete(workerPool.id));
  opts.events.on('worker:create', ({ worker }) => {
    workers.add(worker.workerId);
    setImmediate(run); // check in once the pool's workers are all created
  });
  opts.events.on('worker:stop', ({ worker }) => void workers.delete(worker.workerId));

  const tick = async () => {
    await opts.pool.query(
      `insert into worker_heartbeats (worker_id, instance_id, heartbeat_at) select unnest($1::text[]), $2, now()
         on conflict (worker_id) do update set heartbeat_at = now()`,
      [[...workers], instance],
    );
    const { rows } = await opts.pool.query<{ locked_by: string }>(
      `select distinct j.locked_by from graphile_worker.jobs j
         left join worker_heartbeats h on h.worker_id = j.locked_by
        where j.locked_by is not null and j.locked_at < now() - $1 * interval '1 millisecond'
          and (h.worker_id is null or h.heartbeat_at < now() - $1 * interval '1 millisecond')`,
      [opts.timeoutMs],
    );
    const dead = rows.map((r) => r.locked_by).filter((id) => !workers.has(id));
    if (dead.length) {
      await opts.pool.query('select graphile_worker.force_unlock_workers($1::text[])', [dead]);
      opts.log('unlocked the jobs of workers that are gone', dead);
    }
    await opts.pool.query(`delete from worker_heartbeats where heartbeat_at < now() - interval '1 day'`);
  };
  // A call while a tick is in flight runs one more tick after it: the check-in asked for when the
  // pool's workers were created must not be folded into a tick that started before they existed
  // (the next timer tick is JOB_LOCK_TIMEOUT_MS / 4 away).
  let again = false;
  let stopped = false;
  function run() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = tick()
      .catch(() => {}) // the database is away for a moment: the next tick tries again
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  }
  const timer = setInterval(run, Math.max(250, Math.floor(opts.timeoutMs / 4)));
  timer.unref();
  run();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await opts.pool.query('delete from worker_heartbeats where instance_id = $1', [instance]).catch(() => {});
    },
  };
}
