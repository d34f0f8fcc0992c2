// The one mapping of "the database is away" (src/db/database.ts isDatabaseUnavailable, src/http/errors.ts
// appErrorOf): errors a real PostgreSQL and the pg driver raise when the server restarts, refuses or
// cannot give a connection are 503 service_unavailable with Retry-After; errors of the statement
// itself are not (they stay what they were: a 4xx from their own rules, or a 500).
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool, isDatabaseUnavailable } from '../../src/db/database.js';
import { freePort } from '../../src/db/embedded.js';
import { AppError, appErrorOf, DATABASE_RETRY_AFTER_SECONDS, httpStatusOf } from '../../src/http/errors.js';
import { freshDatabase } from '../helpers.js';

const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const p of pools) await p.end().catch(() => {});
});

async function errorOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('a database that is away', () => {
  it('is told from the errors a real server and the driver raise', async () => {
    const url = await freshDatabase();

    // Nothing listens on the port: ECONNREFUSED.
    const u = new URL(url);
    u.port = String(await freePort());
    const refused = await errorOf(async () => {
      const c = new pg.Client({ connectionString: u.toString() });
      await c.connect();
    });
    expect(isDatabaseUnavailable(refused)).toBe(true);

    // The server ends the session under a query (what a fast shutdown does to every backend): 57P01.
    const victim = new pg.Client({ connectionString: url });
    victim.on('error', () => {});
    await victim.connect();
    const pid = (await victim.query('select pg_backend_pid() as pid')).rows[0].pid;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const dying = errorOf(() => victim.query('select pg_sleep(30)'));
    await new Promise((r) => setTimeout(r, 200));
    await admin.query('select pg_terminate_backend($1)', [pid]);
    const terminated = await dying;
    expect((terminated as { code?: string }).code).toBe('57P01');
    expect(isDatabaseUnavailable(terminated)).toBe(true);
    // The same client used again: the driver's own error.
    const after = await errorOf(() => victim.query('select 1'));
    expect(isDatabaseUnavailable(after)).toBe(true);

    // A full pool that gives no connection within its timeout.
    const pool = createPool(url, 2, 200);
    pools.push(pool);
    const held = await Promise.all([pool.connect(), pool.connect()]);
    const timedOut = await errorOf(() => pool.query('select 1'));
    expect(isDatabaseUnavailable(timedOut)).toBe(true);
    for (const c of held) c.release();

    // Errors of the statement itself are not "away".
    await admin.query('create temporary table t (id int primary key)');
    await admin.query('insert into t values (1)');
    expect(isDatabaseUnavailable(await errorOf(() => admin.query('insert into t values (1)')))).toBe(false); // 23505
    expect(isDatabaseUnavailable(await errorOf(() => admin.query('select nonsense from')))).toBe(false); // 42601
    expect(isDatabaseUnavailable(await errorOf(() => admin.query(`select 'x'::int`)))).toBe(false); // 22P02
    expect(isDatabaseUnavailable(await errorOf(() => admin.query('select 1/0')))).toBe(false); // 22012
    await admin.end();
  });

  it('covers starting up, shutting down, connection exceptions, a standby, and both addresses refused', () => {
    for (const code of ['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '25006', '53300', 'ECONNRESET', 'ETIMEDOUT']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'both refused'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('b'), { code: '57P01' }) }))).toBe(true);
    for (const code of ['23505', '40001', '42P01', '22003', 'XX000']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('is answered 503 service_unavailable with Retry-After; our own errors pass through; anything else stays unmapped', () => {
    const mapped = appErrorOf(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
    expect(mapped).toBeInstanceOf(AppError);
    expect(httpStatusOf(mapped!)).toBe(503);
    expect(mapped!.headers).toEqual({ 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
    expect(mapped!.message).toBe('service unavailable');
    expect(mapped!.data).toEqual([{ field: 'database', code: 'service_unavailable', message: expect.any(String) }]);
    const ours = new AppError('not_found', 'not found error');
    expect(appErrorOf(ours)).toBe(ours);
    expect(appErrorOf(new Error('a bug'))).toBeUndefined();
  });
});
