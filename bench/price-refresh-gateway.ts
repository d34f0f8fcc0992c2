// `npm run bench` rows for issue 25's cost: get-prices (2 000 names) on a gateway whose price
// sources carry BENCH_REFRESH_ITEMS (default 100 000) items per game — its own book (four games,
// loaded at start), Skinport (four games, one ~20 MB list each), CSFloat (CS2: pages of 5 000
// listings) and the Steam guard — answered by stand-ins in the sources' formats. Same gateway, same
// run: get-prices while no source answers (the baseline), then while Skinport's and CSFloat's
// answers are taken (readings applied, bases computed and stored: a refresh of 500 000 readings).
// The stand-ins hold the pollers' first requests until the measured window opens.
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

const N = Number(process.env.BENCH_REFRESH_ITEMS ?? 100_000);
// BENCH_REFRESH_WINDOW_S: the measured window during the refresh (default 30 s).
const APP: Record<string, string> = { csgo: '730', rust: '252490', dota2: '570', tf2: '440' };
const GAME_OF = Object.fromEntries(Object.entries(APP).map(([g, a]) => [a, g]));
const nameOf = (i: number) => `Bench Item ${i} (Field-Tested)`;
const usd = (i: number, f: number) => Math.round((0.1 + ((i * 7919) % 500_000) / 1000) * f * 100) / 100;
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

/** Stand-ins for the sources; Skinport's and CSFloat's requests wait for open(). */
async function standIns() {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let heldTooLong = false;
  // A poll gives up after 30 s: a request is answered after 25 s even if the window has not opened.
  const opened = () => Promise.race([gate, new Promise<void>((r) => setTimeout(() => ((heldTooLong = true), r()), 25_000).unref())]);
  const lists = new Map<string, Buffer>();
  const served = { skinport: 0, csfloat: 0, steam: 0 };
  const server = http.createServer(async (req, res) => {
    const u = new URL(req.url!, 'http://x');
    const send = (b: Buffer) => res.writeHead(200, { 'content-type': 'application/json' }).end(b);
    if (u.pathname === '/skinport') {
      await opened();
      served.skinport++;
      return send(lists.get(GAME_OF[u.searchParams.get('app_id')!]!)!);
    }
    if (u.pathname === '/csfloat') {
      await opened();
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
    heldTooLong: () => heldTooLong,
    prepare: () => GAMES.forEach((g) => lists.set(g, skinportList(g))),
    open,
    close: () => {
      open();
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function priceRefreshRows(env: { gatewayDir: string; dbUrl: string; durationS: number }): Promise<Row[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-refresh-'));
  const book = path.join(dir, 'book.json');
  const entries = [];
  for (const game of GAMES) for (let i = 0; i < N; i++) entries.push({ game, market_hash_name: nameOf(i), price: usd(i, 1) });
  await fs.writeFile(book, JSON.stringify(entries));
  entries.length = 0;
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
    LOG_LEVEL: 'warn',
  }, 20 * 60_000); // the book's 400 000 first bases are stored before ready
  const readyMs = performance.now() - t0;
  const bases = new pg.Client({ connectionString: u.toString() });
  await bases.connect();
  const count = async () => Number((await bases.query('select count(*)::bigint as n from price_bases')).rows[0].n);
  try {
    const m = await call(`${gw.url}/api/admin/merchants`, 'POST', { name: 'bench-refresh' }, { authorization: `Bearer ${ADMIN}` });
    const key = { 'x-api-key': m.body.data.api_key as string };
    const names = Array.from({ length: 2000 }, (_, i) => nameOf(Math.floor(N / 3) + i * Math.max(1, Math.floor(N / 3 / 2000))));
    const spec = { url: gw.url, connections: 4, method: 'POST' as const, paths: ['/api/v1/merchant/get-prices'], headers: key, body: { game: 'csgo', marketHashNames: names } };
    const check = await call(`${gw.url}/api/v1/merchant/get-prices`, 'POST', spec.body, key);
    const priced = (check.body?.data?.items ?? []).filter((x: { price?: number }) => (x.price ?? 0) > 0).length;
    await load({ ...spec, durationS: 2 }); // warm-up
    const before = await count();
    const idle = await load(spec);
    stand.open();
    const opened = performance.now();
    // Long enough to reach the readings' apply and the bases' storage, not only the lists' fetch and parse.
    const during = await load({ ...spec, durationS: Number(process.env.BENCH_REFRESH_WINDOW_S ?? 30) });
    const storedDuring = (await count()) - before;
    process.stderr.write(`get-prices p99: idle ${idle.p99} ms, during the refresh ${during.p99} ms (${storedDuring} bases stored meanwhile); waiting for the refresh to end…\n`);
    // how long the whole refresh took: until the bases stop growing
    let last = -1;
    const giveUp = performance.now() + 15 * 60_000;
    for (;;) {
      const n = await count();
      if ((n - last < 10 && stand.served.csfloat > Math.ceil(N / PAGE)) || performance.now() > giveUp) break; // the Steam guard adds one now and then
      last = n;
      await new Promise((r) => setTimeout(r, 3000));
    }
    const refreshS = (performance.now() - opened) / 1000;
    const label = `${N.toLocaleString('en-US')} items/game`;
    return [
      { name: `get-prices, 2000 names, price sources idle (${label} priced; same gateway: baseline)`, connections: 4, rps: idle.rps, p50: idle.p50, p99: idle.p99, bad: idle.non2xx + idle.errors, target: `${priced} of 2000 priced` },
      {
        name: `get-prices, 2000 names, during a refresh: Skinport 4 × ${label}, CSFloat ${label} (CS2), book and Steam guard on`,
        connections: 4, rps: during.rps, p50: during.p50, p99: during.p99, bad: during.non2xx + during.errors,
        baseline: 'idle', ratio: during.p99 / Math.max(1, idle.p99), target: 'p99 < 30 ms',
      },
      { name: `${stand.heldTooLong() ? 'WARNING: a source answered before the window opened; ' : ''}refresh: ${storedDuring.toLocaleString('en-US')} bases stored in the ${process.env.BENCH_REFRESH_WINDOW_S ?? 30} s window, ${last.toLocaleString('en-US')} in all; refresh ≈ ${refreshS.toFixed(0)} s; gateway ready in ${(readyMs / 1000).toFixed(0)} s (book of ${(N * 4).toLocaleString('en-US')} loaded at start)` },
    ];
  } finally {
    await bases.end();
    stand.close();
    await stopProcess(gw.child);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(gw.dataDir, { recursive: true, force: true });
  }
}
