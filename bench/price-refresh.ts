// `npm run bench:prices` (issue 25): a refresh of 100 000 items per game (four games) across four
// sources (book, Skinport, CSFloat: market; Steam: guard), applied to the price engine and its bases
// stored in a durable PostgreSQL (fsync and synchronous_commit on; BENCH_DATABASE_URL for an
// existing server), while a get-prices-sized lookup (2 000 names) is asked every 10 ms, as requests
// would be. Prints one table: the refresh times, and the lookup's latency (from being asked to
// answered: it includes any wait behind the refresh on the event loop) idle — the baseline, same
// run — and during each refresh. BENCH_PRICE_ITEMS (per game, default 100 000).
import { performance } from 'node:perf_hooks';
import { createDb, createPool } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { GAMES, type Game } from '../src/domain/games.js';
import { createPriceEngine } from '../src/modules/pricing/price-engine.js';
import { basisRow } from '../src/modules/pricing/price-basis-view.js';
import { createBaseStore } from '../src/modules/pricing/base-store.js';
import pino from 'pino';
import type { PriceRules } from '../src/modules/pricing/reference-price.js';
import type { PollResult } from '../src/modules/pricing/sources/source.js';
import { startDurableCluster } from './durable-pg.js';

const N = Number(process.env.BENCH_PRICE_ITEMS ?? 100_000);
const SOURCES = [
  { id: 'book', role: 'market' as const, factor: 1 },
  { id: 'skinport', role: 'market' as const, factor: 0.97 },
  { id: 'csfloat', role: 'market' as const, factor: 1.02 },
  { id: 'steam', role: 'guard' as const, factor: 1.15 },
];
const rules: PriceRules = { maxAgeMs: 3_600_000, minLiquidity: 3, minSources: 2, outlierRatio: 1.5, jumpRatio: 1.5 };
const names = Array.from({ length: N }, (_, i) => `Bench Item ${i} (Field-Tested)`);
const basePrice = (i: number) => 100 + ((i * 7919) % 500_000);

function readings(source: (typeof SOURCES)[number], changed: (i: number) => boolean, now: number): PollResult {
  const out: PollResult = { readings: [], complete: source.id === 'steam' ? [] : [...GAMES] };
  for (const game of GAMES) {
    for (let i = 0; i < N; i++) {
      const p = Math.round(basePrice(i) * source.factor * (changed(i) ? 1.1 : 1));
      out.readings.push({ game, name: names[i]!, price: p, asOf: now, liquidity: 20 });
    }
  }
  return out;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};

async function main() {
  const cluster = process.env.BENCH_DATABASE_URL ? undefined : await startDurableCluster();
  const url = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  const pool = createPool(url, 4);
  await migrate(pool);
  const db = createDb(pool);
  const store = createBaseStore(db, pino({ level: 'warn' }));
  const engine = createPriceEngine({ rules, store, rowOf: (c) => basisRow(c.it.game, c.it.name, c.basis, c.it.readings.values()) });

  // The hot path's lookup: 2 000 names of one game, each two Map gets and the deposit price.
  let lookups: number[] = [];
  let running = true;
  const ask = () => {
    if (!running) return;
    const askedAt = performance.now();
    setTimeout(() => {
      const game: Game = GAMES[Math.floor(Math.random() * GAMES.length)]!;
      const start = Math.floor(Math.random() * (N - 2000));
      let sum = 0;
      for (let i = start; i < start + 2000; i++) sum += engine.get(game, names[i]!)?.basis?.deposit ?? 0;
      if (sum < 0) throw new Error('unreachable');
      lookups.push(performance.now() - askedAt);
      setTimeout(ask, 10);
    }, 0);
  };
  const window = async (fn: () => Promise<void>) => {
    lookups = [];
    const t = performance.now();
    await fn();
    return { ms: performance.now() - t, p50: pct(lookups, 0.5), p99: pct(lookups, 0.99), n: lookups.length };
  };
  // The polls' answers are made before each measured window (parsing them is the source's cost, not the engine's).
  const refresh = (changed: (i: number) => boolean) => {
    const now = Date.now();
    let polls: (readonly [(typeof SOURCES)[number], PollResult])[] = SOURCES.map((s) => [s, readings(s, changed, now)] as const);
    return async () => {
      for (const [s, r] of polls) {
        await engine.apply(s, r);
        await engine.recompute(now); // each source's poll lands on its own
      }
      await store.flush(); // the rows written in the background: part of the refresh's wall time
      polls = []; // garbage once taken, as a poll's answer is in the gateway
    };
  };

  ask();
  const rows: string[][] = [];
  const idle1 = await window(() => new Promise((r) => setTimeout(r, 3000)));
  const settle = () => new Promise((r) => setTimeout(r, 200)); // lookups held up by making the answers are not counted
  const firstPolls = refresh(() => false);
  await settle();
  const first = await window(firstPolls);
  const idle2 = await window(() => new Promise((r) => setTimeout(r, 3000)));
  const tenthPolls = refresh((i) => i % 10 === 0);
  await settle();
  const tenth = await window(tenthPolls);
  const samePolls = refresh((i) => i % 10 === 0);
  await settle();
  const same = await window(samePolls);
  running = false;
  const stored = await db.selectFrom('price_bases').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();

  const line = (name: string, w: { ms: number; p50: number; p99: number; n: number }, target = '') =>
    rows.push([name, w.ms.toFixed(0), w.p50.toFixed(2), w.p99.toFixed(2), String(w.n), target]);
  line('idle (baseline, same run)', idle1);
  line(`first load: ${GAMES.length} games × ${N} items × ${SOURCES.length} sources`, first);
  line('idle after it', idle2);
  line('refresh, 10 % of prices changed', tenth, `lookup p99 < 30 ms (idle p99 ${idle1.p99.toFixed(2)})`);
  line('refresh, nothing changed', same);
  const head = ['price refresh (lookup = 2 000 names every 10 ms)', 'wall ms', 'lookup p50 ms', 'lookup p99 ms', 'lookups', 'target'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => c.padEnd(width[i]!)).join(' | ');
  console.log(fmt(head));
  console.log(width.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(fmt(r));
  console.log(`price bases stored: ${stored.n}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  await db.destroy();
  await cluster?.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
