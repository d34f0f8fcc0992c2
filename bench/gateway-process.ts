// The gateway for the benchmark, started exactly as `npm start` starts it (`node bin/start.mjs`:
// the compiled dist/main.js, built first when stale; the measured pid is the gateway itself), and
// the start-to-ready measurement. A checkout without a build step (BENCH_GATEWAY_DIR of an older
// main), or runner 'tsx', runs src/main.ts under tsx as `npm start` used to.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/db/embedded.js';

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode} before ready`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('gateway not ready in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export type Runner = 'compiled' | 'tsx';

export async function startGateway(dir: string, env: Record<string, string>, timeoutMs = 300_000, runner: Runner = 'compiled'): Promise<{ child: ChildProcess; url: string; readyMs: number; dataDir: string }> {
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-bench-data-')));
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  // BENCH_CPU_PROF=<dir>: the gateway writes a V8 CPU profile there when it stops (bench/profile-summary.ts reads it).
  const prof = env.DATA_DIR === undefined && process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
  const compiled = runner === 'compiled' && existsSync(path.join(dir, 'bin', 'start.mjs'));
  const child = spawn(process.execPath, [...prof, ...(compiled ? ['bin/start.mjs'] : ['--import', 'tsx', 'src/main.ts'])], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PLATFORM: 'sandbox', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitReady(url, child, timeoutMs);
  return { child, url, readyMs: Math.round(performance.now() - t0), dataDir };
}

export async function stopProcess(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

async function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

export const peakRssMb = (pid: number) => procStatusMb(pid, 'VmHWM');

/** `npm start` on the embedded database: a first start on an empty DATA_DIR, then a restart on it. */
export async function startToReady(dir: string, adminToken: string, runner: Runner = 'compiled'): Promise<{ firstMs: number; againMs: number; idleRssMb: number }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-bench-start-'));
  try {
    const first = await startGateway(dir, { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken }, undefined, runner);
    await stopProcess(first.child);
    const again = await startGateway(dir, { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken }, undefined, runner);
    await new Promise((r) => setTimeout(r, 2000));
    const idleRssMb = await procStatusMb(again.child.pid!, 'VmRSS');
    await stopProcess(again.child);
    return { firstMs: first.readyMs, againMs: again.readyMs, idleRssMb };
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
