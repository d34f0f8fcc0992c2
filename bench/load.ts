// The load generator of `npm run bench`: autocannon (or, with LoadSpec.paced, a paced client on
// node:http) in its own process (never inside the process it measures). Argument: a file holding a JSON LoadSpec. Prints one JSON LoadResult line on stdout.
import fs from 'node:fs/promises';
import http from 'node:http';
import autocannon from 'autocannon';
import { httpOnce, quantile } from './http-once.js';

export interface LoadSpec {
  url: string; // origin, e.g. http://127.0.0.1:8080
  connections: number;
  durationS: number;
  method?: 'GET' | 'POST';
  /** Request paths, taken round robin. */
  paths: string[];
  /** Instead of paths: each request the next path with its own API key (records of several merchants). */
  keyedPaths?: { key: string; path: string }[];
  headers?: Record<string, string>;
  /** One API key per connection (round robin over connections); overrides headers' x-api-key. */
  keys?: string[];
  /** POST purchase: one listing per request, never reused. */
  purchase?: { listings: { id: string; game: string }[]; runId: string };
  /** POST body for every request (JSON). */
  body?: unknown;
  /** Stop after this many requests (duration then ignored): each path once, never a refused repeat. */
  amount?: number;
  /** A 2xx answer whose data.status is not this one counts as refused (purchases: 'pending'). */
  expectStatus?: string;
  /** Requests per second over all connections (autocannon's overallRate); unset: as fast as answered. */
  rate?: number;
  /**
   * With `rate`: one request every 1/rate s, evenly, on at most `connections` kept-alive sockets,
   * latency to the microsecond (GET only). autocannon's rate mode sends each connection's quota for the
   * second back to back at each second's start, so two rate-limited clients measured each other's
   * bursts: how their seconds lined up decided the result (a second client 1.00× and 3.00× in
   * consecutive rounds of one sitting). A client at an even pace is what a second merchant looks like.
   */
  paced?: boolean;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Answers of 2xx whose data.status was not the expected one (purchases: not 'pending'). */
  refused: number;
  bytesPerSec: number;
  /** 2xx answers not refused, and the run's length in seconds (rate of successes: ok / elapsedS). */
  ok: number;
  elapsedS: number;
  /** Mean latency in ms (p50 and p99 are whole milliseconds, except of a paced client: to 0.01 ms). */
  mean: number;
  /** Answers by HTTP status. */
  statusCodes: Record<string, number>;
}

/** An open-loop client at an even pace (see LoadSpec.paced): each request timed from its own send. */
async function pacedLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const interval = 1000 / spec.rate!;
  const total = Math.round(spec.durationS * spec.rate!);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let bytes = 0;
  const one = async (path: string) => {
    const start = process.hrtime.bigint();
    const r = await httpOnce(`${spec.url}${path}`, { agent, headers: spec.headers });
    bytes += r.bytes;
    if (r.status < 0) {
      errors++;
      return;
    }
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    statusCodes[r.status] = (statusCodes[r.status] ?? 0) + 1;
  };
  const startedAt = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = startedAt + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(one(spec.paths[i % spec.paths.length]));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const elapsedS = (performance.now() - startedAt) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => quantile(sorted, q) ?? 0;
  const ok = Object.entries(statusCodes).filter(([code]) => code.startsWith('2')).reduce((n, [, c]) => n + c, 0);
  return {
    rps: latencies.length / elapsedS,
    p50: Number(at(0.5).toFixed(2)),
    p99: Number(at(0.99).toFixed(2)),
    requests: latencies.length + errors,
    non2xx: latencies.length - ok,
    errors,
    refused: 0,
    bytesPerSec: bytes / elapsedS,
    ok,
    elapsedS,
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    statusCodes,
  };
}

async function main() {
  const spec = JSON.parse(await fs.readFile(process.argv[2], 'utf8')) as LoadSpec;
  if (spec.paced && spec.rate) {
    console.log(JSON.stringify(await pacedLoad(spec)));
    return;
  }
  let next = 0;
  let connection = 0;
  let refused = 0;
  const headers = { ...(spec.headers ?? {}), ...(spec.body !== undefined || spec.purchase ? { 'content-type': 'application/json' } : {}) };
  const expectStatus = spec.expectStatus ?? (spec.purchase ? 'pending' : undefined);
  // With `amount`, autocannon notices the end on its one-second ticker, so its duration is
  // rounded up to whole seconds (1695 requests in 5.02 or 6.01 s): the run's length is taken from
  // the last answer instead.
  let lastAnswerAt = 0;
  const startedAt = Date.now();
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationS,
    ...(spec.amount !== undefined ? { amount: spec.amount } : {}),
    pipelining: 1,
    ...(spec.rate !== undefined ? { overallRate: spec.rate } : {}),
    requests: [
      {
        method: spec.method ?? 'GET',
        setupRequest: (req: any, context: any) => {
          if (context.key === undefined && spec.keys) context.key = spec.keys[connection++ % spec.keys.length];
          const i = next++;
          const h = context.key ? { ...headers, 'x-api-key': context.key } : headers;
          if (spec.purchase) {
            const l = spec.purchase.listings[i % spec.purchase.listings.length];
            const body = { partner: 10_000_000 + (i % 80_000_000), token: 'abcdefgh', game: l.game, asset_id: l.id, merchant_tx_id: `bench-${spec.purchase.runId}-${i}` };
            return { ...req, method: 'POST', path: '/api/v1/merchant/purchase', headers: h, body: JSON.stringify(body) };
          }
          const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
          if (spec.keyedPaths) {
            const k = spec.keyedPaths[i % spec.keyedPaths.length];
            return { ...req, path: k.path, headers: { ...h, 'x-api-key': k.key }, body };
          }
          return { ...req, path: spec.paths[i % spec.paths.length], headers: h, body };
        },
        onResponse: expectStatus
          ? (status: number, body: string) => {
              lastAnswerAt = Date.now();
              if (status !== 200) return;
              try {
                if (JSON.parse(body)?.data?.status !== expectStatus) refused++;
              } catch {
                refused++;
              }
            }
          : spec.amount !== undefined
            ? () => {
                lastAnswerAt = Date.now();
              }
            : undefined,
      },
    ],
  } as any);
  const out: LoadResult = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    refused,
    bytesPerSec: result.throughput.average,
    ok: result['2xx'] - refused,
    elapsedS: spec.amount !== undefined && lastAnswerAt > startedAt ? (lastAnswerAt - startedAt) / 1000 : result.duration,
    mean: result.latency.mean,
    statusCodes: Object.fromEntries(Object.entries((result.statusCodeStats ?? {}) as Record<string, { count: number }>).map(([k, v]) => [k, v.count])),
  };
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
