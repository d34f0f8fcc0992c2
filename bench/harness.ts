// What the bench's orchestrator and its scenarios share: the admin token the gateway is started
// with, the load generator (autocannon in its own process) and a JSON call for setup.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult, LoadSpec } from './load.js';

const exec = promisify(execFile);
export const DURATION_S = Number(process.env.BENCH_S ?? 8);
export const ADMIN = 'bench-admin-token-0123456789abcdef';
/**
 * BENCH_PG_BY=calls: pg_stat_statements listed most frequent first (the round trips), not by time;
 * =plan: by planning time (not counted in the execution time: a statement planned at every call).
 */
export const PG_STATEMENTS_ORDER = process.env.BENCH_PG_BY === 'calls' ? 'calls' : process.env.BENCH_PG_BY === 'plan' ? 'total_plan_time' : 'total_exec_time';
/** BENCH_PG_TOPLEVEL=1: only the statements clients sent, not those run inside functions and triggers. */
export const PG_STATEMENTS_NESTED = process.env.BENCH_PG_TOPLEVEL !== '1';

let loads = 0;

/** Runs autocannon in its own process. */
export async function load(spec: Omit<LoadSpec, 'durationS'> & { durationS?: number }): Promise<LoadResult> {
  const full: LoadSpec = { durationS: DURATION_S, ...spec };
  const file = path.join(os.tmpdir(), `bench-load-${process.pid}-${++loads}.json`); // too big for argv; one per run (two may run at once)
  await fs.writeFile(file, JSON.stringify(full));
  try {
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', path.resolve('bench/load.ts'), file], { maxBuffer: 1 << 26 });
    return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** JSON over HTTP from the orchestrator (setup only, never measured). */
export async function call(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: Object.fromEntries(res.headers) as http.IncomingHttpHeaders };
}
