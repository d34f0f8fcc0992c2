// The job queue: graphile-worker on the same database. Features contribute task handlers.
import { run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { AppContext } from './context.js';
import { workerLogger } from '../logging.js';
import { featureTasks } from './tasks.js';

export function buildTaskList(ctx: AppContext): TaskList {
  const list: TaskList = {};
  for (const make of featureTasks) Object.assign(list, make(ctx));
  return list;
}

export async function startWorker(ctx: AppContext, events?: WorkerEvents): Promise<Runner> {
  return run({
    pgPool: ctx.pool,
    taskList: buildTaskList(ctx),
    concurrency: ctx.config.workerConcurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: workerLogger(ctx.log),
    ...(events ? { events } : {}),
  });
}
