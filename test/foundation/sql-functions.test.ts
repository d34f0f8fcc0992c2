// The SQL functions and triggers are source files (src/db/functions/*.sql), recreated by migrate()
// after the migrations: the database holds exactly the functions of the files, each with the file's
// body, and the triggers the files create; no migration after 025 defines a function or trigger.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { freshDatabase } from '../helpers.js';

const FUNCTIONS = path.resolve('src/db/functions');
const MIGRATIONS = path.resolve('src/db/migrations');
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const p of pools) await p.end();
});

async function pool(): Promise<pg.Pool> {
  const p = new pg.Pool({ connectionString: await freshDatabase(), max: 2 });
  p.on('error', () => {});
  p.on('connect', (c) => c.on('error', () => {}));
  pools.push(p);
  return p;
}

/** name → body (the text between the $$ quotes) of every function the files define, and their triggers. */
async function fromFiles(): Promise<{ functions: Map<string, string>; triggers: string[] }> {
  const functions = new Map<string, string>();
  const triggers: string[] = [];
  for (const f of (await fs.readdir(FUNCTIONS)).filter((n) => n.endsWith('.sql'))) {
    const text = await fs.readFile(path.join(FUNCTIONS, f), 'utf8');
    for (const m of text.matchAll(/^create or replace function (\w+)\([\s\S]*?\$\$([\s\S]*?)\$\$/gm)) {
      expect(functions.has(m[1]!), `${m[1]} defined twice`).toBe(false);
      functions.set(m[1]!, m[2]!);
    }
    for (const m of text.matchAll(/^create trigger (\w+)/gm)) triggers.push(m[1]!);
    // One function per file, named as the file.
    expect([...text.matchAll(/^create or replace function (\w+)/gm)].map((m) => m[1])).toEqual([f.replace(/\.sql$/, '')]);
  }
  return { functions, triggers: triggers.sort() };
}

async function fromDatabase(p: pg.Pool): Promise<{ functions: Map<string, string>; triggers: string[] }> {
  const fns = await p.query(`select p.proname, p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                              where n.nspname = 'public'
                                and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`);
  const trg = await p.query(`select t.tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid
                              join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and not t.tgisinternal`);
  return { functions: new Map(fns.rows.map((r) => [r.proname, r.prosrc])), triggers: trg.rows.map((r) => r.tgname).sort() };
}

describe('SQL functions are source files', () => {
  it('the migrated database has exactly the functions of src/db/functions, each with its file\'s body, and their triggers', async () => {
    const files = await fromFiles();
    const db = await fromDatabase(await pool());
    expect([...db.functions.keys()].sort()).toEqual([...files.functions.keys()].sort());
    for (const [name, body] of files.functions) expect(db.functions.get(name), name).toBe(body);
    expect(db.triggers).toEqual(files.triggers);
  });

  it('deposit_transition_batch can set every column of deposits but the fixed ones (a key it does not list would be ignored)', async () => {
    const text = await fs.readFile(path.join(FUNCTIONS, 'deposit_transition_batch.sql'), 'utf8');
    const listed = /update deposits d\s+set \(([^)]*)\)/.exec(text)![1]!.split(',').map((c) => c.trim()).sort();
    const p = await pool();
    const cols = (await p.query(`select column_name from information_schema.columns where table_schema = 'public' and table_name = 'deposits'`)).rows
      .map((r) => r.column_name as string)
      .filter((c) => !['id', 'merchant_id', 'flow', 'created_at', 'updated_at'].includes(c))
      .sort();
    expect(listed).toEqual(cols);
  });

  it('no migration after 025 defines a function or a trigger (they go in src/db/functions)', async () => {
    for (const f of (await fs.readdir(MIGRATIONS)).filter((n) => n.endsWith('.sql') && n > '026')) {
      expect(await fs.readFile(path.join(MIGRATIONS, f), 'utf8'), f).not.toMatch(/create\s+(or\s+replace\s+)?(function|trigger)/i);
    }
  });

  it('a changed function file is applied at the next start, in one transaction; unchanged files are not applied again', async () => {
    const p = await pool();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-functions-'));
    try {
      for (const f of await fs.readdir(FUNCTIONS)) await fs.copyFile(path.join(FUNCTIONS, f), path.join(dir, f));
      const logs: string[] = [];
      await migrate(p, (m) => logs.push(m), MIGRATIONS, dir);
      expect(logs).toEqual([]);
      const file = path.join(dir, 'sale_price.sql');
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('1e-9::float8', '2e-9::float8'));
      await migrate(p, (m) => logs.push(m), MIGRATIONS, dir);
      expect(logs).toEqual(['recreated the SQL functions and triggers (src/db/functions)']);
      expect((await fromDatabase(p)).functions.get('sale_price')).toContain('2e-9');
      // A file that fails leaves everything as it was (one transaction).
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('2e-9::float8', '3e-9::float8'));
      await fs.writeFile(path.join(dir, 'zz_broken.sql'), 'create or replace function zz_broken() returns int language sql as $$ select nope $$;');
      await expect(migrate(p, () => {}, MIGRATIONS, dir)).rejects.toThrow(/^SQL function file zz_broken\.sql failed: /);
      expect((await fromDatabase(p)).functions.get('sale_price')).toContain('2e-9');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
