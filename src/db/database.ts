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

/**
 * `connectTimeoutMs`: how long a query waits for a connection (a new one, or a free one of a full
 * pool) before it fails, so a database that does not answer (a failover's address not moved yet)
 * is an error the caller can answer (503), never a request hanging. Connections use TCP keepalive.
 */
export function createPool(url: string, max = 20, connectTimeoutMs = 10_000): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: connectTimeoutMs, keepAlive: true });
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

// What says the database is away for now (restarting, failing over, unreachable) rather than that
// the statement was wrong: the caller may retry the same request shortly.
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EAI_AGAIN', 'ECONNABORTED']);
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is stopping (pg_ctl stop/restart -m fast)
  '57P02', // crash_shutdown: another backend crashed, the server is resetting
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '53300', // too_many_connections: every slot taken (clients reconnecting after a restart)
  '25006', // read_only_sql_transaction: a standby answers at the address (failover not done yet)
]);
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // pg: the socket closed under a query, or on connect (connection timeout)
  /^timeout exceeded when trying to connect/, // pg-pool: no connection within connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/,
];

/**
 * Whether `err` says the database is unavailable for now (the request may be retried): a refused,
 * reset or timed-out connection, a server shutting down or starting (57P01, 57P02, 57P03), a
 * connection exception (SQLSTATE class 08), a standby refusing writes, a pool that found no
 * connection in time. Looks through `cause` and AggregateError's `errors` (both addresses refused).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code)) return true;
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string))) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
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
