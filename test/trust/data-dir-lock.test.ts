// The DATA_DIR lock (Linux: an abstract unix socket): a live holder refuses a second start by pid;
// its death frees the lock at once, whatever becomes of its pid; a gateway of an older version,
// named by DATA_DIR/gateway.lock alone, is not started over; a name held by something that is no
// gateway does not keep DATA_DIR from starting for good.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir, lockName, processStartTime } from '../../src/db/embedded-host.js';
import { StartupError } from '../../src/db/startup-error.js';

const children: ChildProcess[] = [];
let root = '';
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  if (root) await fs.rm(root, { recursive: true, force: true });
});

/** A process holding the lock of `dataDir` (it prints "locked" once it has it). */
async function holder(dataDir: string): Promise<ChildProcess> {
  const code = `const { lockDataDir } = await import(${JSON.stringify(path.resolve('src/db/embedded-host.ts'))}); await lockDataDir(${JSON.stringify(dataDir)}); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  while (!out.includes('locked')) {
    if (child.exitCode !== null) throw new Error(`the holder exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

describe.runIf(os.platform() === 'linux')('the DATA_DIR lock', () => {
  it('refuses a live holder by pid, is free the moment it is killed, respects an older gateway named by the file, and outlasts a squatted name', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-lock-'));

    // A live holder: refused at once, naming it.
    const a = path.join(root, 'a');
    await fs.mkdir(a);
    const h = await holder(a);
    const refused = lockDataDir(a);
    await expect(refused).rejects.toThrow(StartupError);
    await expect(refused).rejects.toThrow(`another gateway (pid ${h.pid}) is using DATA_DIR ${a}`);
    // Killed: the kernel frees the name; the next lock is taken (its file still names the dead pid).
    h.kill('SIGKILL');
    await once(h, 'exit');
    const taken = await lockDataDir(a);
    expect(await fs.readFile(path.join(a, 'gateway.lock'), 'utf8')).toBe(`${process.pid} ${processStartTime(process.pid)}\n`);
    taken.release();
    await expect(fs.access(path.join(a, 'gateway.lock'))).rejects.toThrow();

    // A gateway of an older version: no socket, only DATA_DIR/gateway.lock naming a live process.
    const b = path.join(root, 'b');
    await fs.mkdir(b);
    const old = spawn('sleep', ['60']);
    children.push(old);
    await fs.writeFile(path.join(b, 'gateway.lock'), `${old.pid} ${processStartTime(old.pid!)}\n`);
    await expect(lockDataDir(b)).rejects.toThrow(`another gateway (pid ${old.pid}) is using DATA_DIR ${b}`);
    old.kill('SIGKILL');
    await once(old, 'exit');
    (await lockDataDir(b)).release();

    // The name bound by something else, no live gateway named: taken with the file after the wait.
    const c = path.join(root, 'c');
    await fs.mkdir(c);
    const squatter = net.createServer().listen({ path: await lockName(c), exclusive: true });
    await once(squatter, 'listening');
    try {
      const lock = await lockDataDir(c);
      expect(await fs.readFile(path.join(c, 'gateway.lock'), 'utf8')).toBe(`${process.pid} ${processStartTime(process.pid)}\n`);
      lock.release();
    } finally {
      squatter.close();
    }
  }, 60_000);
});
