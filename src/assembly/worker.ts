// The job queue: graphile-worker on the same database. Features contribute task handlers.
import { EventEmitter } from 'node:events';
import { run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { AppContext } from './context.js';
import { workerLogger } from '../logging.js';
import { featureTasks } from './tasks.js';
import { databaseIsDown, noteDatabaseError } from '../db/outage.js';

export function buildTaskList(ctx: AppContext): TaskList {
  const list: TaskList = {};
  for (const make of featureTasks) Object.assign(list, make(ctx));
  return list;
}

const UNLOCK_RETRY_MS = 1000;

/**
 * The database going away under the worker (a restart, a failover). graphile-worker retries its
 * job fetches by itself, and its batcher the completions (startWorker); but a worker that fails to
 * release its job exits, and by default the whole pool then shuts down: no job would run on this
 * instance until a restart.
 * Here the worker is replaced, and the job it held (its completion not recorded) is unlocked once
 * the database is back, so it runs again (the gateway's tasks are idempotent) instead of staying
 * locked for graphile-worker's four hours. Its lines about the lost connection are the outage's
 * one warning (db/outage.ts).
 */
function recovery(ctx: AppContext, events: WorkerEvents) {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  function unlock(jobId: string, lockedAt: Date | null) {
    if (stopped) return;
    ctx.pool
      .query('update graphile_worker._private_jobs set locked_by = null, locked_at = null where id = $1 and locked_at is not distinct from $2', [jobId, lockedAt])
      .catch((err: unknown) => {
        if (!noteDatabaseError(ctx.pool, err)) ctx.log.warn({ err, jobId }, 'job worker: a job whose completion was not recorded could not be unlocked; retrying');
        const t = setTimeout(() => {
          timers.delete(t);
          unlock(jobId, lockedAt);
        }, UNLOCK_RETRY_MS);
        t.unref();
        timers.add(t);
      });
  }
  events.on('worker:fatalError', ({ worker, error }) => {
    // Emitted synchronously while the worker still holds its job.
    const job = worker.getActiveJob();
    if (job) unlock(job.id, job.locked_at);
    if (!noteDatabaseError(ctx.pool, error)) ctx.log.warn({ err: error, jobId: job?.id }, 'job worker: a worker failed to record its job; replaced, the job runs again');
  });
  const plugin: GraphileConfig.Plugin = {
    name: 'GatewayWorkerRecovery',
    version: '1.0.0',
    worker: {
      middleware: {
        poolWorkerPrematureExit(_next, event) {
          if (!stopped) event.replaceWithNewWorker();
        },
      },
    },
  };
  return {
    plugin,
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
    },
  };
}

/** A line graphile-worker would log about the database being away (noted on the outage instead). */
function aboutOutage(ctx: AppContext, level: string, message: string, meta?: Record<string, unknown>): boolean {
  if (level !== 'error' && level !== 'warning') return false;
  const err = meta?.error ?? meta?.fatalError;
  if (err !== undefined && noteDatabaseError(ctx.pool, err)) return true;
  // The pool's own line when one of its workers exited (replaced by recovery() above).
  return message.startsWith('Worker exited, but pool is in continuous mode') && databaseIsDown(ctx.pool);
}

export async function startWorker(ctx: AppContext, events: WorkerEvents = new EventEmitter() as WorkerEvents): Promise<Runner> {
  const r = recovery(ctx, events);
  const runner = await run({
    pgPool: ctx.pool,
    taskList: buildTaskList(ctx),
    concurrency: ctx.config.workerConcurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: workerLogger(ctx.log, (level, message, meta) => aboutOutage(ctx, level, message, meta)),
    // Completions and failures go through graphile-worker's batcher, which retries them while the
    // database is away (about four minutes in all, then the worker pool stops). Unbatched, a
    // completion cut off by a restart is a promise nobody awaits: an unhandled rejection that
    // ends the process.
    preset: { plugins: [r.plugin], worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    events,
  });
  const stop = runner.stop.bind(runner);
  runner.stop = async () => {
    r.stop();
    await stop();
  };
  return runner;
}
