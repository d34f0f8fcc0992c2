// The job outbox (migration 012) and its relay (src/jobs/relay.ts): business transactions write
// job specs to job_outbox (no graphile_worker.add_jobs, so no NOTIFY and no cluster-wide commit
// lock), and the relay moves committed rows into graphile-worker, in id order, so keyed jobs end
// exactly as if they had been added directly; woken after this instance's commits, polling for the
// rest; two instances' relays keep one key's order.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitTaps } from '../../src/db/commit-taps.js';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { addJob, addJobs, JOB_OUTBOX } from '../../src/jobs/enqueue.js';
import { eventually, freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';

// Probe tasks no handler knows (no worker runs them: the gateways start without one), far in the
// future unless a test says otherwise.
const LATER = new Date(Date.now() + 3_600_000);
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  const databaseUrl = await freshDatabase();
  a = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0', JOB_RELAY_POLL_MS: '60000' }, { databaseUrl, worker: false });
  b = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0', JOB_RELAY_POLL_MS: '60000' }, { databaseUrl, worker: false });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

type Job = { key: string | null; payload: any; run_at: Date; task_identifier: string; attempts: number; max_attempts: number };
const jobs = async (db: Db, key: string): Promise<Job[]> =>
  (await sql<Job>`select j.key, j.payload, j.run_at, t.identifier as task_identifier, j.attempts, j.max_attempts from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where j.key = ${key} order by j.id`.execute(db)).rows;
const outboxCount = async (db: Db, key: string) =>
  Number((await sql<{ n: number }>`select count(*)::int as n from job_outbox where job_key = ${key}`.execute(db)).rows[0].n);

describe('addJob writes the outbox in the caller transaction', () => {
  it('inside the transaction the job is in job_outbox and not in graphile-worker (add_jobs, and its NOTIFY, not called)', async () => {
    const key = 'probe:in-trx';
    await a.ctx.db.transaction().execute(async (trx) => {
      await addJob(trx, 'purchase_offer_expire', { purchase_id: 1 }, { jobKey: key, runAt: LATER });
      const inTrx = (await sql<{ q: number; o: number }>`
        select (select count(*)::int from graphile_worker.jobs where key = ${key}) as q,
               (select count(*)::int from job_outbox where job_key = ${key}) as o`.execute(trx)).rows[0];
      expect(inTrx).toEqual({ q: 0, o: 1 });
    });
    await a.flushJobs();
    expect(await outboxCount(a.ctx.db, key)).toBe(0);
    const [job] = await jobs(a.ctx.db, key);
    expect(job).toMatchObject({ task_identifier: 'purchase_offer_expire', payload: { purchase_id: 1 }, attempts: 0, max_attempts: 25 });
    expect(new Date(job.run_at).getTime()).toBe(LATER.getTime());
  });

  it('a rolled-back transaction leaves nothing, in the outbox or the queue', async () => {
    const key = 'probe:rolled-back';
    await expect(
      a.ctx.db.transaction().execute(async (trx) => {
        await addJob(trx, 'purchase_offer_expire', { purchase_id: 2 }, { jobKey: key });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    await a.flushJobs();
    expect(await outboxCount(a.ctx.db, key)).toBe(0);
    expect(await jobs(a.ctx.db, key)).toEqual([]);
  });

  it('the commit wakes the relay: the job reaches graphile-worker with no poll (the poll here is a minute)', async () => {
    const key = 'probe:woken';
    await a.ctx.db.transaction().execute((trx) => addJob(trx, 'purchase_offer_expire', { purchase_id: 3 }, { jobKey: key, runAt: LATER }));
    await eventually(async () => (await jobs(a.ctx.db, key)).length === 1, 5_000, 10);
  });
});

describe('keyed jobs end as if added directly, in order', () => {
  // The same sequence of adds for one key, once through the outbox (one relay pass: one
  // transaction, so one batch that must be cut at the repeated key and the changed mode), once
  // directly with graphile_worker.add_job; the two jobs must agree.
  const t = (s: number) => new Date(Date.now() + s * 1000);
  const steps = [
    { runAt: t(100), mode: 'replace', n: 1 },
    { runAt: t(200), mode: 'preserve_run_at', n: 2 },
    { runAt: t(300), mode: 'replace', n: 3 },
    { runAt: t(50), mode: 'preserve_run_at', n: 4 },
    { runAt: t(60), mode: 'preserve_run_at', n: 5 },
  ] as const;

  it('replace and preserve_run_at interleaved on one key, several keys in one batch', async () => {
    await a.ctx.db.transaction().execute((trx) =>
      addJobs(
        trx,
        steps.flatMap((s) => [
          { task: 'purchase_offer_expire' as const, payload: { purchase_id: s.n }, opts: { jobKey: 'order:outbox', jobKeyMode: s.mode, runAt: s.runAt } },
          { task: 'purchase_hold_end' as const, payload: { purchase_id: 100 + s.n }, opts: { jobKey: `order:other:${s.n}`, runAt: s.runAt } },
          { task: 'purchase_offer_expire' as const, payload: { purchase_id: 200 + s.n } },
        ]),
      ),
    );
    for (const s of steps) {
      await sql`select graphile_worker.add_job('purchase_offer_expire', ${JSON.stringify({ purchase_id: s.n })}::json,
                  run_at => ${s.runAt.toISOString()}::timestamptz, job_key => 'order:direct', job_key_mode => ${s.mode}::text)`.execute(a.ctx.db);
    }
    await a.flushJobs();
    const [viaOutbox] = await jobs(a.ctx.db, 'order:outbox');
    const [direct] = await jobs(a.ctx.db, 'order:direct');
    expect(viaOutbox.payload).toEqual(direct.payload);
    expect(new Date(viaOutbox.run_at).getTime()).toBe(new Date(direct.run_at).getTime());
    expect(viaOutbox.payload).toEqual({ purchase_id: 5 });
    expect(new Date(viaOutbox.run_at).getTime()).toBe(steps[2].runAt.getTime()); // the last replace's time, kept since
    for (const s of steps) expect((await jobs(a.ctx.db, `order:other:${s.n}`))[0].payload).toEqual({ purchase_id: 100 + s.n });
    const unkeyed = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'purchase_offer_expire' and (j.payload->>'purchase_id')::int between 201 and 205`.execute(a.ctx.db);
    expect(unkeyed.rows[0].n).toBe(5);
  });

  it('a job locked by a worker is not moved: a new one is added next to it, as add_job does', async () => {
    const key = 'order:locked';
    await addJob(a.ctx.db, 'purchase_offer_expire', { purchase_id: 7 }, { jobKey: key, runAt: LATER });
    await a.flushJobs();
    await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'someone' where key = ${key}`.execute(a.ctx.db);
    await addJob(a.ctx.db, 'purchase_offer_expire', { purchase_id: 8 }, { jobKey: key });
    await a.flushJobs();
    const both = (await sql<{ key: string | null; payload: any; locked_by: string | null }>`
      select key, payload, locked_by from graphile_worker._private_jobs where payload->>'purchase_id' in ('7', '8') order by id`.execute(a.ctx.db)).rows;
    expect(both).toEqual([
      { key: null, payload: { purchase_id: 7 }, locked_by: 'someone' },
      { key, payload: { purchase_id: 8 }, locked_by: null },
    ]);
    await sql`delete from graphile_worker._private_jobs where locked_by = 'someone'`.execute(a.ctx.db);
  });

  it('two instances writing and relaying at once: each key ends with its last committed add', async () => {
    const keys = ['two:0', 'two:1', 'two:2'];
    // Writers alternate instances; each commit pokes its own instance's relay, so both relays run
    // concurrently. Writes to one key are sequential (as a record's row lock makes them in the app).
    const last: Record<string, number> = {};
    await Promise.all(
      keys.map(async (key) => {
        for (let n = 1; n <= 40; n++) {
          const g = n % 2 ? a : b;
          await g.ctx.db.transaction().execute((trx) => addJob(trx, 'purchase_offer_expire', { purchase_id: n }, { jobKey: key, runAt: LATER }));
          last[key] = n;
        }
      }),
    );
    await Promise.all([a.flushJobs(), b.flushJobs()]);
    for (const key of keys) {
      const rows = await jobs(a.ctx.db, key);
      expect(rows.map((r) => r.payload)).toEqual([{ purchase_id: last[key] }]);
    }
    expect(Number((await sql<{ n: number }>`select count(*)::int as n from job_outbox`.execute(a.ctx.db)).rows[0].n)).toBe(0);
  });
});

describe('crash safety', () => {
  it('rows written while no relay runs stay in the outbox and are moved by the next one (the poll)', async () => {
    const databaseUrl = await freshDatabase();
    // A writer with no relay at all (as the CLI, or an instance that died before its relay ran).
    const pool = createPool(databaseUrl, 2);
    const db = createDb(pool);
    try {
      await addJob(db, 'purchase_offer_expire', { purchase_id: 9 }, { jobKey: 'crash:1', runAt: LATER });
      expect(await outboxCount(db, 'crash:1')).toBe(1);
      const g = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0', JOB_RELAY_POLL_MS: '50' }, { databaseUrl, worker: false });
      try {
        await eventually(async () => (await jobs(db, 'crash:1')).length === 1, 5_000, 20);
        expect(await outboxCount(db, 'crash:1')).toBe(0);
      } finally {
        await g.stop();
      }
    } finally {
      await db.destroy();
    }
  });
});

describe('after-commit taps (src/db/commit-taps.ts)', () => {
  it('fire after the commit of a transaction that named the marker, never after a rollback, at once outside a transaction', async () => {
    const taps = new CommitTaps();
    const pool = createPool(a.databaseUrl, 2);
    const db = createDb(pool, taps);
    const seen: string[] = [];
    taps.on(JOB_OUTBOX, () => seen.push('fired'));
    try {
      await db.transaction().execute(async (trx) => {
        await addJob(trx, 'purchase_offer_expire', { purchase_id: 11 }, { jobKey: 'tap:1', runAt: LATER });
        await sql`select 1`.execute(trx);
        seen.push('before commit');
      });
      expect(seen).toEqual(['before commit', 'fired']);
      await db.transaction().execute((trx) => sql`select 1`.execute(trx));
      expect(seen).toHaveLength(2); // no marker, no wake-up
      await db
        .transaction()
        .execute(async (trx) => {
          await addJob(trx, 'purchase_offer_expire', { purchase_id: 12 }, { jobKey: 'tap:2' });
          throw new Error('undo');
        })
        .catch(() => {});
      expect(seen).toHaveLength(2);
      await addJob(db, 'purchase_offer_expire', { purchase_id: 13 }, { jobKey: 'tap:3', runAt: LATER });
      expect(seen).toEqual(['before commit', 'fired', 'fired']);
    } finally {
      await db.destroy();
    }
  });
});

describe('a job the queue refuses', () => {
  it('is set aside in job_outbox_failed with the error; the jobs before and after it still move, in order', async () => {
    const long = 'x'.repeat(200); // graphile-worker refuses a task name over 128 characters
    await sql`insert into job_outbox (task, payload, run_at, job_key) values
      ('purchase_offer_expire', '{"n":1}', ${LATER}, 'poison:before'),
      (${long}, '{"n":2}', ${LATER}, 'poison:bad'),
      ('purchase_offer_expire', '{"n":3}', ${LATER}, 'poison:after')`.execute(a.ctx.db);
    await a.flushJobs();
    expect((await jobs(a.ctx.db, 'poison:before')).map((j) => j.payload)).toEqual([{ n: 1 }]);
    expect((await jobs(a.ctx.db, 'poison:after')).map((j) => j.payload)).toEqual([{ n: 3 }]);
    expect(await jobs(a.ctx.db, 'poison:bad')).toEqual([]);
    const failed = (await sql<{ task: string; job_key: string; error: string }>`select task, job_key, error from job_outbox_failed where job_key like 'poison:%'`.execute(a.ctx.db)).rows;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ task: long, job_key: 'poison:bad' });
    expect(failed[0].error).toMatch(/check|violat|constraint|long/i);
    expect(Number((await sql<{ n: number }>`select count(*)::int as n from job_outbox`.execute(a.ctx.db)).rows[0].n)).toBe(0);

    // and the relay goes on: the next job moves as usual (in one batch again)
    await addJob(a.ctx.db, 'purchase_offer_expire', { purchase_id: 99 }, { jobKey: 'poison:next', runAt: LATER });
    await a.flushJobs();
    expect(await jobs(a.ctx.db, 'poison:next')).toHaveLength(1);
  });
});
