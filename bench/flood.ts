// `npm run bench:flood`: the flood rows of issue 22 point 5 alone (bench/flood-rows.ts), on a gateway
// started as `npm start` starts it, on a durable embedded cluster (BENCH_DATABASE_URL: an existing
// server), with the bare Fastify baseline server beside it. BENCH_FLOOD_ROUNDS (default 1) repeats
// the measurement on the same gateway (the refusal's cost empties the flooding address's bucket
// first, so the flood is refused from its start); BENCH_S sets the seconds per load. The gateway gets this process's RATE_LIMIT_* settings, so
// `RATE_LIMIT_HOSTED_PER_MINUTE=60 npm run bench:flood` measures a smaller burst. Prints one table
// per round with the machine's load (uptime) before and after it.
import { execFileSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { startDurableCluster } from './durable-pg.js';
import { startGateway, stopProcess } from './gateway-process.js';
import { ADMIN, DURATION_S, call } from './harness.js';
import { cpuMeter } from './proc-cpu.js';
import { table } from './row.js';
import { startBaselineServer } from './scenarios.js';
import { floodRows, refusalCostRows } from './flood-rows.js';

const ROUNDS = Number(process.env.BENCH_FLOOD_ROUNDS ?? 1);
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

async function main() {
  const cluster = process.env.BENCH_DATABASE_URL ? undefined : await startDurableCluster();
  const dbUrl = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  const procs: ChildProcess[] = [];
  try {
    const gw = await startGateway(path.resolve(process.env.BENCH_GATEWAY_DIR ?? process.cwd()), { DATABASE_URL: dbUrl, ADMIN_TOKEN: ADMIN, SANDBOX_CATALOGUE_SIZE: '200' });
    procs.push(gw.child);
    const adminH = { authorization: `Bearer ${ADMIN}` };
    const merchant = async (name: string, limit?: number) => {
      const m = await call(`${gw.url}/api/admin/merchants`, 'POST', { name, ...(limit ? { rate_limit_per_minute: limit } : {}) }, adminH);
      if (m.status !== 201) throw new Error(`create merchant: ${m.status} ${JSON.stringify(m.body)}`);
      return m.body.data as { id: number; api_key: string };
    };
    const owner = await merchant('flood-owner');
    const calm = await merchant('flood-second-client', 1_000_000); // 200 req/s: past the default per-key limit
    const intent = await call(`${gw.url}/api/v1/merchant/create-intent`, 'POST', { merchant_tx_id: `flood-${Date.now()}` }, { 'x-api-key': owner.api_key });
    if (intent.status !== 200) throw new Error(`create-intent: ${intent.status} ${JSON.stringify(intent.body)}`);
    const token = new URL(intent.body.data.url).pathname.split('/').pop()!;
    const baselineUrl = await startBaselineServer(dbUrl, owner.id, procs);
    const env = {
      gatewayUrl: gw.url,
      token,
      calmKey: calm.api_key,
      baselineUrl,
      cpu: { gateway: cpuMeter(gw.child.pid!), baseline: cpuMeter(procs.at(-1)!.pid!) },
    };
    const hosted = Number(process.env.RATE_LIMIT_HOSTED_PER_MINUTE ?? 1200);
    console.log(`\n## npm run bench:flood — ${new Date().toISOString()}\n`);
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${DURATION_S} s per load; ` +
      `RATE_LIMIT_HOSTED_PER_MINUTE=${hosted}, RATE_LIMIT_IN_FLIGHT=${process.env.RATE_LIMIT_IN_FLIGHT ?? 256}, LOG_REQUESTS=${process.env.LOG_REQUESTS ?? 'all'}`);
    for (let round = 1; round <= ROUNDS; round++) {
      const before = uptime();
      const rows = [...(await refusalCostRows(env)), ...(await floodRows(env))];
      console.log(`\nround ${round}; before: \`${before}\`; after: \`${uptime()}\`\n`);
      console.log(table(rows));
    }
  } finally {
    await Promise.all(procs.map((p) => stopProcess(p)));
    await cluster?.stop();
  }
}

await main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
