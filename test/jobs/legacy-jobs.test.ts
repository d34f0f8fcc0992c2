// Migration 071: a database of an earlier commit may hold jobs of tasks that have no handler any
// more (purchase_dispatch, purchase_pending_watchdog, webhook_deliver), queued or in the outbox.
// The upgrade removes them and nothing else; the worker's task list no longer names them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { buildTaskList } from '../../src/assembly/worker.js';
import type { AppContext } from '../../src/assembly/context.js';

const CURRENT = path.resolve('src/db/migrations');
const LEGACY_TASKS = ['purchase_dispatch', 'purchase_pending_watchdog', 'webhook_deliver'];
const done: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const d of done.reverse()) await d();
});

async function emptyDatabase(): Promise<pg.Pool> {
  const server = inject('pgServerUrl');
  const name = `legacy_jobs_${Math.random().toString(36).slice(2, 10)}`;
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(server);
  u.pathname = `/${name}`;
  const p = new pg.Pool({ connectionString: u.toString(), max: 2 });
  p.on('error', () => {});
  done.push(() => p.end());
  return p;
}

describe('jobs of tasks that were never released (migration 071)', () => {
  it('are removed from the queue and the outbox at upgrade; every other job stays', async () => {
    const before = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-before-071-'));
    done.push(() => fs.rm(before, { recursive: true, force: true }));
    for (const f of await fs.readdir(CURRENT)) if (f < '071') await fs.copyFile(path.join(CURRENT, f), path.join(before, f));
    const p = await emptyDatabase();
    await migrate(p, () => {}, before); // the schema of the commit before 071

    for (const [i, task] of [...LEGACY_TASKS, 'purchase_hold_end'].entries()) {
      await p.query(`select graphile_worker.add_job($1, $2::json, run_at => now() + interval '1 hour', job_key => $3)`, [task, JSON.stringify({ purchase_id: i }), `q:${task}`]);
      await p.query(`insert into job_outbox (task, payload, job_key) values ($1, '{}', $2)`, [task, `o:${task}`]);
    }
    const queued = async () =>
      (await p.query(`select t.identifier from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id order by 1`)).rows.map((r) => r.identifier);
    const outbox = async () => (await p.query(`select task from job_outbox order by 1`)).rows.map((r) => r.task);
    expect(await queued()).toEqual([...LEGACY_TASKS, 'purchase_hold_end'].sort());

    expect(await migrate(p)).toContain('071_drop_legacy_jobs.sql');
    expect(await queued()).toEqual(['purchase_hold_end']);
    expect(await outbox()).toEqual(['purchase_hold_end']);
  });

  it('the worker has no handler for them (a job under such a name would wait forever: hence the migration)', () => {
    const handled = Object.keys(buildTaskList({} as AppContext));
    for (const task of LEGACY_TASKS) expect(handled).not.toContain(task);
    expect(handled).toContain('purchase_hold_end'); // the list was built
  });
});
