// Benchmarks: `npm run bench`. Each scenario runs against a real gateway on the embedded
// PostgreSQL and is compared with baselines measured in the same run on the same machine:
// a bare Fastify handler (HTTP floor) and a bare `pg` round trip (database floor).
// The machine is noisy: read the ratios, not the absolute numbers.
// BENCH_MS (default 3000), BENCH_CONCURRENCY (default 16), BENCH_ONLY (name filter).
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startGateway } from '../src/app.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { scenarios as extraScenarios } from './scenarios.js';

export interface Scenario {
  name: string;
  /** One request; resolves when the response has been read. */
  run(i: number): Promise<void>;
}

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(url: string, opts: RequestOptions = {}): Promise<number> {
  return requestJson(url, opts).then((r) => r.status);
}

interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One request; rejects on an error answer (a benchmark of error answers measures nothing). */
export function requestJson(url: string, opts: RequestOptions = {}): Promise<{ status: number; body: any }> {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent,
        headers: { ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}), ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 400 && status !== 404) return reject(new Error(`HTTP ${status} from ${url}`));
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = text;
          }
          resolve({ status, body });
        });
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function measure(s: Scenario): Promise<{ name: string; rps: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const end = Date.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        try {
          await s.run(i++);
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { name: s.name, rps: latencies.length / (DURATION_MS / 1000), p50: q(0.5), p99: q(0.99), errors };
}

async function main() {
  const dataDir = path.resolve('.data-bench');
  await fs.rm(dataDir, { recursive: true, force: true });
  const embedded = await startEmbeddedPostgres({ dataDir });
  const gw = await startGateway(
    loadConfig({ DATABASE_URL: embedded.url, PORT: '0', LOG_LEVEL: 'silent', ADMIN_TOKEN: 'bench-admin', CATALOGUE_STREAM_CONCURRENCY: '64', SANDBOX_CATALOGUE_SIZE: process.env.SANDBOX_CATALOGUE_SIZE ?? '5000' }),
  );
  gw.ctx.config.publicUrl = gw.url;
  const admin = { authorization: 'Bearer bench-admin' };
  const merchant = await gw.ctx.merchants.create({ name: 'bench' });
  await gw.ctx.ledger.topUp(merchant.id, 1_000_000_000, 'bench');
  const key = { 'x-api-key': merchant.api_key };

  const bare = Fastify();
  bare.get('/', async () => ({ success: true, message: 'ok', data: { total: 1, hold: 0, available: 1 } }));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const rawPool = new pg.Pool({ connectionString: embedded.url, max: CONCURRENCY });

  const scenarios: Scenario[] = [
    { name: 'baseline: bare Fastify JSON handler', run: async () => void (await request(bareUrl)) },
    { name: 'baseline: pg round trip (select 1)', run: async () => void (await rawPool.query('select 1')) },
    { name: 'GET /healthz (gateway HTTP stack)', run: async () => void (await request(`${gw.url}/healthz`)) },
    { name: 'GET /merchant/balance (auth + read)', run: async () => void (await request(`${gw.url}/api/v1/merchant/balance`, { headers: key })) },
    {
      name: 'POST admin top-up (ledger write txn)',
      run: async () => void (await request(`${gw.url}/api/admin/merchants/${merchant.id}/top-ups`, { method: 'POST', headers: admin, body: { amount: 0.001 } })),
    },
    ...(await extraScenarios({ url: gw.url, apiKey: merchant.api_key, merchantId: merchant.id, ctx: gw.ctx })),
  ];

  // BENCH_ONLY=<text>: run only the scenarios whose name contains it (the two baselines always run).
  const only = process.env.BENCH_ONLY;
  const selected = only ? scenarios.filter((s, i) => i < 2 || s.name.includes(only)) : scenarios;
  const rows = [];
  for (const s of selected) {
    process.stderr.write(`running ${s.name}…\n`);
    rows.push(await measure(s));
  }
  const http0 = rows[0].rps;
  const db0 = rows[1].rps;
  console.log(`\nconcurrency ${CONCURRENCY}, ${DURATION_MS} ms per scenario\n`);
  console.table(
    rows.map((r) => ({
      scenario: r.name,
      'req/s': Math.round(r.rps),
      'p50 ms': r.p50.toFixed(2),
      'p99 ms': r.p99.toFixed(2),
      errors: r.errors,
      'vs bare Fastify': `${((r.rps / http0) * 100).toFixed(0)}%`,
      'vs pg select 1': `${((r.rps / db0) * 100).toFixed(0)}%`,
    })),
  );
  const verify = await gw.ctx.ledger.verify();
  console.log(`ledger verify after the run: ${verify.mismatches.length === 0 ? 'balanced' : 'MISMATCH'} (${verify.checked} balances)`);

  await bare.close();
  await rawPool.end();
  await gw.stop();
  await embedded.stop();
  agent.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
