// BENCH_CPU_BY_PROCESS=1: where the whole machine's CPU went during one measured run, by kind of
// process (PostgreSQL's backends apart from its autovacuum, WAL writer, checkpointer…; the gateway;
// the load generator; the bench itself), with the kernel's interrupt time, and PostgreSQL's WAL
// (records, full-page images, bytes) per operation: write amplification in numbers that the
// machine's other load does not move; with BENCH_WAL_BY_RELATION=1, those records by table and index;
// with BENCH_PG_WAITS=1, what PostgreSQL's client backends were doing, sampled (waitSampler).
import fs from 'node:fs/promises';
import pg from 'pg';
import { TICK_US, readStat } from './proc-cpu.js';

type Snapshot = { byPid: Map<number, { label: string; ppid: number; ticks: number; children: number }>; stat: number[] };

/** A process's kind: PostgreSQL's title without the per-connection part, else the script a node runs. */
function labelOf(cmdline: string, comm: string): string {
  if (cmdline.startsWith('postgres: ')) {
    const title = cmdline.slice('postgres: '.length).trim();
    if (/^\S+ \S+ [\d.:]+\(\d+\)/.test(title) || /^\S+ \S+ \[local\]/.test(title)) return 'postgres: backends';
    return `postgres: ${title.split(/\s+/).slice(0, 2).join(' ')}`;
  }
  if (/\/postgres$/.test(cmdline.split('\0')[0] ?? '')) return 'postgres: postmaster';
  const script = cmdline.split('\0').find((a) => /\.(m?[jt]s)$/.test(a) && !a.includes('node_modules/tsx'));
  if (comm === 'node' || /node$/.test(cmdline.split('\0')[0] ?? '')) return `node ${script ? script.split('/').slice(-2).join('/') : '(other)'}`;
  return comm;
}

/** The machine's CPU ticks since boot, /proc/stat's first line: user nice system idle iowait irq softirq steal … */
async function machineTicks(): Promise<number[]> {
  return (await fs.readFile('/proc/stat', 'utf8')).split('\n')[0]!.split(/\s+/).slice(1).map(Number);
}

async function snapshot(): Promise<Snapshot> {
  const byPid: Snapshot['byPid'] = new Map();
  for (const d of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const [st, cmd] = await Promise.all([readStat(d), fs.readFile(`/proc/${d}/cmdline`, 'utf8').catch(() => '')]);
    if (!st) continue;
    const { comm, ...rest } = st;
    byPid.set(Number(d), { label: labelOf(cmd.replace(/\0+$/, ''), comm), ...rest });
  }
  return { byPid, stat: await machineTicks() };
}

/** `fn` on a connection of its own to `dbUrl`, closed after; undefined when either fails. */
async function withClient<T>(dbUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T | undefined> {
  const c = new pg.Client({ connectionString: dbUrl });
  try {
    await c.connect();
    return await fn(c);
  } catch {
    return undefined;
  } finally {
    await c.end().catch(() => {});
  }
}

function walStats(dbUrl: string): Promise<{ records: number; fpi: number; bytes: number; checkpoints: number } | undefined> {
  return withClient(dbUrl, async (c) => {
    const wal = `select wal_records::float8 as records, wal_fpi::float8 as fpi, wal_bytes::float8 as bytes`;
    // pg_stat_checkpointer is PostgreSQL 17's (BENCH_DATABASE_URL may be older): without it, no count
    const r = await c
      .query(`${wal}, (select (num_timed + num_requested)::float8 from pg_stat_checkpointer) as checkpoints from pg_stat_wal`)
      .catch(() => c.query(`${wal}, 'NaN'::float8 as checkpoints from pg_stat_wal`));
    return r.rows[0];
  });
}

/**
 * BENCH_WAL_BY_RELATION=1: the WAL records of the run by the table or index they changed
 * (pg_walinspect, read back after the run): which rows and index entries an operation writes.
 */
async function walByRelation(dbUrl: string, from: string, ops: number): Promise<string> {
  const n = Math.max(1, ops);
  const text = await withClient(dbUrl, async (c) => {
    try {
      await c.query('create extension if not exists pg_walinspect');
      const r = await c.query(
        `select coalesce(cl.relname, b.relfilenode::text) as rel, count(*)::float8 as n
           from pg_get_wal_block_info($1::pg_lsn, pg_current_wal_lsn(), false) b
           left join pg_class cl on cl.relfilenode = b.relfilenode and b.reldatabase = (select oid from pg_database where datname = current_database())
          where b.relforknumber = 0
          group by 1 order by 2 desc limit 40`,
        [from],
      );
      return `  WAL records per operation by relation:\n${r.rows.map((x) => `    ${(x.n / n).toFixed(2).padStart(6)}  ${x.rel}`).join('\n')}\n`;
    } catch (err) {
      return `  WAL by relation: ${(err as Error).message}\n`;
    }
  });
  return text ?? '  WAL by relation: no connection to the database\n';
}

function currentLsn(dbUrl: string): Promise<string | undefined> {
  return withClient(dbUrl, async (c) => (await c.query('select pg_current_wal_lsn()::text as l')).rows[0].l as string);
}

/**
 * BENCH_PG_WAITS=1: pg_stat_activity sampled every 10 ms on a connection of its own during the run:
 * the average number of the cluster's client backends (every database: the baselines' UPDATEs run in
 * one of their own; the sampler's own left out) on the CPU,
 * waiting for a lock, for the WAL flush of a commit, for their client's next statement (the gateway
 * is the slower side), and so on; the time a machine leaves idle shows up here as backends waiting.
 */
async function waitSampler(dbUrl: string): Promise<() => Promise<string>> {
  const c = new pg.Client({ connectionString: dbUrl });
  try {
    await c.connect();
  } catch (err) {
    return async () => `  PostgreSQL waits: ${(err as Error).message}\n`;
  }
  const counts = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const r = await c.query<{ what: string; n: number }>(
        `select case when state = 'active' and wait_event is null then 'on the CPU (active, no wait event)'
                     else coalesce(state, '?') || ': ' || coalesce(wait_event_type || ':' || wait_event, 'no wait event') end as what,
                count(*)::int as n
           from pg_stat_activity
          where backend_type = 'client backend' and pid <> pg_backend_pid() and state <> 'idle'
          group by 1`,
      ).catch(() => undefined);
      if (r) {
        samples++;
        for (const x of r.rows) counts.set(x.what, (counts.get(x.what) ?? 0) + x.n);
      }
      await new Promise((res) => setTimeout(res, 10));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    await c.end().catch(() => {});
    const lines = [...counts].sort((a, b) => b[1] - a[1]).map(([what, n]) => `    ${(n / Math.max(1, samples)).toFixed(2).padStart(6)}  ${what}`);
    return `  PostgreSQL's client backends not idle, on average over ${samples} samples (idle ones not counted):\n${lines.join('\n')}\n`;
  };
}

/** Starts counting; the returned function ends it and renders the breakdown per operation. */
export async function machineCpu(dbUrl: string): Promise<(label: string, ops: number) => Promise<string>> {
  const [before, walBefore, lsn, waits] = await Promise.all([
    snapshot(),
    walStats(dbUrl),
    process.env.BENCH_WAL_BY_RELATION ? currentLsn(dbUrl) : undefined,
    process.env.BENCH_PG_WAITS ? waitSampler(dbUrl) : undefined,
  ]);
  // The machine's idle share each half second: a run's start (the load generator's own start) and
  // end (its last requests) are not its steady state.
  const idle: number[] = [];
  let last = before.stat;
  const sampler = setInterval(() => {
    void machineTicks().then((now) => {
      const d = now.map((v, i) => v - (last[i] ?? 0));
      last = now;
      const all = d.slice(0, 8).reduce((a, b) => a + b, 0);
      idle.push(all ? Math.round((100 * (d[3] + d[4])) / all) : 0);
    });
  }, 500);
  return async (label, ops) => {
    clearInterval(sampler);
    const [after, walAfter, waitLines] = await Promise.all([snapshot(), walStats(dbUrl), waits?.()]);
    const by = new Map<string, number>();
    // A child that exited during the run adds its whole life to its parent's children time: what it
    // had used before the run is taken off again.
    const goneBefore = new Map<number, number>();
    for (const [pid, b] of before.byPid) if (!after.byPid.has(pid)) goneBefore.set(b.ppid, (goneBefore.get(b.ppid) ?? 0) + b.ticks);
    for (const [pid, a] of after.byPid) {
      const b = before.byPid.get(pid);
      // a process born during the run counts whole; exited children count on their parent
      const d = a.ticks - (b?.ticks ?? 0) + (b ? a.children - b.children - (goneBefore.get(pid) ?? 0) : 0);
      if (d > 0) by.set(a.label, (by.get(a.label) ?? 0) + d);
    }
    const n = Math.max(1, ops);
    const us = (t: number) => Math.round((t * TICK_US) / n);
    // /proc/stat: user nice system idle iowait irq softirq steal
    const st = after.stat.map((v, i) => v - (before.stat[i] ?? 0));
    const lines = [...by].sort((x, y) => y[1] - x[1]).filter(([, t]) => us(t) > 0).map(([l, t]) => `    ${String(us(t)).padStart(6)} µs  ${l}`);
    const total = st[0] + st[1] + st[2] + st[5] + st[6] + (st[7] ?? 0);
    const wal = walBefore && walAfter
      ? `  WAL per ${label}: ${((walAfter.records - walBefore.records) / n).toFixed(1)} records, ${((walAfter.fpi - walBefore.fpi) / n).toFixed(2)} full-page images, ${Math.round((walAfter.bytes - walBefore.bytes) / n)} bytes; checkpoints during the run: ${walAfter.checkpoints - walBefore.checkpoints}\n`
      : '';
    const idleLine = `  idle % each 0.5 s: ${idle.join(' ')}\n`;
    const byRelation = lsn ? await walByRelation(dbUrl, lsn, ops) : '';
    return idleLine + `  CPU per ${label} by process (${ops} ops; machine busy ${us(total)} µs: user ${us(st[0] + st[1])}, system ${us(st[2])}, irq+softirq ${us(st[5] + st[6])}, idle ${us(st[3] + st[4])}):\n${lines.join('\n')}\n${wal}${waitLines ?? ''}${byRelation}`;
  };
}
