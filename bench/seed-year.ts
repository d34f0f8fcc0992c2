// `npm run bench:seed-year [-- --scale 0.01] [--webhook-days 365]` (issue 26): fills a gateway
// database with a year of a busy gateway, in the proportions the real flows produce, so that
// benchmarks and EXPLAIN checks can run against a grown database instead of an empty one.
//
// At --scale 1: 100 merchants, 8.4 M deposits (1–3 items each), 6.4 M purchases (each with its sold
// listing), ~20.5 M ledger entries, status history, webhook events and attempts, 1.6 M get-prices
// drafts with their quotes. Skewed: merchant m (1..100) is drawn as floor(101^(u²)), so the top 5
// hold ~60 % of the volume. Every row is written by INSERT … SELECT generate_series on the server
// (no rows cross the wire), with the secondary indexes dropped during the load and rebuilt after,
// and triggers off (session_replication_role = replica: the generator writes the status history and
// keys itself); CHECK, primary-key and unique constraints stay on, and the foreign keys hold by
// construction. Balances are the sums of the entries, so `gateway ledger verify` accepts the result
// (the generator runs it at the end, with its time).
//
// Target: DATABASE_URL (a migrated gateway database, or an empty one: it is migrated first), else
// a throwaway embedded cluster (durable settings) that is stopped at the end (--keep keeps it
// running and prints its URL). Needs a superuser (session_replication_role).
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { createDb } from '../src/db/database.js';
import { verifyLedger } from '../src/modules/ledger/ledger-verify.js';
import { startDurableCluster } from './durable-pg.js';
import { seedYear } from './seed-year-data.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : dflt;
};
const scale = Number(arg('scale', '1'));
const webhookDays = Number(arg('webhook-days', '365'));
const keep = process.argv.includes('--keep');
if (!(scale > 0) || !(webhookDays > 0 && webhookDays <= 365)) {
  console.error('usage: seed-year [--scale 0.01] [--webhook-days 1..365] [--keep]');
  process.exit(2);
}

const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

async function main() {
  let url = process.env.DATABASE_URL;
  let cluster: Awaited<ReturnType<typeof startDurableCluster>> | undefined;
  if (!url) {
    cluster = await startDurableCluster();
    url = cluster.url;
    log(`embedded cluster at ${cluster.dir}`);
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  const timings: { step: string; ms: number; rows?: number }[] = [];
  const started = Date.now();
  try {
    await migrate(pool);
    const c = await pool.connect();
    let released = false;
    const release = () => {
      if (!released) c.release();
      released = true;
    };
    try {
      const { timings: steps, indexes } = await seedYear(c, { scale, webhookDays, log });
      timings.push(...steps);
      const q = (text: string) => c.query(text);
      const loadMs = Date.now() - started;

      // Sizes per table (with indexes and TOAST), largest first.
      const sizes = await q(`
        select c.relname as table, c.reltuples::bigint as rows,
               pg_size_pretty(pg_table_size(c.oid)) as heap, pg_size_pretty(pg_indexes_size(c.oid)) as indexes,
               pg_size_pretty(pg_total_relation_size(c.oid)) as total, pg_total_relation_size(c.oid) as bytes
          from pg_class c where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace and c.reltuples > 0
         order by pg_total_relation_size(c.oid) desc`);
      const [{ db }] = (await q(`select pg_size_pretty(pg_database_size(current_database())) as db`)).rows as { db: string }[];
      release();

      // ledger verify on the result, with its time (full, then incremental from the checkpoint it stored).
      const kdb = createDb(pool);
      let t = Date.now();
      const full = await verifyLedger(kdb, undefined, { onProgress: (d, n) => process.stderr.write(`\rledger verify ${d}/${n}`) });
      const fullMs = Date.now() - t;
      process.stderr.write('\n');
      t = Date.now();
      const inc = await verifyLedger(kdb, undefined, { incremental: true });
      const incMs = Date.now() - t;

      console.log(`\nseed-year --scale ${scale}: loaded in ${(loadMs / 1000).toFixed(1)} s; database ${db}\n`);
      console.log('| table | rows | heap | indexes | total |\n|---|---:|---:|---:|---:|');
      for (const r of sizes.rows) console.log(`| ${r.table} | ${Number(r.rows).toLocaleString('en')} | ${r.heap} | ${r.indexes} | ${r.total} |`);
      console.log('\n| step | rows | seconds |\n|---|---:|---:|');
      for (const s of timings.filter((x) => !x.step.startsWith('index '))) console.log(`| ${s.step} | ${s.rows ?? ''} | ${(s.ms / 1000).toFixed(1)} |`);
      console.log(`| rebuild ${indexes} indexes | | ${(timings.filter((x) => x.step.startsWith('index ')).reduce((s, x) => s + x.ms, 0) / 1000).toFixed(1)} |`);
      console.log(`\nledger verify (full): ${full.entries} entries, ${full.checked} balances, ${full.mismatches.length} mismatches, ${(fullMs / 1000).toFixed(1)} s`);
      console.log(`ledger verify --incremental: ${inc.entries} entries, ${inc.mismatches.length} mismatches, ${(incMs / 1000).toFixed(2)} s`);
      if (full.mismatches.length || inc.mismatches.length) process.exitCode = 1;
      if (keep) console.log(`\nkept: DATABASE_URL=${url}`);
    } finally {
      release();
    }
  } finally {
    await pool.end();
    if (cluster && !keep) await cluster.stop();
  }
  if (keep) {
    console.log(cluster ? 'Ctrl-C stops the cluster and removes its directory.' : '');
    const timer = setInterval(() => {}, 1 << 30);
    // Without this a Ctrl-C left the cluster running and its directory (≈ 2.7 GB at scale 0.05) in the temporary directory.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        clearInterval(timer);
        void (cluster ? cluster.stop() : Promise.resolve()).finally(() => process.exit(130));
      });
    }
  }
}

await main();
