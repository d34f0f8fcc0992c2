// CPU time of one refused request on the gateway's own Fastify app (light-my-request, no sockets:
// what differs between a refusal and an answer is inside the app), beside GET /healthz through the
// same app (every global hook, a constant answer). process.cpuUsage() of this process, so the
// machine's other load barely moves it. Development aid for issue 22 point 5 (bench/RESULTS.md):
// `npx tsx bench/refusal-cost.ts [requests] > /dev/null` (results on stderr; the access log, on
// stdout, is written as in production). GW_ENV='{"LOG_REQUESTS":"errors"}' adds settings.
import { loadConfig } from '../src/config.js';
import { startGateway } from '../src/assembly/app.js';
import { startDurableCluster } from './durable-pg.js';

const N = Number(process.argv[2] ?? 20_000);

async function main() {
  const cluster = await startDurableCluster();
  const admin = 'refusal-cost-admin-token-0123456789';
  const gw = await startGateway(
    loadConfig({ DATABASE_URL: cluster.url, PORT: '0', PLATFORM: 'sandbox', ADMIN_TOKEN: admin, SANDBOX_CATALOGUE_SIZE: '200', RATE_LIMIT_HOSTED_PER_MINUTE: '1', ...(process.env.GW_ENV ? JSON.parse(process.env.GW_ENV) : {}) }),
    { listen: false, worker: false },
  );
  try {
    const m = await gw.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: { authorization: `Bearer ${admin}` }, payload: { name: 'cost' } });
    const key = JSON.parse(m.body).data.api_key as string;
    const intent = await gw.app.inject({ method: 'POST', url: '/api/v1/merchant/create-intent', headers: { 'x-api-key': key }, payload: { merchant_tx_id: 'cost-1' } });
    const token = new URL(JSON.parse(intent.body).data.url).pathname.split('/').pop()!;
    const cases: [string, string][] = [
      ['GET /healthz (not limited, constant answer)', '/healthz'],
      ['GET hosted status, refused 429', `/api/v1/hosted/${token}/status`],
    ];
    for (const [, url] of cases) for (let i = 0; i < 500; i++) await gw.app.inject({ method: 'GET', url }); // warm-up (and empties the bucket)
    // The two interleaved in chunks of CHUNK requests, so that both meet the same machine load;
    // the ratio is the number to read (the µs themselves move with the machine's other load).
    const CHUNK = 250;
    const cpu = new Map<string, number>(cases.map(([name]) => [name, 0]));
    const statuses = new Map<string, Map<number, number>>(cases.map(([name]) => [name, new Map()]));
    for (let done = 0; done < N; done += CHUNK) {
      for (const [name, url] of cases) {
        const c0 = process.cpuUsage();
        for (let i = 0; i < CHUNK; i++) {
          const r = await gw.app.inject({ method: 'GET', url });
          const by = statuses.get(name)!;
          by.set(r.statusCode, (by.get(r.statusCode) ?? 0) + 1);
        }
        await new Promise((r) => setImmediate(r)); // the access log's lines of the chunk
        const c = process.cpuUsage(c0);
        cpu.set(name, cpu.get(name)! + c.user + c.system);
      }
    }
    const per = cases.map(([name]) => cpu.get(name)! / N);
    for (const [i, [name]] of cases.entries()) process.stderr.write(`${name}: ${per[i].toFixed(1)} µs CPU per request (${[...statuses.get(name)!].map(([st, n]) => `${n} × ${st}`).join(', ')})\n`);
    process.stderr.write(`refusal / healthz: ×${(per[1] / per[0]).toFixed(2)}\n`);
  } finally {
    await gw.stop();
    await cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
