// Whatever dies — the Node process, the embedded PostgreSQL, or both — the gateway comes back on
// the same DATA_DIR without help; two live gateways on one DATA_DIR are refused with one line;
// a DATA_DIR the postgres user cannot enter is a one-line error naming the directory and the fix.
import { once } from 'node:events';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedUrl, freePort } from '../../src/db/embedded.js';
import { assertReachable, postgresUser } from '../../src/db/embedded-host.js';
import { StartupError } from '../../src/db/startup-error.js';
import { http, processesWith, ready, spawnGateway, waitFor, type GatewayProcess } from './gateway-process.js';

const started: GatewayProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const g of started) g.killGroup();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function tempDir(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(d, 0o755); // mkdtemp makes it 0700: the postgres user must enter it
  dirs.push(d);
  return d;
}

function start(dataDir: string, port: number): GatewayProcess {
  const g = spawnGateway({ dataDir, port });
  started.push(g);
  return g;
}

async function topUp(g: GatewayProcess, reference: string) {
  return http(g.url, 'POST', '/api/admin/merchants/1/top-ups', { admin: true, body: { amount: 1.5, reference } });
}

async function references(g: GatewayProcess): Promise<number> {
  const res = await http(g.url, 'GET', '/api/admin/merchants/1/ledger?limit=100', { admin: true });
  expect(res.status).toBe(200);
  return res.body.data.length;
}

const postmasterPid = async (pgDir: string) => Number((await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
const isRoot = os.userInfo().uid === 0;

describe('restart after a crash', () => {
  it('is durable, and comes back after kill -9 of Node, of PostgreSQL, of Node and the watchdog, and of the whole group; refuses a second live gateway', async () => {
    const dataDir = path.join(await tempDir('gw-restart-'), 'data');
    const pgDir = path.join(dataDir, 'pg');
    const port = await freePort();

    // 1. kill -9 of the Node process only: the watchdog stops the cluster, it does not outlive it.
    const a = await ready(start(dataDir, port));
    // What npm start runs is durable: a commit is flushed before its answer.
    const pgPort = Number(await fs.readFile(path.join(dataDir, 'pg-port'), 'utf8'));
    const client = new pg.Client({ connectionString: await embeddedUrl(dataDir) });
    await client.connect();
    const settings = await client.query(`select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'full_page_writes') order by name`);
    await client.end();
    expect(settings.rows).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'full_page_writes', setting: 'on' },
      { name: 'synchronous_commit', setting: 'on' },
    ]);
    expect((await topUp(a, 'before-crash')).status).toBe(201);
    const entries = await references(a);
    process.kill(a.pid, 'SIGKILL');
    await a.exited;
    await waitFor(() => processesWith(pgDir).length === 0, 15_000, 'the orphaned cluster to stop');

    const b = await ready(start(dataDir, port));
    expect(await references(b)).toBe(entries);

    // 2. A second gateway on the same DATA_DIR while the first lives: one clear line, exit 1.
    const second = start(dataDir, await freePort());
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`gateway failed to start: another gateway (pid ${b.pid}) is using DATA_DIR ${dataDir}`);
    expect(second.output()).not.toMatch(/\n\s+at /);
    expect((await http(b.url, 'GET', '/readyz')).status).toBe(200);

    // 3. kill -9 of PostgreSQL under a live gateway: the gateway starts it again and serves.
    const oldPostmaster = await postmasterPid(pgDir);
    process.kill(oldPostmaster, 'SIGKILL');
    await waitFor(async () => (await http(b.url, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200 &&
      (await postmasterPid(pgDir).catch(() => 0)) !== oldPostmaster, 30_000, 'the cluster to come back');
    await waitFor(async () => (await topUp(b, 'after-pg-kill').catch(() => ({ status: 0 }))).status === 201, 15_000, 'a write to succeed');
    expect(await references(b)).toBe(entries + 1);

    // 4. kill -9 of Node and its watchdog: the cluster is left running; the next start stops it
    //    cleanly (pg_ctl stop -m fast) and starts its own.
    const orphan = await postmasterPid(pgDir);
    const watchdog = processesWith('gateway-pg-watchdog').filter((pid) => processesWith(pgDir).includes(pid));
    expect(watchdog.length).toBe(1);
    process.kill(watchdog[0]!, 'SIGKILL');
    process.kill(b.pid, 'SIGKILL');
    await b.exited;
    expect(processesWith(pgDir)).toContain(orphan);
    const c = await ready(start(dataDir, port));
    expect(processesWith(pgDir)).not.toContain(orphan);
    expect(await references(c)).toBe(entries + 1);

    // 5. kill -9 of everything (Node's group, PostgreSQL and the watchdog in groups of their own):
    //    stale gateway.lock and postmaster.pid. The lock is then made to name a live process that
    //    is not its owner (pid 1, another start time).
    c.killGroup();
    await c.exited;
    await waitFor(() => processesWith(pgDir).length === 0, 10_000, 'the group to die');
    await expect(fs.access(path.join(pgDir, 'postmaster.pid'))).resolves.toBeUndefined();
    await fs.writeFile(path.join(dataDir, 'gateway.lock'), '1 1\n');
    // Meanwhile another program took the cluster's remembered port: a free one is used instead.
    const squatter = net.createServer().listen(pgPort, '127.0.0.1');
    await once(squatter, 'listening');
    const d = await ready(start(dataDir, port));
    squatter.close();
    expect(Number(await fs.readFile(path.join(dataDir, 'pg-port'), 'utf8'))).not.toBe(pgPort);
    expect(await references(d)).toBe(entries + 1);

    // 6. Ctrl-C in a terminal (SIGINT to the whole group, PostgreSQL included) is a clean stop that
    //    leaves no process and no lock behind.
    process.kill(-d.pid, 'SIGINT');
    expect(await d.exited).toBe(0);
    expect(d.output()).toContain('stopped cleanly');
    await waitFor(() => processesWith(pgDir).length === 0, 10_000, 'the cluster to stop');
    await expect(fs.access(path.join(dataDir, 'gateway.lock'))).rejects.toThrow();
  }, 240_000);

  it('a DATA_DIR inside a directory the postgres user cannot enter is one line naming it and the fix', async () => {
    const outer = await tempDir('gw-private-');
    await fs.chmod(outer, 0o700);
    const g = start(path.join(outer, 'inner', 'data'), await freePort());
    const code = await g.exited;
    if (isRoot) {
      expect(code).toBe(1);
      expect(g.output()).toContain(`gateway failed to start: the postgres user (PostgreSQL does not run as root) cannot enter ${outer} (mode 0700)`);
      expect(g.output()).toContain(`chmod o+x ${outer}`);
      expect(g.output()).not.toMatch(/EACCES|\n\s+at /);
    } else {
      // Not root: PostgreSQL runs as this user, which can enter its own directory.
      expect(g.output()).not.toMatch(/EACCES/);
    }
  }, 120_000);

  it('binaries in a checkout the postgres user cannot reach are named with the fix', async () => {
    if (!isRoot) return expect(isRoot).toBe(false); // the check only applies when PostgreSQL runs as another user
    const outer = await tempDir('gw-checkout-');
    await fs.chmod(outer, 0o700);
    const bin = path.join(outer, 'node_modules', 'bin');
    await fs.mkdir(bin, { recursive: true });
    const check = () => assertReachable(bin, postgresUser(), `the PostgreSQL binaries (${bin})`, 'clone the project elsewhere');
    expect(check).toThrow(StartupError);
    expect(check).toThrow(`cannot enter ${outer} (mode 0700), which holds the PostgreSQL binaries (${bin}); run \`chmod o+x ${outer}\``);
    await fs.chmod(outer, 0o701);
    expect(check).not.toThrow();
  });
});
