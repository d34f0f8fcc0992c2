// Benchmark: the whole-catalogue response with 500 000 listings (CATALOGUE_BENCH_SIZE), streamed.
// `npx tsx bench/catalogue-stream.ts` — uses DATABASE_URL if set, else a throwaway embedded
// PostgreSQL. Reports seed time (batched inserts through the catalogue triggers), time to first
// byte, total time, bytes, and the process's peak RSS growth while streaming (flat = streamed).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { startGateway } from '../src/assembly/app.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { seedSyntheticListings } from './synthetic-listings.js';

const SIZE = Number(process.env.CATALOGUE_BENCH_SIZE ?? 500_000);

async function main() {
  let dbUrl = process.env.DATABASE_URL;
  let dataDir: string | undefined;
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  if (!dbUrl) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'catalogue-bench-'));
    embedded = await startEmbeddedPostgres({ dataDir });
    dbUrl = embedded.url;
  }
  const config = loadConfig({ DATABASE_URL: dbUrl, PORT: '0', LOG_LEVEL: 'warn', SANDBOX_CATALOGUE_SIZE: '0', ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef', DATA_DIR: dataDir ?? './.data' });
  const gw = await startGateway(config, { worker: false });
  gw.ctx.config.publicUrl = gw.url;
  try {
    const m = await gw.ctx.merchants.create({ name: 'Bench' });
    const existing = await gw.ctx.db.selectFrom('listings').select((eb) => eb.fn.countAll<number>().as('n')).where('game', '=', 'csgo').executeTakeFirstOrThrow();
    let t0 = performance.now();
    await seedSyntheticListings(gw.ctx.db, Number(existing.n), SIZE);
    console.log(`seeded ${SIZE} listings in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    for (const full of [true, false]) {
      const rssBefore = process.memoryUsage().rss;
      let peak = rssBefore;
      const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      t0 = performance.now();
      const res = await fetch(`${gw.url}/api/v1/merchant/purchase/available?game=csgo&full=${full}`, { headers: { 'x-api-key': m.api_key } });
      const ttfb = performance.now() - t0;
      let bytes = 0;
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
      const total = performance.now() - t0;
      clearInterval(timer);
      console.log(
        `full=${full}: status ${res.status}, first byte ${ttfb.toFixed(0)} ms, total ${(total / 1000).toFixed(2)} s, ` +
          `${(bytes / 1e6).toFixed(1)} MB, peak RSS growth ${((peak - rssBefore) / 1e6).toFixed(0)} MB (client and server in one process)`,
      );
    }
    t0 = performance.now();
    const page = await fetch(`${gw.url}/api/v1/merchant/purchase/available?game=csgo&full=true&page=5`, { headers: { 'x-api-key': m.api_key } });
    const body = (await page.json()) as { data: { count: number } };
    console.log(`page 5: ${body.data.count} listings in ${(performance.now() - t0).toFixed(0)} ms`);
  } finally {
    await gw.stop();
    await embedded?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
