// `npm run bench`: the gateway as `npm start` runs it (its own process: node bin/start.mjs, dist/main.js)
// on a durable PostgreSQL (fsync and synchronous_commit on; BENCH_DATABASE_URL for an existing
// server), loaded by autocannon from a separate process (bench/load.ts), next to three baselines
// measured in the same run on the same machine:
//   (a) a bare Fastify constant route and (b) a bare Fastify route doing one pooled primary-key
//   SELECT on the same database (bench/baseline-server.ts, its own process), and (c) a single-row
//   UPDATE loop at the purchases' client count and durability (pgbench when installed, else
//   bench/update-loop.ts in its own process).
// Prints one table with ratios, the gateway's peak RSS and the ledger verify result.
// BENCH_S (seconds per scenario, default 8), BENCH_ONLY (scenario name filter, parts separated by |; baselines always
// run), BENCH_CATALOGUE_SIZE (default 50 000), BENCH_GATEWAY_DIR (the checkout to start, default
// this one: measure another branch's gateway with this harness), BENCH_PG_STATEMENTS=1 (embedded
// cluster: load pg_stat_statements and print the scenarios' top statements after the table, and those of the
// one-merchant accept run and purchase run alone on stderr).
// BENCH_BALANCE_PAIRS=N: GET balance against (b) in N alternating pairs, the median ratio in its own row.
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startDurableCluster } from './durable-pg.js';
import { startGateway as startGatewayProcess, stopProcess, peakRssMb, startToReady } from './gateway-process.js';
import { ADMIN, DURATION_S, PG_STATEMENTS_NESTED, PG_STATEMENTS_ORDER, call, load } from './harness.js';
import { table } from './row.js';
import { scenarioPlan } from './scenarios.js';
import { cpuMeter, postmasterPid } from './proc-cpu.js';

const exec = promisify(execFile);
const CATALOGUE_SIZE = Number(process.env.BENCH_CATALOGUE_SIZE ?? 50_000);
const GATEWAY_DIR = path.resolve(process.env.BENCH_GATEWAY_DIR ?? process.cwd());
const ONLY = process.env.BENCH_ONLY;
/** Baseline (c): one single-row UPDATE per transaction per client, each client its own row. */
async function updateLoop(url: string, clients: number): Promise<{ tps: number; tool: string }> {
  const u = new URL(url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('drop database if exists bench_update');
  await admin.query('create database bench_update');
  await admin.end();
  u.pathname = '/bench_update';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query('create table t (id int primary key, n bigint not null default 0)');
  await c.query('insert into t (id) select generate_series(1, $1)', [clients]);
  await c.end();
  const pgbench = await exec('pgbench', ['--version']).then(() => true, () => false);
  if (pgbench) {
    const script = path.join(os.tmpdir(), `bench-update-${process.pid}.sql`);
    await fs.writeFile(script, 'update t set n = n + 1 where id = :client_id + 1;\n');
    const { stdout } = await exec('pgbench', ['-n', '-c', String(clients), '-j', '2', '-T', String(DURATION_S), '-f', script, '-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username), 'bench_update'], {
      env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) },
    });
    await fs.rm(script, { force: true });
    const m = /tps = ([\d.]+)/.exec(stdout);
    return { tps: m ? Number(m[1]) : 0, tool: 'pgbench' };
  }
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', path.resolve('bench/update-loop.ts'), u.toString(), String(clients), String(DURATION_S)]);
  return { tps: Number(stdout.trim()), tool: 'node update loop' };
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * The statements that took the most database time over the scenarios (BENCH_PG_STATEMENTS=1: 15 of
 * them; =N: N), those run inside functions and triggers included (BENCH_PG_TOPLEVEL=1: only the
 * statements clients sent, whose times add up to the database's busy time; BENCH_PG_BY=calls:
 * the most frequent first, the round trips; =plan: by planning time, which the execution time leaves out).
 */
async function topStatements(url: string): Promise<string> {
  const r = await withClient(url, (c) =>
    c.query(`select calls, round(total_exec_time)::bigint as total_ms, round((total_exec_time / greatest(calls, 1) * 1000)::numeric)::bigint as mean_us,
                    round(total_plan_time)::bigint as plan_ms,
                    shared_blks_hit + shared_blks_read as blocks, left(query, 400) as query
               from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and ($2 or toplevel)
              order by ${PG_STATEMENTS_ORDER} desc limit $1`, [Math.max(15, Number(process.env.BENCH_PG_STATEMENTS) || 15), PG_STATEMENTS_NESTED]),
  );
  const lines = r.rows.map((x) => `| ${x.calls} | ${x.total_ms} | ${x.mean_us} | ${x.plan_ms} | ${x.blocks} | \`${String(x.query).replace(/\s+/g, ' ').slice(0, 140).replace(/\|/g, '\\|').replace(/`/g, "'")}\` |`);
  return ['| calls | total ms | mean µs | planning ms | blocks | statement |', '| --- | --- | --- | --- | --- | --- |', ...lines].join('\n');
}

async function main() {
  const startup = ONLY && !'start-to-ready'.includes(ONLY) ? undefined : await startToReady(GATEWAY_DIR, ADMIN);

  const cluster = process.env.BENCH_DATABASE_URL ? undefined : await startDurableCluster();
  const dbUrl = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  const procs: ChildProcess[] = [];
  let gateway: Awaited<ReturnType<typeof startGatewayProcess>> | undefined;
  try {
    process.stderr.write(`starting the gateway (${CATALOGUE_SIZE} sandbox listings)…\n`);
    gateway = await startGatewayProcess(GATEWAY_DIR, {
      DATABASE_URL: dbUrl,
      ADMIN_TOKEN: ADMIN,
      SANDBOX_CATALOGUE_SIZE: String(CATALOGUE_SIZE),
      CATALOGUE_STREAM_CONCURRENCY: '64',
      // The scenarios load one API key with thousands of requests a second: its limit far above
      // that (the limiter still runs). The hosted door keeps its default (the flood scenario).
      RATE_LIMIT_MERCHANT_PER_MINUTE: process.env.RATE_LIMIT_MERCHANT_PER_MINUTE ?? '10000000',
    });
    procs.push(gateway.child);

    const cpu = cluster
      ? { pg: cpuMeter(await postmasterPid(path.join(cluster.dir, 'pg'))), gateway: cpuMeter(gateway.child.pid!) }
      : undefined;
    if (process.env.BENCH_PG_STATEMENTS && cluster) await withClient(dbUrl, (c) => c.query('create extension if not exists pg_stat_statements'));
    const plan = await scenarioPlan({ gatewayUrl: gateway.url, gatewayDir: GATEWAY_DIR, dbUrl, durationS: DURATION_S, only: ONLY, procs, updateLoop, cpu });
    // The statements of the scenarios only, not of their setup.
    if (process.env.BENCH_PG_STATEMENTS && cluster) await withClient(dbUrl, (c) => c.query('select pg_stat_statements_reset()'));
    const rows = await plan.run();
    const rss = await peakRssMb(gateway.child.pid!);
    const verify = await plan.verify();

    console.log(`\n## npm run bench — ${new Date().toISOString()}\n`);
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
      `database: ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'durable embedded cluster (fsync on, synchronous_commit on)'}; ` +
      `gateway: ${GATEWAY_DIR}; ${DURATION_S} s per scenario; load from autocannon in its own process\n`);
    console.log(table(rows));
    console.log(`\ngateway peak RSS: ${rss} MB`);
    if (startup) {
      console.log(`start to ready (embedded, DATA_DIR): first start ${startup.firstMs} ms, existing DATA_DIR ${startup.againMs} ms; idle RSS ${startup.idleRssMb} MB`);
    }
    if (process.env.BENCH_PG_STATEMENTS && cluster) console.log(`\n${await topStatements(dbUrl)}`);
    console.log(`overdrafts: ${verify.overdrafts}; ledger verify: ${verify.mismatches === 0 ? 'balanced' : `${verify.mismatches} MISMATCHES`} (${verify.checked} balances)`);
  } finally {
    for (const p of procs) await stopProcess(p);
    await cluster?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
