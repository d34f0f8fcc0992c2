// A load generator that keeps every request's own start and end (epoch ms), so that the caller can
// tell which requests fell inside a window it learns only later (a price refresh: from the admin
// API's refresh state). Runs in its own process (the caller's event loop serves stand-in sources);
// `connections` loops of one request after another until the parent sends 'stop', then it sends
// back the samples. Started by timedLoad() below (IPC).
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import http from 'node:http';
import { httpOnce, quantile } from './http-once.js';

export interface TimedSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
  connections: number;
}

/** [start, end, status] of one request; start and end in epoch ms. */
export type Sample = [number, number, number];

const now = () => performance.timeOrigin + performance.now();

async function run(spec: TimedSpec): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  const headers = { ...spec.headers, ...(body ? { 'content-type': 'application/json' } : {}) };
  const send = async () => (await httpOnce(spec.url, { agent, method: spec.method, headers, body })).status;
  const samples: Sample[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      const t0 = now();
      const status = await send();
      samples.push([t0, now(), status]);
    }
  };
  const loops = Array.from({ length: spec.connections }, loop);
  process.send!({ kind: 'started' });
  await new Promise<void>((r) => process.once('message', () => r()));
  running = false;
  await Promise.all(loops);
  process.send!({ kind: 'samples', samples }, () => process.exit(0));
}

/** Starts the load in its own process; stop() ends it and answers every request's sample. */
export async function timedLoad(spec: TimedSpec): Promise<{ stop(): Promise<Sample[]> }> {
  const child: ChildProcess = fork(path.resolve('bench/timed-load.ts'), [JSON.stringify(spec)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`timed load exited with ${code}`)));
  });
  return {
    stop: () =>
      new Promise<Sample[]>((resolve) => {
        child.once('message', (m: { samples: Sample[] }) => resolve(m.samples));
        child.send('stop');
      }),
  };
}

/** p50 / p99 (ms) and request rate of the samples wholly inside [from, to]. */
export function within(samples: readonly Sample[], from: number, to: number): { n: number; rps: number; p50: number; p99: number; bad: number } {
  const inside = samples.filter(([a, b]) => a >= from && b <= to);
  const ms = inside.map(([a, b]) => b - a).sort((x, y) => x - y);
  const pct = (q: number) => Math.round((quantile(ms, q) ?? NaN) * 10) / 10;
  return { n: inside.length, rps: Math.round((inside.length / Math.max(0.001, (to - from) / 1000)) * 10) / 10, p50: pct(0.5), p99: pct(0.99), bad: inside.filter((s) => s[2] !== 200).length };
}

if (process.send && process.argv[2]) void run(JSON.parse(process.argv[2]) as TimedSpec);
