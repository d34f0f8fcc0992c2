// CPU time per request of the hot reads, counted from /proc (user + system ticks of the gateway,
// of every PostgreSQL process and of the baseline server), next to req/s: a number that the
// machine's other load disturbs far less than throughput. Development aid for issue 12, not part
// of `npm run bench`. `npx tsx bench/cpu-per-request.ts [seconds] [filter]` (under the bench lock);
// BENCH_GATEWAY_DIR measures another checkout, GW_ENV='{"LOG_REQUESTS":"off"}' adds settings.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { startDurableCluster } from './durable-pg.js';
import { sumTicks, ticks, tree, TICK_US, postmasterPid } from './proc-cpu.js';
import { startGateway, stopProcess } from './gateway-process.js';
import type { LoadResult, LoadSpec } from './load.js';

const exec = promisify(execFile);
const S = Number(process.argv[2] ?? 5);
const ONLY = process.argv[3];
const ADMIN = 'bench-admin-token-0123456789abcdef';
async function load(spec: Omit<LoadSpec, 'durationS'>): Promise<LoadResult> {
  const file = path.join(os.tmpdir(), `cpu-load-${process.pid}.json`);
  await fs.writeFile(file, JSON.stringify({ durationS: S, ...spec }));
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', path.resolve('bench/load.ts'), file], { maxBuffer: 1 << 26 });
  await fs.rm(file, { force: true });
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}

/** This process's exited, waited-for children's ticks (cutime + cstime): the load generator's CPU once it has exited. */
async function waitedChildTicks(): Promise<number> {
  return (await sumTicks([process.pid])) - (await ticks(process.pid));
}

async function call(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => undefined)) as any };
}

async function main() {
  const cluster = await startDurableCluster();
  const procs: ChildProcess[] = [];
  try {
    const gw = await startGateway(path.resolve(process.env.BENCH_GATEWAY_DIR ?? process.cwd()), { DATABASE_URL: cluster.url, ADMIN_TOKEN: ADMIN, SANDBOX_CATALOGUE_SIZE: '2000', ...(process.env.GW_ENV ? JSON.parse(process.env.GW_ENV) : {}) });
    procs.push(gw.child);
    const adminH = { authorization: `Bearer ${ADMIN}` };
    const m = await call(`${gw.url}/api/admin/merchants`, 'POST', { name: 'cpu' }, adminH);
    await call(`${gw.url}/api/admin/merchants/${m.body.data.id}/top-ups`, 'POST', { amount: 100000, reference: 'cpu' }, adminH);
    const key = { 'x-api-key': m.body.data.api_key as string };
    const api = `${gw.url}/api/v1/merchant`;
    const page = await call(`${api}/purchase/available?game=csgo&full=true&page=1`, 'GET', undefined, key);
    const item = page.body.data.items[0];
    const bought = await call(`${api}/purchase`, 'POST', { partner: 12345678, token: 'abcdefgh', game: 'csgo', asset_id: item.id, merchant_tx_id: 'cpu-1' }, key);
    const inv = await call(`${api}/inventory`, 'POST', { game: 'csgo', partner: 30000000, token: 'abcdefgh' }, key);
    const dep = await call(`${api}/create-deposit`, 'POST', { game: 'csgo', partner: 30000000, token: 'abcdefgh', merchant_tx_id: 'cpu-d1', asset_ids: [inv.body.data.items[0].id] }, key);
    const page2 = await call(`${api}/purchase/available?game=csgo&full=true&page=1`, 'GET', undefined, key);
    const etag = page2.headers.get('etag')!;
    const grouped = await call(`${api}/purchase/available?game=csgo`, 'GET', undefined, key);
    const names = Array.from({ length: 2000 }, (_, i) => grouped.body.data.items[i % grouped.body.data.items.length].name as string);

    const base = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/baseline-server.ts'), cluster.url, String(m.body.data.id)], { stdio: ['ignore', 'pipe', 'inherit'] });
    procs.push(base);
    const baseUrl = await new Promise<string>((resolve) => {
      let buf = '';
      base.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        const mm = /listening (\S+)/.exec(buf);
        if (mm) resolve(mm[1]);
      });
    });
    const pgPid = await postmasterPid(path.join(cluster.dir, 'pg'));

    const scenarios: { name: string; url: string; pid: number; spec: Omit<LoadSpec, 'durationS' | 'url'> }[] = [
      { name: '(a) const', url: baseUrl, pid: base.pid!, spec: { connections: 50, paths: ['/const'] } },
      { name: '(b) pk', url: baseUrl, pid: base.pid!, spec: { connections: 50, paths: ['/pk'] } },
      { name: 'balance', url: gw.url, pid: gw.child.pid!, spec: { connections: 50, paths: ['/api/v1/merchant/balance'], headers: key } },
      { name: 'purchase/status', url: gw.url, pid: gw.child.pid!, spec: { connections: 50, paths: [`/api/v1/merchant/purchase/status?id=${bought.body.data.id}`], headers: key } },
      { name: 'deposit/status', url: gw.url, pid: gw.child.pid!, spec: { connections: 50, paths: [`/api/v1/merchant/deposit/status?id=${dep.body.data.id}`], headers: key } },
      { name: '304', url: gw.url, pid: gw.child.pid!, spec: { connections: 50, paths: ['/api/v1/merchant/purchase/available?game=csgo&full=true&page=1'], headers: { ...key, 'if-none-match': etag } } },
      { name: 'get-prices', url: gw.url, pid: gw.child.pid!, spec: { connections: 4, method: 'POST', paths: ['/api/v1/merchant/get-prices'], headers: key, body: { game: 'csgo', marketHashNames: names } } },
    ];
    await load({ url: gw.url, connections: 50, paths: ['/api/v1/merchant/balance', `/api/v1/merchant/purchase/status?id=${bought.body.data.id}`], headers: key });
    console.log('| scenario | req/s | p50 | p99 | non-2xx | server CPU µs/req | PostgreSQL CPU µs/req | load generator CPU µs/req |\n|---|---|---|---|---|---|---|---|');
    for (const s of scenarios) {
      if (ONLY && !s.name.includes(ONLY) && !s.name.startsWith('(')) continue;
      const pgs = await tree(pgPid);
      const t0 = await ticks(s.pid);
      const p0 = await sumTicks(pgs);
      const l0 = await waitedChildTicks();
      const r = await load({ url: s.url, ...s.spec });
      const t1 = await ticks(s.pid);
      const p1 = await sumTicks(await tree(pgPid));
      const l1 = await waitedChildTicks();
      const per = (t: number) => Math.round((t * TICK_US) / Math.max(1, r.requests));
      console.log(`| ${s.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${per(t1 - t0)} | ${per(p1 - p0)} | ${per(l1 - l0)} |`);
    }
  } finally {
    for (const p of procs) await stopProcess(p);
    await cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
