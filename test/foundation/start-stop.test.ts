// `npm start` as a user runs it (bin/start.mjs: the compiled build, built first when stale): a real
// process with its own embedded PostgreSQL under DATA_DIR, stopped by SIGINT, started again on the
// same data.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded.js';

const children: ChildProcess[] = [];
let dataDir: string;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

function startGatewayProcess(port: number): Promise<{ child: ChildProcess; output: () => string; stdout: () => string }> {
  const child = spawn(process.execPath, ['bin/start.mjs'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', SANDBOX_CATALOGUE_SIZE: '50', DATABASE_URL: '', ADMIN_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 90_000);
    child.stderr!.on('data', () => {
      if (/database\s+(embedded|external)/.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out, stdout: () => stdout });
      }
    });
    child.on('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${out}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));
}

describe('npm start', () => {
  it('starts with an embedded database, prints the demo merchant once, stops cleanly on SIGINT and reuses its data', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-start-'));
    const port = await freePort();
    const first = await startGatewayProcess(port);
    const key = /X-Api-Key\s+(\S+)/.exec(first.output())?.[1];
    expect(key).toMatch(/^sk_/);
    expect(first.output()).toMatch(/admin token\s+adm_/);

    const health = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(health.status).toBe(200);
    const balance = await fetch(`http://127.0.0.1:${port}/api/v1/merchant/balance`, { headers: { 'x-api-key': key! } });
    expect((await balance.json()).data.available).toBe(1000);

    first.child.kill('SIGINT');
    expect(await exited(first.child)).toBe(0);
    expect(first.output()).toContain('stopped cleanly');
    // stdout is the JSON log alone; the secrets shown once went to the terminal (stderr), not into it.
    const stdout = first.stdout();
    for (const line of stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
    expect(stdout).not.toContain(key!);
    expect(stdout).not.toMatch(/adm_|whsec_/);
    // The cluster is down: its pid file is gone.
    await expect(fs.access(path.join(dataDir, 'pg', 'postmaster.pid'))).rejects.toThrow();

    const second = await startGatewayProcess(port);
    expect(second.output()).not.toContain('demo merchant created');
    const again = await fetch(`http://127.0.0.1:${port}/api/v1/merchant/balance`, { headers: { 'x-api-key': key! } });
    expect(again.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
  }, 180_000);
});
