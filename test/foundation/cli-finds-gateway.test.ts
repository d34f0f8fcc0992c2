// The CLI works on the gateway's database or not at all: a DATA_DIR or DATABASE_URL with no gateway
// database is one line and exit 1 (nothing created); every command says what it does; lists are
// aligned tables for people (--json for scripts); `bot list` shows the bots the console shows.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { cliGateway } from '../cli-run.js';

const exec = promisify(execFile);
const state = cliGateway();

async function gateway(args: string[], env: Record<string, string>) {
  try {
    const r = await exec(process.execPath, ['bin/gateway.mjs', ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e: any) {
    return { code: e.code as number, out: e.stdout as string, err: e.stderr as string };
  }
}

describe('gateway CLI finds its gateway', () => {
  it('refuses a DATA_DIR without a gateway database, and creates nothing there', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-nodb-'));
    const r = await gateway(['merchant', 'invite', '1', '--email', 'a@b.example'], { DATA_DIR: dir, DATABASE_URL: '' });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`no gateway database in ${dir} — set DATA_DIR or DATABASE_URL to the gateway's`);
    expect(await fs.readdir(dir)).toEqual([]);
    await fs.rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('refuses a DATABASE_URL whose database the gateway never migrated, and leaves it empty', async () => {
    const server = inject('pgServerUrl');
    const name = `cli_empty_${process.pid}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    try {
      const r = await gateway(['merchant', 'list'], { DATABASE_URL: url.toString() });
      expect(r.code).toBe(1);
      expect(r.err).toContain('no gateway database at DATABASE_URL');
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      const tables = await c.query(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`);
      await c.end();
      expect(tables.rows[0].n).toBe(0);
    } finally {
      await admin.query(`drop database if exists ${name}`);
      await admin.end();
    }
  }, 60_000);

  it('every command and subcommand has a description', async () => {
    const undocumented: string[] = [];
    for (const group of ['', 'merchant', 'operator', 'withdrawal', 'ledger', 'webhook', 'catalogue', 'bot']) {
      const help = (await gateway(group ? [group, '--help'] : ['--help'], {})).out;
      const commands = help.split('Commands:')[1] ?? '';
      for (const line of commands.split('\n')) {
        if (!/^ {2}\S/.test(line)) continue; // continuation lines of a wrapped description
        if (!/^ {2}\S.*\S {2,}\S/.test(line)) undocumented.push(`${group} ${line.trim()}`.trim());
      }
      expect(commands.length, group).toBeGreaterThan(0);
    }
    expect(undocumented).toEqual([]);
  }, 120_000);

  it('lists print an aligned table without an index column or [Object]; --json the rows; bot list has the sandbox bots', async () => {
    const env = { DATABASE_URL: state.databaseUrl };
    await gateway(['merchant', 'create', '--name', 'Table shop', '--ip', '203.0.113.7'], env);
    const human = await gateway(['merchant', 'list'], env);
    expect(human.code).toBe(0);
    const [header, rule, ...rows] = human.out.trimEnd().split('\n');
    expect(header).toMatch(/^id\s+/);
    expect(rule).toMatch(/^-+( {2}-+)+$/);
    expect(human.out).not.toContain('(index)');
    expect(human.out).not.toContain('[Object]');
    expect(rows.some((r) => r.includes('Table shop') && r.includes('["203.0.113.7"]'))).toBe(true);
    // Columns line up: every row's second column starts where the header's does.
    const second = header!.search(/ {2}\S/) + 2;
    for (const r of rows) expect(r.slice(second - 2, second), r).toBe('  ');

    const bots = JSON.parse((await gateway(['--json', 'bot', 'list'], env)).out) as { kind: string; status: string }[];
    expect(bots.length).toBeGreaterThan(0);
    expect(bots.every((b) => b.kind === 'sandbox')).toBe(true);
    const table = (await gateway(['bot', 'list'], env)).out;
    expect(table).toMatch(/^id\s+name\s+kind/);
    expect(table).toContain('sandbox');
  }, 120_000);
});
