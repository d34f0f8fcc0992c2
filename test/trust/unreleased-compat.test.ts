// Migration 071 drops what only never-released versions wrote: jobs of tasks that have no handler
// any more (purchase_dispatch, purchase_pending_watchdog, webhook_deliver), queued or in the
// outbox, and quotes in the forms before 019 (JSON lines; deposit_quote_items). A database of an
// earlier commit is upgraded: those go, everything else stays.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyDatabase } from '../helpers.js';
import { migrate } from '../../src/db/migrate.js';
import { buildTaskList } from '../../src/assembly/worker.js';
import type { AppContext } from '../../src/assembly/context.js';

const CURRENT = path.resolve('src/db/migrations');
const LEGACY_TASKS = ['purchase_dispatch', 'purchase_pending_watchdog', 'webhook_deliver'];
const done: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const d of done.reverse()) await d();
});

async function emptyPool(): Promise<pg.Pool> {
  const p = new pg.Pool({ connectionString: await emptyDatabase('before071'), max: 2 });
  p.on('error', () => {});
  done.push(() => p.end());
  return p;
}

/** A database with the schema of the commit before 071. */
async function before071(): Promise<pg.Pool> {
  const before = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-before-071-'));
  done.push(() => fs.rm(before, { recursive: true, force: true }));
  for (const f of await fs.readdir(CURRENT)) if (f < '071') await fs.copyFile(path.join(CURRENT, f), path.join(before, f));
  const p = await emptyPool();
  await migrate(p, () => {}, before);
  return p;
}

describe('jobs of tasks that were never released (migration 071)', () => {
  it('are removed from the queue and the outbox at upgrade; every other job stays', async () => {
    const p = await before071();

    for (const [i, task] of [...LEGACY_TASKS, 'purchase_hold_end'].entries()) {
      await p.query(`select graphile_worker.add_job($1, $2::json, run_at => now() + interval '1 hour', job_key => $3)`, [task, JSON.stringify({ purchase_id: i }), `q:${task}`]);
      await p.query(`insert into job_outbox (task, payload, job_key) values ($1, '{}', $2)`, [task, `o:${task}`]);
    }
    const queued = async () =>
      (await p.query(`select t.identifier from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id order by 1`)).rows.map((r) => r.identifier);
    const outbox = async () => (await p.query(`select task from job_outbox order by 1`)).rows.map((r) => r.task);
    expect(await queued()).toEqual([...LEGACY_TASKS, 'purchase_hold_end'].sort());

    expect(await migrate(p)).toContain('071_drop_unreleased_compat.sql');
    expect(await queued()).toEqual(['purchase_hold_end']);
    expect(await outbox()).toEqual(['purchase_hold_end']);
  });

  it('quotes of the forms before 019 are removed with their table and column; a packed quote stays', async () => {
    const p = await before071();
    const m = (await p.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('q', 'h', 'sk_', 's') returning id`)).rows[0].id;
    const draft = async () => (await p.query(`insert into deposits (merchant_id, flow, status, game) values ($1, 'hash_name', 'new', 'csgo') returning id`, [m])).rows[0].id as string;
    const [json, items, packed] = [await draft(), await draft(), await draft()];
    await p.query(`insert into deposit_quotes (deposit_id, lines) values ($1, '[["AK", 900, 1000]]')`, [json]);
    await p.query(`insert into deposit_quote_items (deposit_id, market_hash_name, price, original_price) values ($1, 'AK', 900, 1000)`, [items]);
    await p.query(`insert into deposit_quotes (deposit_id, packed) values ($1, $2)`, [packed, Buffer.alloc(24, 1)]);

    expect(await migrate(p)).toContain('071_drop_unreleased_compat.sql');
    expect((await p.query(`select deposit_id::text as id from deposit_quotes`)).rows).toEqual([{ id: String(packed) }]);
    expect((await p.query(`select to_regclass('deposit_quote_items') as t`)).rows[0].t).toBeNull();
    expect((await p.query(`select 1 from information_schema.columns where table_name = 'deposit_quotes' and column_name = 'lines'`)).rowCount).toBe(0);
    // the drafts themselves stay (a commit of one answers that its items were not quoted)
    expect(Number((await p.query(`select count(*) from deposits where id = any($1::bigint[])`, [[json, items, packed]])).rows[0].count)).toBe(3);
  });

  it('the worker has no handler for them (a job under such a name would wait forever: hence the migration)', () => {
    const handled = Object.keys(buildTaskList({} as AppContext));
    for (const task of LEGACY_TASKS) expect(handled).not.toContain(task);
    expect(handled).toContain('purchase_hold_end'); // the list was built
  });
});
