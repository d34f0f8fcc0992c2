// PostgreSQL's own CPU per purchase creation, batched and alone: purchase_create_batch called from
// one connection on a durable cluster, the backend's CPU read from /proc before and after. No HTTP,
// no gateway, no other load on the database: the floor under POST purchase that the database's
// work sets, per batch size. `npx tsx bench/purchase-batch-cost.ts [purchases per size]`.
// Then the move to `active` (the transition batch's guarded update, 60 purchases a statement), once
// with the table's indexes and once with only those a narrow row of a purchase's mutable state would
// still have to change: what keeping that state apart could save (issue 26, point 4).
import pg from 'pg';
import { startDurableCluster } from './durable-pg.js';
import { migrate } from '../src/db/migrate.js';
import { ticks, TICK_US } from './proc-cpu.js';
import { createDb } from '../src/db/database.js';
import { changeGuardedStatement } from '../src/modules/purchases/purchase-repo.js';

const PER_SIZE = Number(process.argv[2] ?? 4096);
const SIZES = [1, 8, 64];

const cluster = await startDurableCluster();
try {
  const pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
  pool.on('error', () => {});
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
  // The move to `active`, 60 a statement as the dispatcher's transition batch: the created ones in two halves,
  // the second after dropping the indexes whose columns the move does not change (a narrow state row
  // would leave them alone; the status, offer and dispatch indexes would move with it).
  const db = createDb(pool); // compiles the statement only; the pool is ended below, once
  const pendingIds = (await c.query<{ id: number }>(`select id from purchases where status = 'pending' order by id`)).rows.map((r) => Number(r.id));
  const moveToActive = async (ids: number[]) => {
    const t0 = await ticks(pid);
    for (let k = 0; k < ids.length; k += 60) {
      const at = new Date();
      const q = changeGuardedStatement(ids.slice(k, k + 60).map((id) => ({
        id, from: 'pending' as const,
        patch: { status: 'active' as const, updated_at: at, trade_offer_id: `cost-offer-${id}`, bot_id: 1, bot_name: 'cost-bot', offer_expires_at: new Date(at.getTime() + 600_000) },
      }))).compile(db);
      await c.query(q.sql, q.parameters as unknown[]);
    }
    return Math.round((((await ticks(pid)) - t0) * TICK_US) / Math.max(1, ids.length));
  };
  const halfway = Math.floor(pendingIds.length / 2);
  const withAll = await moveToActive(pendingIds.slice(0, halfway));
  const untouched = ['purchases_merchant_idx', 'purchases_listing_idx', 'purchases_merchant_game_idx', 'purchases_item_asset_id_idx'];
  for (const ix of untouched) await c.query(`drop index ${ix}`);
  await c.query('alter table purchases drop constraint purchases_merchant_tx_id_key');
  const withFewer = await moveToActive(pendingIds.slice(halfway));
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
  console.log(`\n| the move to \`active\`, 60 a statement | purchases | PostgreSQL CPU µs per purchase |\n| --- | --- | --- |`);
  console.log(`| with the table's indexes | ${halfway} | ${withAll} |`);
  console.log(`| without the ${untouched.length + 1} the move does not change (${[...untouched, 'purchases_merchant_tx_id_key'].join(', ')}) | ${pendingIds.length - halfway} | ${withFewer} |`);
  if (statements.length) {
    console.log('\n| calls | mean µs | total ms | WAL records | full pages | WAL bytes | statement |\n| --- | --- | --- | --- | --- | --- | --- |');
    for (const r of statements) console.log(`| ${r.calls} | ${r.mean_us} | ${r.total_ms} | ${r.wal_records} | ${r.wal_fpi} | ${r.wal_bytes} | \`${r.query}\` |`);
  }
} finally {
  await cluster.stop();
}
