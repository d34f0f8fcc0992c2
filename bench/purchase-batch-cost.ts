// PostgreSQL's own CPU per purchase creation, batched and alone: purchase_create_batch called from
// one connection on a durable cluster, the backend's CPU read from /proc before and after. No HTTP,
// no gateway, no other load on the database: the floor under POST purchase that the database's
// work sets, per batch size. `npx tsx bench/purchase-batch-cost.ts [purchases per size]`.
import pg from 'pg';
import { startDurableCluster } from './durable-pg.js';
import { migrate } from '../src/db/migrate.js';
import { ticks, TICK_US } from './proc-cpu.js';

const PER_SIZE = Number(process.argv[2] ?? 4096);
const SIZES = [1, 8, 64];

const cluster = await startDurableCluster();
try {
  const pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
  await migrate(pool);
  if (process.env.BENCH_PG_STATEMENTS) await pool.query('create extension if not exists pg_stat_statements');
  const c = await pool.connect();
  const merchants = 64;
  await c.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) select 'cost-' || g, md5('cost-' || g), 'sk_cost', 'secret' from generate_series(1, ${merchants}) g`);
  await c.query(`insert into balances (merchant_id, available, hold) select id, 1000000000000, 0 from merchants on conflict (merchant_id) do update set available = excluded.available`);
  const total = PER_SIZE * SIZES.length;
  await c.query(`insert into listings (id, game, name, base_price, source) select to_hex(g), 'csgo', 'Item ' || (g % 500), 1000 + g % 977, 'seed' from generate_series(1, $1) g`, [total]);
  // Only the tables with their rows in: an ANALYZE of the empty ledger makes the functions' cached
  // generic plans scan it (stats of 0 rows), a trap a grown database does not have.
  await c.query('analyze listings, merchants, balances');
  if (process.env.BENCH_PG_STATEMENTS) await c.query('select pg_stat_statements_reset()');
  const pid = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
  const mids = (await c.query<{ id: number }>('select id from merchants order by id')).rows.map((r) => r.id);
  let next = 1;
  const rows: string[] = [];
  for (const size of SIZES) {
    const t0 = await ticks(pid);
    const w0 = performance.now();
    for (let done = 0; done < PER_SIZE; done += size) {
      const items = Array.from({ length: size }, (_, i) => {
        const n = next++;
        return { i, merchant_id: mids[n % merchants], merchant_tx_id: `cost-${n}`, game: 'csgo', partner: 12345678, token: 'abcdEFGH', platform_id: '76561198000000000',
          platform_name: 'x', platform_avatar_url: null, at: new Date().toISOString(), asset_id: n.toString(16), name: null, markup: 1.1, max_price: null, jobs: [] };
      });
      const r = await c.query('select r.r_outcome from purchase_create_batch($1::json) r', [JSON.stringify(items)]);
      if (r.rows.some((x) => x.r_outcome !== 'created')) throw new Error('a creation was not plain');
    }
    const us = ((await ticks(pid)) - t0) * TICK_US;
    const wall = performance.now() - w0;
    rows.push(`| ${size} | ${PER_SIZE} | ${Math.round(us / PER_SIZE)} | ${Math.round((PER_SIZE / wall) * 1000).toLocaleString('en-US')} |`);
  }
  // the same statement the UPDATE-loop baseline runs, from this one connection, for scale
  await c.query('create table cost_u (id int primary key, n bigint not null default 0)');
  await c.query('insert into cost_u values (1, 0)');
  const u0 = await ticks(pid);
  for (let i = 0; i < PER_SIZE; i++) await c.query('update cost_u set n = n + 1 where id = 1');
  const uUs = ((await ticks(pid)) - u0) * TICK_US;
  // BENCH_PG_STATEMENTS=N: where the time goes, statement by statement (nested ones included)
  const top = Number(process.env.BENCH_PG_STATEMENTS) || 0;
  const statements = top
    ? (await c.query(`select calls, round((total_exec_time / greatest(calls, 1) * 1000)::numeric)::int as mean_us, round(total_exec_time)::int as total_ms,
                             wal_records, wal_fpi, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query
                        from pg_stat_statements order by total_exec_time desc limit $1`, [top])).rows
    : [];
  c.release();
  await pool.end();
  console.log('| batch size | purchases | PostgreSQL CPU µs per purchase | purchases/s (one connection) |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
  console.log(`| (one single-row UPDATE per transaction, for scale) | ${PER_SIZE} | ${Math.round(uUs / PER_SIZE)} | |`);
  if (statements.length) {
    console.log('\n| calls | mean µs | total ms | WAL records | full pages | WAL bytes | statement |\n| --- | --- | --- | --- | --- | --- | --- |');
    for (const r of statements) console.log(`| ${r.calls} | ${r.mean_us} | ${r.total_ms} | ${r.wal_records} | ${r.wal_fpi} | ${r.wal_bytes} | \`${r.query}\` |`);
  }
} finally {
  await cluster.stop();
}
