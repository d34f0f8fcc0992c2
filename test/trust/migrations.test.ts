// Immutable migrations: checksums stored with each applied file, a changed file refused, and
// databases created before the in-place edits of 002–004 upgraded to today's schema by 006.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { HISTORICAL_CHECKSUMS, migrate, migrationChecksum } from '../../src/db/migrate.js';
import { StartupError } from '../../src/db/startup-error.js';
import { emptyDatabase, freshDatabase } from '../helpers.js';

const CURRENT = path.resolve('src/db/migrations');
const LEGACY = path.resolve('test/trust/fixtures/legacy-migrations');
const pools: pg.Pool[] = [];
const tmp: string[] = [];
afterAll(async () => {
  for (const p of pools) await p.end();
  for (const d of tmp) await fs.rm(d, { recursive: true, force: true });
});

function pool(url: string): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max: 3 });
  p.on('error', () => {});
  p.on('connect', (c) => c.on('error', () => {}));
  pools.push(p);
  return p;
}

/** Everything a migration defines, independent of column order (ALTER appends columns). */
async function schema(p: pg.Pool): Promise<Record<string, string[]>> {
  const q = async (text: string) => (await p.query(text)).rows.map((r) => Object.values(r).join(' | ')).sort();
  return {
    columns: await q(`select table_name, column_name, data_type, is_nullable, coalesce(column_default, '')
                        from information_schema.columns where table_schema = 'public'`),
    indexes: await q(`select indexname, indexdef from pg_indexes where schemaname = 'public'`),
    constraints: await q(`select c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) from pg_constraint c
                            join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public'`),
    functions: await q(`select p.proname, pg_get_functiondef(p.oid) from pg_proc p
                          join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'`),
    triggers: await q(`select tgname, pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid
                         join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and not t.tgisinternal`),
  };
}

/** A database as the commits before the in-place edits left it: old contents, names only. */
async function legacyDatabase(): Promise<pg.Pool> {
  const p = pool(await emptyDatabase('legacy'));
  await p.query('create table schema_migrations (name text primary key, applied_at timestamptz not null default now())');
  for (const name of ['001_foundation.sql', '002_deposits.sql', '003_purchases.sql', '004_webhooks.sql', '005_hosted.sql']) {
    const dir = (await fs.access(path.join(LEGACY, name)).then(() => true, () => false)) ? LEGACY : CURRENT;
    await p.query(await fs.readFile(path.join(dir, name), 'utf8'));
    await p.query('insert into schema_migrations (name) values ($1)', [name]);
  }
  return p;
}

async function withChangedFile(name: string, change: (text: string) => string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-migrations-'));
  tmp.push(dir);
  for (const f of await fs.readdir(CURRENT)) await fs.copyFile(path.join(CURRENT, f), path.join(dir, f));
  await fs.writeFile(path.join(dir, name), change(await fs.readFile(path.join(CURRENT, name), 'utf8')));
  return dir;
}

describe('migrations', () => {
  it('a database created before the in-place edits of 002, 003 and 004 upgrades to exactly today\'s schema', async () => {
    const legacy = await legacyDatabase();
    // Live and finished deposits of the old schema: the live one's asset becomes reserved.
    const m = await legacy.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret)
                                  values ('old', 'h', 'sk_', 's') returning id`);
    const live = await legacy.query(`insert into deposits (merchant_id, flow, status, game, partner)
                                     values ($1, 'inventory', 'active', 'csgo', 12345678) returning id`, [m.rows[0].id]);
    const done = await legacy.query(`insert into deposits (merchant_id, flow, status, game, partner)
                                     values ($1, 'inventory', 'completed', 'csgo', 12345678) returning id`, [m.rows[0].id]);
    for (const d of [live.rows[0].id, done.rows[0].id]) {
      await legacy.query(`insert into deposit_items (deposit_id, asset_id, market_hash_name, price) values ($1, '777', 'AK', 10)`, [d]);
    }
    expect((await legacy.query(`select 1 from information_schema.columns where table_name = 'catalogue_clock' and column_name = 'retained_from'`)).rowCount).toBe(1);

    const later = (await fs.readdir(CURRENT)).filter((f) => f.endsWith('.sql') && f > '006_~').sort();
    expect(await migrate(legacy)).toEqual(['006_upgrade_and_worker_heartbeats.sql', ...later]);

    const today = pool(await freshDatabase());
    expect(await schema(legacy)).toEqual(await schema(today));
    const sums = (await legacy.query('select name, checksum from schema_migrations order by name')).rows;
    const files = (await fs.readdir(CURRENT)).filter((f) => f.endsWith('.sql')).sort();
    expect(sums.map((r) => r.name)).toEqual(files);
    for (const r of sums) expect(r.checksum).toBe(migrationChecksum(await fs.readFile(path.join(CURRENT, r.name), 'utf8')));
    const items = (await legacy.query('select deposit_id, game, partner, reserved from deposit_items order by id')).rows;
    expect(items).toEqual([
      { deposit_id: live.rows[0].id, game: 'csgo', partner: 12345678, reserved: true },
      { deposit_id: done.rows[0].id, game: 'csgo', partner: 12345678, reserved: false },
    ]);
    // The upgraded triggers work: a listing update uses the function 006 created.
    await legacy.query(`insert into listings (id, game, name, base_price, source) values ('ab', 'csgo', 'X', 5, 'seed')`);
    await legacy.query(`update listings set base_price = 6 where id = 'ab'`);
    expect((await legacy.query(`select type from catalogue_events where listing_id = 'ab' order by id`)).rows.map((r) => r.type)).toEqual(['upsert', 'upsert']);

    expect(await migrate(legacy)).toEqual([]);
  }, 60_000);

  // Later migrations may redefine what 006 defines, so 006 is checked against the files up to it.
  it('006 changes nothing on a database created from today\'s files up to 006', async () => {
    const p = pool(await emptyDatabase());
    for (const name of (await fs.readdir(CURRENT)).filter((f) => f.endsWith('.sql') && f <= '006_~').sort()) {
      await p.query(await fs.readFile(path.join(CURRENT, name), 'utf8'));
    }
    const before = await schema(p);
    await p.query(await fs.readFile(path.join(CURRENT, '006_upgrade_and_worker_heartbeats.sql'), 'utf8'));
    expect(await schema(p)).toEqual(before);
  });

  it('the historical checksums are those of the files in the legacy fixtures and never today\'s', async () => {
    for (const name of await fs.readdir(LEGACY)) {
      if (!name.endsWith('.sql')) continue;
      expect(HISTORICAL_CHECKSUMS[name]).toContain(migrationChecksum(await fs.readFile(path.join(LEGACY, name), 'utf8')));
    }
    for (const [name, sums] of Object.entries(HISTORICAL_CHECKSUMS)) {
      expect(sums).not.toContain(migrationChecksum(await fs.readFile(path.join(CURRENT, name), 'utf8')));
    }
    // A CRLF checkout is the same migration.
    expect(migrationChecksum('a\r\nb\n')).toBe(migrationChecksum('a\nb\n'));
  });

  it('a database that applied an old content of 003 (checksum recorded) is accepted: 006 covers it', async () => {
    const p = pool(await freshDatabase());
    await p.query(`update schema_migrations set checksum = $1 where name = '003_purchases.sql'`, [HISTORICAL_CHECKSUMS['003_purchases.sql']![0]]);
    expect(await migrate(p)).toEqual([]);
  });

  it('a database that applied the branch-only first content of 010 is accepted and 018 adds the tables it lacked', async () => {
    const p = pool(await freshDatabase());
    const today = await schema(p);
    await p.query('drop table steam_instances; drop table steam_received_assets');
    await p.query(`update schema_migrations set checksum = $1 where name = '010_steam_bots.sql'`, [migrationChecksum(await fs.readFile(path.join(LEGACY, '010_steam_bots.sql'), 'utf8'))]);
    expect(await migrate(p)).toEqual([]);
    // As on such a database at the time: 018 made the tables, then the later migrations that change them ran.
    for (const name of (await fs.readdir(CURRENT)).filter((f) => f.endsWith('.sql') && f >= '018_').sort()) {
      const text = await fs.readFile(path.join(CURRENT, name), 'utf8');
      if (name.startsWith('018_') || /alter table (steam_instances|steam_received_assets)\b/.test(text)) await p.query(text);
    }
    expect(await schema(p)).toEqual(today);
  });

  it('an applied migration whose file changed is refused at start, naming it and the fix', async () => {
    const p = pool(await freshDatabase());
    const dir = await withChangedFile('005_hosted.sql', (t) => `${t}\nalter table deposits add column sneaky text;\n`);
    const err = await migrate(p, () => {}, dir).catch((e) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect(err.message).toMatch(/^migration 005_hosted\.sql was changed after it was applied \(checksum [0-9a-f]{12}… applied, [0-9a-f]{12}… on disk\); restore the released file and put the change in a new migration$/);
    // Nothing ran: the column is not there.
    expect((await p.query(`select 1 from information_schema.columns where column_name = 'sneaky'`)).rowCount).toBe(0);
    // A whitespace-only edit is a change too; an old content of another file does not pass for this one.
    await expect(migrate(p, () => {}, await withChangedFile('001_foundation.sql', (t) => `${t} `))).rejects.toThrow('migration 001_foundation.sql was changed');
    await p.query(`update schema_migrations set checksum = $1 where name = '005_hosted.sql'`, [HISTORICAL_CHECKSUMS['003_purchases.sql']![0]]);
    await expect(migrate(p)).rejects.toThrow('migration 005_hosted.sql was changed');
  });

  it('a migration applied by a newer version that this one does not have is refused', async () => {
    const p = pool(await freshDatabase());
    await p.query(`insert into schema_migrations (name, checksum) values ('999_future.sql', 'x')`);
    await expect(migrate(p)).rejects.toThrow('the database has migration 999_future.sql applied, which this version does not have');
  });

  it('the CLI refuses a changed migration with one line and exit code 1', async () => {
    const url = await freshDatabase();
    const p = pool(url);
    await p.query(`update schema_migrations set checksum = 'deadbeefdeadbeef' where name = '002_deposits.sql'`);
    const r = await promisify(execFile)(process.execPath, ['bin/gateway.mjs', 'ledger', 'verify'], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
    }).then(() => ({ code: 0, stderr: '' }), (e) => ({ code: e.code as number, stderr: e.stderr as string }));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error: migration 002_deposits\.sql was changed after it was applied \(checksum deadbeefdead… applied/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});
