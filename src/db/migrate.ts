// Applies src/db/migrations/*.sql in name order, each once, each in its own transaction, and
// stores a checksum with each: a released migration is immutable, so an applied file whose content
// changed is refused at start (schema changes are new files). A session advisory lock serialises
// concurrent starts of several instances on one database.
// Then the SQL functions and triggers of src/db/functions/*.sql (the source of every function: a
// migration holds tables, indexes, constraints and data moves) are recreated, all in one
// transaction, whenever their files differ from what the database last applied (schema_functions
// keeps the files' checksum, so an ordinary start takes no table lock for the triggers).
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { StartupError } from './startup-error.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const FUNCTIONS_DIR = fileURLToPath(new URL('./functions/', import.meta.url));
const LOCK_KEY = 727_001; // arbitrary, constant across instances

/**
 * Earlier contents of files that were edited in place before checksums existed (from git history).
 * A database that applied one of them is accepted: 006_upgrade_and_worker_heartbeats.sql (the deposits,
 * purchases and webhooks tables) and 018_steam_tables_if_missing.sql (the steam bots' tables) bring it to today's schema. Never add to this list: change the schema with a new file instead.
 */
export const HISTORICAL_CHECKSUMS: Readonly<Record<string, readonly string[]>> = {
  '002_deposits.sql': [
    '0d9ebe63634bd31131294a6b9aaff19486c31ba4474d20396d95f0db01cee688', // 53e479f
    '000c53ccabd1718695b7e6fdbb62f9258d85126756c246ce207e0bf83289dbd8', // f397a86
  ],
  '003_purchases.sql': [
    'bbebb0bbd4584bbd6701daf89c4814bf151c921ba7162709430a36fee2108ef8', // 10c45c0
    '510604a45c1ee892842fcddebab26f73aa8d62913654b176b9c490393e0fc492', // bfc3b73
    'e61a6e8514b864313c5f6c89db8cba97c9a9fe8cf931d4d4b5ac2a9f80c962a8', // d74ddb0
    'c9b76df8f7239e72bc9f369cdc12af46cfd7215f76e940e9e69523ed9aae2d31', // fd8742f
  ],
  '004_webhooks.sql': [
    '38e4a66861e69f4b83c716ee8510e86e5d514d8dd2a1a79232dc5c9ed90a070d', // 123560b
    '4ed83667dd21dcff7cb02fb7206e4f766b9c10336218a2863e15e12771470723', // 74fb6f4
  ],
  // Branch-only contents (issue-11 before its merge; main only had today's): 018 covers them.
  '010_steam_bots.sql': [
    '6b3123b12c1fe0478275b12ce689458516658478ab1b31aed3730a5798040c78', // 4351ae2
    '6deac41ac5dc1b9f32385aa900b8f5f42cba9f6b75d1a5cdc337eae398f7d114', // 6c73dc3
  ],
};

/** sha256 of the file with line endings normalised, so a CRLF checkout is the same migration. */
export function migrationChecksum(text: string): string {
  return crypto.createHash('sha256').update(text.replace(/\r\n/g, '\n'), 'utf8').digest('hex');
}

interface MigrationFile {
  name: string;
  text: string;
  checksum: string;
}

async function readSqlFiles(dir: string): Promise<MigrationFile[]> {
  const names = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    names.map(async (name) => {
      const text = await fs.readFile(path.join(dir, name), 'utf8');
      return { name, text, checksum: migrationChecksum(text) };
    }),
  );
}

/** Why the applied migrations cannot be run with these files, or undefined when they can. */
export function checkApplied(applied: ReadonlyMap<string, string>, files: readonly MigrationFile[]): string | undefined {
  const byName = new Map(files.map((f) => [f.name, f]));
  for (const [name, stored] of applied) {
    const file = byName.get(name);
    if (!file) {
      return `the database has migration ${name} applied, which this version does not have (a newer gateway migrated it); run that version or newer`;
    }
    if (stored !== file.checksum && !HISTORICAL_CHECKSUMS[name]?.includes(stored)) {
      return `migration ${name} was changed after it was applied (checksum ${stored.slice(0, 12)}… applied, ${file.checksum.slice(0, 12)}… on disk); restore the released file and put the change in a new migration`;
    }
  }
  return undefined;
}

export async function migrate(
  pool: pg.Pool,
  log: (msg: string) => void = () => {},
  dir: string = MIGRATIONS_DIR,
  functionsDir: string = FUNCTIONS_DIR,
): Promise<string[]> {
  await runWorkerMigrations({ pgPool: pool, logger: quietWorkerLogger });
  const files = await readSqlFiles(dir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now(), checksum text not null)',
    );
    await backfillChecksums(client, files);
    const rows = (await client.query('select name, checksum from schema_migrations')).rows as { name: string; checksum: string }[];
    const done = new Map(rows.map((r) => [r.name, r.checksum]));
    const refused = checkApplied(done, files);
    if (refused) throw new StartupError(refused);
    for (const file of files) {
      if (done.has(file.name)) continue;
      await client.query('begin');
      try {
        await client.query(file.text);
        await client.query('insert into schema_migrations(name, checksum) values ($1, $2)', [file.name, file.checksum]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new StartupError(`migration ${file.name} failed: ${(err as Error).message}`);
      }
      applied.push(file.name);
      log(`applied migration ${file.name}`);
    }
    if (await applyFunctions(client, functionsDir)) log('recreated the SQL functions and triggers (src/db/functions)');
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}

/** One checksum for the whole set of function files (names and contents). */
export function functionsChecksum(files: readonly MigrationFile[]): string {
  return migrationChecksum(files.map((f) => `-- ${f.name}\n${f.text}`).join('\n'));
}

/**
 * Recreates every function and trigger of `dir` (CREATE OR REPLACE FUNCTION; DROP TRIGGER IF EXISTS
 * + CREATE TRIGGER) in one transaction, when the files differ from the checksum the database keeps.
 * A function removed from the files is dropped by a migration. Answers whether it ran.
 */
async function applyFunctions(client: pg.PoolClient, dir: string): Promise<boolean> {
  const files = await readSqlFiles(dir);
  const checksum = functionsChecksum(files);
  await client.query(
    'create table if not exists schema_functions (id int primary key default 1 check (id = 1), checksum text not null, applied_at timestamptz not null default now())',
  );
  const { rows } = await client.query('select checksum from schema_functions');
  if ((rows[0] as { checksum: string } | undefined)?.checksum === checksum) return false;
  await client.query('begin');
  try {
    for (const file of files) {
      try {
        await client.query(file.text);
      } catch (err) {
        throw new StartupError(`SQL function file ${file.name} failed: ${(err as Error).message}`);
      }
    }
    await client.query(
      'insert into schema_functions (id, checksum) values (1, $1) on conflict (id) do update set checksum = excluded.checksum, applied_at = now()',
      [checksum],
    );
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw err;
  }
  return true;
}

/**
 * Databases from before checksums: add the column and record today's content for each applied
 * file. What those databases really applied is unknown, which is safe because the only files
 * edited in place (002–004) are brought to today's schema by 006.
 */
async function backfillChecksums(client: pg.PoolClient, files: readonly MigrationFile[]): Promise<void> {
  await client.query('alter table schema_migrations add column if not exists checksum text');
  const { rows } = await client.query('select name from schema_migrations where checksum is null');
  for (const { name } of rows as { name: string }[]) {
    const file = files.find((f) => f.name === name);
    if (file) await client.query('update schema_migrations set checksum = $2 where name = $1', [name, file.checksum]);
  }
  if (rows.length) await client.query('alter table schema_migrations alter column checksum set not null').catch(() => {});
}

// graphile-worker's schema migration says nothing: a failure is thrown to migrate()'s caller.
const quietWorkerLogger = new Logger(() => () => {});
