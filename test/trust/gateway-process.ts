// `npm start` as a child process (its own process group, so a test can kill -9 the whole group:
// Node, the embedded PostgreSQL and its watchdog), with small HTTP helpers against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

export const PROCESS_ADMIN_TOKEN = 'trust-admin-token-0123456789abcdef';

/** Short timers, so records left mid-flight (by a kill, or a database gone away) end within seconds. */
export const SHORT_TIMERS = {
  OFFER_TTL_SECONDS: '4',
  HOLD_SECONDS_CSGO: '2',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1,1,1,1,1',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_LEASE_MARGIN_MS: '500',
  WEBHOOK_SWEEP_INTERVAL_MS: '500',
  JOB_LOCK_TIMEOUT_MS: '3000',
  DEPOSIT_TIMEOUT_MS: '2000',
} as const;

export interface GatewayProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  url: string;
  output(): string;
  exited: Promise<number | null>;
  /**
   * kill -9 of everything (a machine crash): Node's process group, and the embedded PostgreSQL and
   * its watchdog, which run in process groups of their own (found by DATA_DIR in their command line).
   */
  killGroup(): void;
}

/**
 * `viaShell`: started by a shell in the same process group, as `npm start` is, so a kill of the
 * group leaves the gateway an orphan that init reaps when it gets to it (a zombie meanwhile).
 */
export function spawnGateway(opts: { dataDir?: string; port: number; env?: Record<string, string>; viaShell?: boolean }): GatewayProcess {
  const argv = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child = spawn(opts.viaShell ? '/bin/sh' : argv[0]!, opts.viaShell ? ['-c', '"$@"; exit $?', 'sh', ...argv] : argv.slice(1), {
    env: {
      ...process.env,
      DATA_DIR: opts.dataDir ?? '',
      PORT: String(opts.port),
      LOG_LEVEL: 'warn',
      SANDBOX_CATALOGUE_SIZE: '300',
      DATABASE_URL: '',
      ADMIN_TOKEN: PROCESS_ADMIN_TOKEN,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    pid: child.pid!,
    port: opts.port,
    url: `http://127.0.0.1:${opts.port}`,
    output: () => out,
    exited,
    killGroup() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      for (const pid of opts.dataDir ? processesWith(opts.dataDir) : []) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    },
  };
}

/** Resolves once the gateway prints its banner; rejects with its output if it exits first. */
export async function ready(gw: GatewayProcess, timeoutMs = 90_000): Promise<GatewayProcess> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void gw.exited.then((c) => (exitCode = c));
  while (!/database\s+(embedded|external)/.test(gw.output())) {
    if (exitCode !== undefined) throw new Error(`gateway exited with ${exitCode}:\n${gw.output()}`);
    if (Date.now() > deadline) throw new Error(`gateway did not start within ${timeoutMs} ms:\n${gw.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return gw;
}

export async function http(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; key?: string; admin?: boolean; timeoutMs?: number } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.admin) headers.authorization = `Bearer ${PROCESS_ADMIN_TOKEN}`;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

/** Pids of live processes whose command line contains `needle` (e.g. a DATA_DIR). */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (cmd.includes(needle) && !/\) Z /.test(state)) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
