// The embedded cluster's password is random per DATA_DIR, kept in DATA_DIR/pg-password (0600); the
// old fixed password no longer connects; a DATA_DIR made with the old fixed password (no file) gets a
// random one at its next start, its data intact.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPassword, runningEmbeddedUrl, startEmbeddedPostgres, type EmbeddedDb } from '../../src/db/embedded.js';

const FAST = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
const running: EmbeddedDb[] = [];
let root = '';
afterAll(async () => {
  for (const db of running) await db.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<EmbeddedDb> {
  const db = await startEmbeddedPostgres({ dataDir, testFlags: FAST });
  running.push(db);
  return db;
}

async function stop(db: EmbeddedDb): Promise<void> {
  await db.stop();
  running.splice(running.indexOf(db), 1);
}

async function query(url: string, text: string): Promise<any[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

/** The SQLSTATE of a connection attempt (undefined: it connected). */
async function connectError(url: string): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.end();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

const withPassword = (url: string, password: string) => {
  const u = new URL(url);
  u.password = password;
  return u.toString();
};

describe('the embedded database password', () => {
  it('is random per DATA_DIR, in a file only its owner reads; the old fixed one no longer connects, and an old DATA_DIR is upgraded', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-pg-password-'));
    await fs.chmod(root, 0o755); // the postgres user must enter it
    const dirA = path.join(root, 'a');
    const dirB = path.join(root, 'b');
    const [a, b] = await Promise.all([start(dirA), start(dirB)]);

    const passA = await embeddedPassword(dirA);
    const passB = await embeddedPassword(dirB);
    expect(passA).toMatch(/^[0-9a-f]{48}$/);
    expect(passB).toMatch(/^[0-9a-f]{48}$/);
    expect(passA).not.toBe(passB);
    for (const dir of [dirA, dirB]) {
      const st = await fs.stat(path.join(dir, 'pg-password'));
      expect(st.mode & 0o777).toBe(0o600);
      expect(st.uid).toBe(os.userInfo().uid);
    }
    expect(new URL(a.url).password).toBe(passA);
    expect(await connectError(a.url)).toBeUndefined();
    // 28P01: invalid_password. Neither the old constant nor the other DATA_DIR's password opens it.
    expect(await connectError(withPassword(a.url, 'gateway'))).toBe('28P01');
    expect(await connectError(withPassword(a.url, passB!))).toBe('28P01');
    // The CLI finds the running cluster with the file's password.
    expect(await runningEmbeddedUrl(dirA)).toBe(a.url);

    // An old-style DATA_DIR: the cluster's password is the old constant and there is no file.
    await query(a.url, `create table kept (v text); insert into kept values ('before the upgrade')`);
    await query(a.url, `alter role postgres password 'gateway'`);
    await stop(a);
    await fs.rm(path.join(dirA, 'pg-password'));
    const upgraded = await start(dirA);
    const passA2 = await embeddedPassword(dirA);
    expect(passA2).toMatch(/^[0-9a-f]{48}$/);
    expect(passA2).not.toBe(passA);
    expect((await fs.stat(path.join(dirA, 'pg-password'))).mode & 0o777).toBe(0o600);
    await expect(fs.access(path.join(dirA, 'pg-password.next'))).rejects.toThrow();
    expect(await connectError(withPassword(upgraded.url, 'gateway'))).toBe('28P01');
    expect(await query(upgraded.url, 'select v from kept')).toEqual([{ v: 'before the upgrade' }]);

    // A start that died between the ALTER and the file's rename: the pending password is the cluster's.
    await stop(upgraded);
    await fs.rename(path.join(dirA, 'pg-password'), path.join(dirA, 'pg-password.next'));
    const resumed = await start(dirA);
    expect(await embeddedPassword(dirA)).toBe(passA2);
    expect(await query(resumed.url, 'select v from kept')).toEqual([{ v: 'before the upgrade' }]);
    await stop(b);
  }, 240_000);
});
