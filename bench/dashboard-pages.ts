// Dashboard page loads for a merchant with DASHBOARD_BENCH_DEPOSITS (default 1 000 000) deposits
// spread over a year, plus 100 000 purchases and ledger entries: `npx tsx bench/dashboard-pages.ts`.
// Prints the median and p95 of each page's full server time (session lookup, queries, HTML) over
// real HTTP, signed in as the merchant's owner. The embedded PostgreSQL runs with its default
// settings; read the numbers relative to each other, the machine is shared.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { startGateway, type Gateway } from '../src/assembly/app.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { createAccountsService, type AccountsService } from '../src/modules/accounts/accounts-service.js';

const DEPOSITS = Number(process.env.DASHBOARD_BENCH_DEPOSITS ?? 1_000_000);
const RUNS = Number(process.env.DASHBOARD_BENCH_RUNS ?? 30);

async function seed(gw: Gateway, accounts: AccountsService) {
  const t0 = performance.now();
  const m = await gw.ctx.merchants.create({ name: 'Big merchant' });
  const other = await gw.ctx.merchants.create({ name: 'Neighbour' });
  // Deposits of the big merchant (and a tenth as many of a neighbour), newest ids newest dates.
  for (const [mid, n] of [[m.id, DEPOSITS], [other.id, Math.round(DEPOSITS / 10)]] as const) {
    await sql`insert into deposits (merchant_id, merchant_tx_id, flow, status, game, partner, token, amount, created_at, updated_at)
      select ${mid}, 'tx-' || g, 'inventory',
             (array['completed','completed','completed','hold','failed','canceled','active','reverted'])[1 + g % 8],
             (array['csgo','csgo','rust','dota2','tf2'])[1 + (g / 7) % 5],
             10000000 + g % 50000, 'abcdefgh', 1000 + (g::bigint * 7919) % 500000,
             now() - interval '365 days' + (g::float8 / ${n}) * interval '365 days',
             now() - interval '365 days' + (g::float8 / ${n}) * interval '365 days'
        from generate_series(1, ${n}) g`.execute(gw.ctx.db);
  }
  await sql`insert into purchases (merchant_id, merchant_tx_id, status, game, partner, token, platform_id, amount, created_at, updated_at)
    select ${m.id}, 'p-' || g, (array['completed','failed','hold'])[1 + g % 3], 'csgo', 10000000 + g % 50000, 'abcdefgh', '7656119' || g, 1000 + g % 90000,
           now() - interval '365 days' + (g::float8 / 100000) * interval '365 days', now()
      from generate_series(1, 100000) g`.execute(gw.ctx.db);
  await gw.ctx.ledger.topUp(m.id, 1_000_000_000, 'bench');
  for (let i = 0; i < 200; i++) await gw.ctx.ledger.createWithdrawal(m.id, 1000);
  // what autovacuum does soon after a bulk load: statistics and the visibility map
  await sql`vacuum analyze`.execute(gw.ctx.db);
  console.log(`seeded ${DEPOSITS} + ${Math.round(DEPOSITS / 10)} deposits and 100000 purchases in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const inv = await accounts.invite({ merchantId: m.id, email: 'owner@big.example', role: 'owner' }, { userId: null, actor: 'bench', ip: null });
  await accounts.acceptInvitation(new URL(inv.url).pathname.split('/').pop()!, 'bench password 123', null);
  return m;
}

async function main() {
  let dbUrl = process.env.DATABASE_URL;
  let dataDir: string | undefined;
  let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  const keep = process.env.DASHBOARD_BENCH_DIR; // reuse a seeded cluster between runs
  if (!dbUrl) {
    dataDir = keep ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'dashboard-bench-')));
    embedded = await startEmbeddedPostgres({ dataDir });
    dbUrl = embedded.url;
  }
  const config = loadConfig({ DATABASE_URL: dbUrl, PORT: '0', LOG_LEVEL: 'warn', SANDBOX_CATALOGUE_SIZE: '0', ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef', DATA_DIR: dataDir ?? './.data' });
  const gw = await startGateway(config, { worker: false });
  gw.ctx.config.publicUrl = gw.url;
  const accounts = createAccountsService(gw.ctx);
  try {
    let t0: number;
    const seeded = await gw.ctx.db.selectFrom('merchants').select('id').where('name', '=', 'Big merchant').executeTakeFirst();
    const m = seeded ?? (await seed(gw, accounts));

    const s = await accounts.signIn({ email: 'owner@big.example', password: 'bench password 123', ip: '127.0.0.1', userAgent: 'bench' });
    const cookie = `sgw_session=${s.cookie}`;
    const mid = (await sql<{ id: number }>`select id from deposits where merchant_id = ${m.id} order by id desc offset 500000 limit 1`.execute(gw.ctx.db)).rows[0].id;
    const day = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);

    const pages: [string, string][] = [
      ['overview (balance, 30-day chart, activity)', '/dashboard'],
      ['deposits, newest 50', '/dashboard/deposits'],
      ['deposits, keyset page in the middle', `/dashboard/deposits?before=${mid}`],
      ['deposits, status=reverted', '/dashboard/deposits?status=reverted'],
      ['deposits, game=tf2 + status=failed', '/dashboard/deposits?game=tf2&status=failed'],
      ['deposits, merchant_tx_id', '/dashboard/deposits?merchant_tx_id=tx-123456'],
      ['deposits, one day 200 days ago', `/dashboard/deposits?from=${day}&to=${day}`],
      ['deposit detail', `/dashboard/deposits/${mid}`],
      ['purchases, newest 50', '/dashboard/purchases'],
      ['ledger', '/dashboard/ledger'],
      ['withdrawals', '/dashboard/withdrawals'],
    ];
    console.log(`${'page'.padEnd(44)} median    p95   (ms, ${RUNS} loads each)`);
    for (const [name, url] of pages) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        t0 = performance.now();
        const res = await fetch(`${gw.url}${url}`, { headers: { cookie }, redirect: 'manual' });
        await res.text();
        if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
        times.push(performance.now() - t0);
      }
      times.sort((x, y) => x - y);
      const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
      console.log(`${name.padEnd(44)} ${q(0.5).padStart(6)} ${q(0.95).padStart(6)}`);
    }
  } finally {
    await gw.stop();
    await embedded?.stop();
    if (dataDir && !keep) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
