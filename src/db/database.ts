import pg from 'pg';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { tapCommits, type CommitTaps } from './commit-taps.js';
import type { DB } from './types.js';
import { registerPool, runPreparedByName } from './prepared.js';

// int8 (bigint) and numeric come back as strings by default; our money is integer mills well
// inside the safe-integer range, so parse them as numbers (and refuse silently-rounded values).
pg.types.setTypeParser(20, (v: string) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`int8 value out of safe range: ${v}`);
  return n;
});
pg.types.setTypeParser(1700, (v: string) => Number(v));

export type Db = Kysely<DB>;
/** A transaction; repository functions that take one run inside the caller's unit of work. */
export type Trx = Transaction<DB>;

export function createPool(url: string, max = 20): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    runPreparedByName(client);
  });
  return pool;
}

/** PostgreSQL through `pool`; `taps` (optional) fire after the commits of statements naming their marker. */
export function createDb(pool: pg.Pool, taps?: CommitTaps): Db {
  class TappedPostgresDialect extends PostgresDialect {
    override createDriver() {
      return tapCommits(super.createDriver(), taps!);
    }
  }
  const db = new Kysely<DB>({ dialect: taps ? new TappedPostgresDialect({ pool }) : new PostgresDialect({ pool }) });
  registerPool(db, pool);
  return db;
}

export async function ping(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** Postgres unique violation (optionally on a named constraint). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (!constraint || e.constraint === constraint);
}

export function isCheckViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23514' && e.constraint === constraint;
}

/** Settings of the server that let an acknowledged commit be lost in a crash (empty: durable). */
export async function nonDurableSettings(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'full_page_writes')`.execute(db);
  return rows.filter((r) => r.setting === 'off').map((r) => `${r.name}=off`);
}
