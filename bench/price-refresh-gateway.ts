// `npm run bench` rows for issue 25's cost: get-prices (2 000 names) on a gateway whose price
// sources carry BENCH_REFRESH_ITEMS (default 100 000) items per game — its own book (four games),
// Skinport (four games, one ~20 MB list each), CSFloat (CS2: pages of 5 000 listings) and the
// Steam guard — answered at once by stand-ins in the sources' formats. Same gateway, same run:
// get-prices while no refresh runs (the baseline), then during a refresh the bench starts itself
// (POST /api/admin/prices/refresh, after the stand-ins changed 10 % of their prices) and follows
// (GET /api/admin/prices/refresh every 100 ms, until no source polls and no basis waits to be
// written). Every request's start and end are kept (timed-load.ts, its own process): the "during"
// row counts only requests wholly inside the refresh, and says how many there were.
// Alone: `npx tsx bench/price-refresh-gateway.ts` (a durable cluster of its own, or
// BENCH_DATABASE_URL; BENCH_REFRESH_ITEMS, BENCH_S for the idle window).
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { GAMES } from '../src/domain/games.js';
import { startGateway, stopProcess } from './gateway-process.js';
import { ADMIN, call, load } from './harness.js';
import type { Row } from './row.js';
import { timedLoad, within } from './timed-load.js';
import { startDurableCluster } from './durable-pg.js';

const N = Number(process.env.BENCH_REFRESH_ITEMS ?? 100_000);
const APP: Record<string, string> = { csgo: '730', rust: '252490', dota2: '570', tf2: '440' };
const GAME_OF = Object.fromEntries(Object.entries(APP).map(([g, a]) => [a, g]));
const nameOf = (i: number) => `Bench Item ${i} (Field-Tested)`;
/** round 1 (the measured refresh) moves 10 % of the prices by 5 % (under the jump ratio) */
let round = 0;
const usd = (i: number, f: number) => Math.round((0.1 + ((i * 7919) % 500_000) / 1000) * f * (round > 0 && i % 10 === 0 ? 1.05 : 1) * 100) / 100;
const PAGE = 5000;

function skinportList(game: string): Buffer {
  const at = Math.floor(Date.now() / 1000);
  const rows = [];
  for (let i = 0; i < N; i++) {
    const p = usd(i, (i + game.length) % 10 === 0 ? 1.1 : 0.97);
    rows.push({ market_hash_name: nameOf(i), currency: 'USD', suggested_price: p, min_price: p, max_price: p * 1.2, mean_price: p, median_price: p, quantity: 20, created_at: at - 86400, updated_at: at });
  }
  return Buffer.from(JSON.stringify(rows));
}

/** CSFloat's cursor paging: the last page with listings names cursor 'end', which answers none. */
function csfloatPage(cursor: string | null): Buffer {
  if (cursor === 'end') return Buffer.from(JSON.stringify({ data: [] }));
  const c = Number(cursor ?? 0);
  const data = [];
  for (let i = c * PAGE; i < Math.min(N, (c + 1) * PAGE); i++) {
    data.push({ id: `l${i}`, created_at: new Date().toISOString(), type: 'buy_now', price: Math.round(usd(i, 1.02) * 100), state: 'listed', item: { market_hash_name: nameOf(i) } });
  }
  return Buffer.from(JSON.stringify({ data, cursor: (c + 1) * PAGE < N ? String(c + 1) : 'end' }));
}

/** Stand-ins for the sources, answering at once. */
async function standIns() {
  const lists = new Map<string, Buffer>();
  const served = { skinport: 0, csfloat: 0, steam: 0 };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const send = (b: Buffer) => res.writeHead(200, { 'content-type': 'application/json' }).end(b);
    if (u.pathname === '/skinport') {
      served.skinport++;
      return send(lists.get(GAME_OF[u.searchParams.get('app_id')!]!)!);
    }
    if (u.pathname === '/csfloat') {
      served.csfloat++;
      return send(csfloatPage(u.searchParams.get('cursor')));
    }
    if (u.pathname === '/steam') {
      served.steam++;
      const i = Number(/Bench Item (\d+)/.exec(u.searchParams.get('market_hash_name') ?? '')?.[1] ?? 0);
      return send(Buffer.from(JSON.stringify({ success: true, lowest_price: `$${usd(i, 1.15).toFixed(2)}`, volume: '1,234', median_price: `$${usd(i, 1.15).toFixed(2)}` })));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    base,
    served,
    prepare: () => GAMES.forEach((g) => lists.set(g, skinportList(g))),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function writeBook(file: string): Promise<void> {
  const entries = [];
  for (const game of GAMES) for (let i = 0; i < N; i++) entries.push({ game, market_hash_name: nameOf(i), price: usd(i, 1) });
  await fs.writeFile(file, JSON.stringify(entries));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function priceRefreshRows(env: { gatewayDir: string; dbUrl: string; durationS: number }): Promise<Row[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-refresh-'));
  const book = path.join(dir, 'book.json');
  round = 0;
  await writeBook(book);
  const stand = await standIns();
  stand.prepare();
  // A database of its own: the gateway's bases are not the other scenarios'.
  const u = new URL(env.dbUrl);
  const admin = new pg.Client({ connectionString: env.dbUrl });
  await admin.connect();
  await admin.query('drop database if exists bench_refresh');
  await admin.query('create database bench_refresh');
  await admin.end();
  u.pathname = '/bench_refresh';
  process.stderr.write(`starting a gateway with ${N} items per game on four price sources…\n`);
  const t0 = performance.now();
  const gw = await startGateway(env.gatewayDir, {
    DATABASE_URL: u.toString(),
    ADMIN_TOKEN: ADMIN,
    SANDBOX_CATALOGUE_SIZE: '1000',
    PRICE_BOOK: book,
    PRICE_REFRESH_SECONDS: '3600',
    PRICE_SKINPORT: GAMES.map((g) => `${stand.base}/skinport?app_id=${APP[g]}&currency=USD`).join(' '),
    PRICE_CSFLOAT_API_KEY: 'bench-key',
    PRICE_CSFLOAT_URL: `${stand.base}/csfloat`,
    PRICE_CSFLOAT_MAX_PAGES: '1000',
    PRICE_STEAM_MARKET_URL: `${stand.base}/steam`,
    PRICE_MIN_LIQUIDITY: '1',
    // As bench/run.ts: the merchant limit (6 000/min by default) would answer most of the load 429.
    RATE_LIMIT_MERCHANT_PER_MINUTE: process.env.RATE_LIMIT_MERCHANT_PER_MINUTE ?? '10000000',
    LOG_LEVEL: 'warn',
  }, 20 * 60_000);
  const readyMs = performance.now() - t0;
  const bases = new pg.Client({ connectionString: u.toString() });
  await bases.connect();
  const count = async () => Number((await bases.query('select count(*)::bigint as n from price_bases')).rows[0].n);
  const auth = { authorization: `Bearer ${ADMIN}` };
  const state = async () => (await call(`${gw.url}/api/admin/prices/refresh`, 'GET', undefined, auth)).body?.data as { running: boolean; polling: string[]; bases_pending: number } | undefined;
  /** Until the refresh state says no source polls and no basis waits (giving up after 20 min). */
  const settled = async () => {
    const giveUp = Date.now() + 20 * 60_000;
    for (;;) {
      const s = await state();
      if (!s) throw new Error('the gateway has no GET /api/admin/prices/refresh');
      if (!s.running || Date.now() > giveUp) return Date.now();
      await sleep(100);
    }
  };
  try {
    // The first polls (Skinport, CSFloat) start with the gateway: the first load ends when they are taken and written.
    await settled();
    const firstLoadS = (performance.now() - t0) / 1000;
    const m = await call(`${gw.url}/api/admin/merchants`, 'POST', { name: 'bench-refresh' }, auth);
    const key = { 'x-api-key': m.body.data.api_key as string };
    const names = Array.from({ length: 2000 }, (_, i) => nameOf(Math.floor(N / 3) + i * Math.max(1, Math.floor(N / 3 / 2000))));
    const body = { game: 'csgo', marketHashNames: names };
    const check = await call(`${gw.url}/api/v1/merchant/get-prices`, 'POST', body, key);
    const priced = (check.body?.data?.items ?? []).filter((x: { price?: number }) => (x.price ?? 0) > 0).length;
    await load({ url: gw.url, connections: 4, method: 'POST', paths: ['/api/v1/merchant/get-prices'], headers: key, body, durationS: 2 }); // warm-up
    const before = await count();
    // The stand-ins' next answers (and the book's file) move 10 % of the prices: made before any window.
    round = 1;
    stand.prepare();
    await writeBook(book);
    const sampler = await timedLoad({ url: `${gw.url}/api/v1/merchant/get-prices`, method: 'POST', headers: key, body, connections: 4 });
    const idleFrom = Date.now();
    await sleep(env.durationS * 1000);
    const idleTo = Date.now();
    const idleState = await state();
    const started = Date.now();
    const r = await call(`${gw.url}/api/admin/prices/refresh`, 'POST', undefined, auth);
    if (r.status !== 202) throw new Error(`POST /api/admin/prices/refresh answered ${r.status}`);
    const ended = await settled();
    await sleep(1000);
    const samples = await sampler.stop();
    const idle = within(samples, idleFrom, idleTo);
    const during = within(samples, started, ended);
    const stored = (await count()) - before;
    const refreshS = (ended - started) / 1000;
    process.stderr.write(`get-prices p99: idle ${idle.p99} ms (${idle.n} requests), during the refresh ${during.p99} ms (${during.n} requests inside its ${refreshS.toFixed(1)} s)\n`);
    const label = `${N.toLocaleString('en-US')} items/game`;
    return [
      { name: `get-prices, 2000 names, no refresh running${idleState?.running ? ' (WARNING: a refresh was running at its end)' : ''} (${label} priced; same gateway: baseline; ${idle.n} requests)`, connections: 4, rps: idle.rps, p50: idle.p50, p99: idle.p99, bad: idle.bad, target: `${priced} of 2000 priced` },
      {
        name: `get-prices, 2000 names, during a refresh started by the bench: book 4 × ${label}, Skinport 4 × ${label}, CSFloat ${label} (CS2), Steam guard on; ${during.n} requests inside the refresh`,
        connections: 4, rps: during.rps, p50: during.p50, p99: during.p99, bad: during.bad,
        baseline: 'idle', ratio: during.p99 / Math.max(1, idle.p99), target: 'p99 < 30 ms',
      },
      { name: `refresh: ${refreshS.toFixed(1)} s from POST /api/admin/prices/refresh until no source polled and no basis waited; ${stored.toLocaleString('en-US')} bases written; first load (start → settled) ${firstLoadS.toFixed(0)} s; gateway ready in ${(readyMs / 1000).toFixed(0)} s` },
    ];
  } finally {
    await bases.end();
    stand.close();
    await stopProcess(gw.child, 20 * 60_000); // a clean stop writes the bases left
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(gw.dataDir, { recursive: true, force: true });
  }
}

// Alone: a durable cluster of its own (or BENCH_DATABASE_URL), this checkout's gateway (BENCH_GATEWAY_DIR for another).
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve('bench/price-refresh-gateway.ts')) {
  void (async () => {
    const cluster = process.env.BENCH_DATABASE_URL ? undefined : await startDurableCluster();
    try {
      const rows = await priceRefreshRows({ gatewayDir: path.resolve(process.env.BENCH_GATEWAY_DIR ?? '.'), dbUrl: process.env.BENCH_DATABASE_URL ?? cluster!.url, durationS: Number(process.env.BENCH_S ?? 20) });
      for (const r of rows) console.log(`| ${r.name} | ${r.connections ?? ''} | ${r.rps ?? ''} | ${r.p50 ?? ''} | ${r.p99 ?? ''} | ${r.bad ?? ''} | ${r.target ?? ''} |`);
      console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    } finally {
      await cluster?.stop();
    }
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
