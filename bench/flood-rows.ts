// Issue 22 point 5, the flood rows (shared by `npm run bench` and `npm run bench:flood`):
//   cost of a refusal — the gateway's refused hosted status door at full speed next to a bare
//     Fastify constant route, as req/s and as CPU µs per answer of each process (/proc ticks: what
//     the machine's other load disturbs far less than latency or req/s);
//   the flood — a second client (4 connections, a fixed 200 req/s) reads GET balance alone, then
//     while one client floods GET /api/v1/hosted/<token>/status at 1000 req/s on 300 connections;
//     its p50 during the flood over its p50 alone, same run (target ≤ 2). The second client keeps an
//     even pace (load.ts, LoadSpec.paced); the flood bursts. Every load comes from
//     bench/load.ts in its own process (harness.ts: load), never from the gateway's.
import { load } from './harness.js';
import type { LoadResult } from './load.js';
import type { Row } from './row.js';

export interface FloodEnv {
  gatewayUrl: string;
  /** A hosted page token (any state: the status door answers it). */
  token: string;
  /** The second client's API key. */
  calmKey: string;
  /** Bare Fastify (bench/baseline-server.ts) for the refusal's cost; absent: that part is skipped. */
  baselineUrl?: string;
  /** CPU µs used since the last call by the gateway and by the baseline server. */
  cpu?: { gateway(): Promise<number>; baseline(): Promise<number> };
}

const codesOf = (r: LoadResult) => Object.entries(r.statusCodes).map(([s, n]) => `${n} × ${s}`).join(', ');

function row(name: string, connections: number, r: LoadResult, extra: Partial<Row> = {}): Row {
  return { name, connections, rps: r.rps, p50: r.p50, p99: r.p99, bad: r.non2xx + r.errors + r.refused, ...extra };
}

/** CPU µs per answer of `fn`'s load, from `meter` (undefined without one). */
async function perAnswer(meter: (() => Promise<number>) | undefined, fn: () => Promise<LoadResult>): Promise<[LoadResult, number | undefined]> {
  await meter?.();
  const r = await fn();
  const us = meter ? (await meter()) / Math.max(1, r.requests) : undefined;
  return [r, us];
}

export async function refusalCostRows(env: FloodEnv): Promise<Row[]> {
  if (!env.baselineUrl) return [];
  const [bare, bareUs] = await perAnswer(env.cpu?.baseline, () => load({ url: env.baselineUrl!, connections: 50, paths: ['/const'] }));
  // As fast as answered: past the first second the address's bucket is empty and nearly all are 429.
  const [refused, refusedUs] = await perAnswer(env.cpu?.gateway, () => load({ url: env.gatewayUrl, connections: 50, paths: [`/api/v1/hosted/${env.token}/status`] }));
  const cpu = (us: number | undefined) => (us === undefined ? '' : `; ${Math.round(us)} µs CPU per answer`);
  return [
    row(`(a) bare Fastify constant route${cpu(bareUs)}`, 50, bare),
    row(`refused hosted status door, full speed (${codesOf(refused)}${cpu(refusedUs)})`, 50, { ...refused, non2xx: 0 }, {
      baseline: '(a)',
      ratio: refused.rps / Math.max(1, bare.rps),
      target: bareUs && refusedUs ? `CPU per answer ×${(refusedUs / bareUs).toFixed(2)} of (a)` : '',
    }),
  ];
}

export async function floodRows(env: FloodEnv): Promise<Row[]> {
  // The second client at an even 200 req/s (load.ts, LoadSpec.paced); the flood bursts as autocannon's
  // rate mode does: each second's 1000 requests sent at once at its start.
  const calm = () => load({ url: env.gatewayUrl, connections: 4, rate: 200, paced: true, paths: ['/api/v1/merchant/balance'], headers: { 'x-api-key': env.calmKey } });
  const idle = await calm();
  const [flood, busy] = await Promise.all([load({ url: env.gatewayUrl, connections: 300, rate: 1000, paths: [`/api/v1/hosted/${env.token}/status`] }), calm()]);
  // The same flood aimed at the bare Fastify server instead: what the load generator's own CPU (on the
  // same cores) does to the second client, apart from anything the gateway does with the flood.
  const elsewhere = env.baselineUrl
    ? await Promise.all([load({ url: env.baselineUrl, connections: 300, rate: 1000, paths: ['/const'] }), calm()]).then(([, r]) => r)
    : undefined;
  return [
    row(`second client: GET balance alone (4 conns, an even 200 req/s; mean ${idle.mean.toFixed(2)} ms)`, 4, idle),
    ...(elsewhere
      ? [row(`second client: GET balance while the same flood hits bare Fastify (mean ${elsewhere.mean.toFixed(2)} ms)`, 4, elsewhere, {
        baseline: 'alone',
        ratio: elsewhere.p50 / Math.max(idle.p50, 0.001),
        target: 'the generator\'s share',
      })]
      : []),
    row(`flood: GET hosted status at 1000 req/s, 300 conns (${codesOf(flood)})`, 300, { ...flood, non2xx: 0 }),
    row(`second client: GET balance during the flood (mean ${busy.mean.toFixed(2)} ms; ${codesOf(busy)})`, 4, busy, {
      baseline: 'alone',
      ratio: busy.p50 / Math.max(idle.p50, 0.001),
      target: 'p50 ratio ≤ 2.00',
    }),
  ];
}
