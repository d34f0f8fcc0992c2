// The crash test: a gateway child process on a durable embedded cluster, clients firing top-ups,
// withdrawals, purchases and deposits (with sandbox accepts/releases) while webhooks go to a local
// receiver, then kill -9 of the whole process group mid-burst and a restart, cycle after cycle.
// After each restart: every acknowledged write is there, the books balance, the balance equals
// what the records' statuses say it must be (nothing moved twice), every record reaches a terminal
// status once its timer runs, and every committed status change reached the receiver.
// Used by test/trust/crash.test.ts (3 short cycles) and bench/crash-test.ts (10 longer ones).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { embeddedUrl, freePort } from '../../src/db/embedded.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { balanceAgainstRecords, TERMINAL } from './books.js';
import { http, processesWith, ready, SHORT_TIMERS, spawnGateway, waitFor, type GatewayProcess } from './gateway-process.js';

export interface CrashOptions {
  cycles: number;
  /** How long each burst runs before the kill (a random point in [min, max]). */
  burstMs: [number, number];
  clients: number;
  catalogueSize: number;
  log?: (msg: string) => void;
}

export interface CycleResult {
  cycle: number;
  acked: { topUps: number; withdrawals: number; purchases: number; deposits: number; sandboxActions: number };
  restartMs: number;
  settleMs: number;
  webhookEvents: number;
}

/** Short timers so records left mid-flight by a kill end within seconds. */
const TIMERS = { ...SHORT_TIMERS, WORKER_CONCURRENCY: '8' };
const TOKEN = 'abcdefgh';

interface Acked {
  topUps: Map<string, number>; // reference → amount (mills)
  withdrawals: Map<number, string>; // id → reference
  purchases: Map<string, number>; // merchant_tx_id → id
  deposits: Map<string, number>; // merchant_tx_id → id
  sandboxActions: number;
}

export class CrashFailure extends Error {}
function check(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new CrashFailure(msg);
}

export async function runCrashCycles(opts: CrashOptions): Promise<CycleResult[]> {
  const log = opts.log ?? (() => {});
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-crash-'));
  await fs.chmod(root, 0o755);
  const dataDir = path.join(root, 'data');
  const port = await freePort();
  const receiver = await startReceiver();
  let gw: GatewayProcess | undefined;
  const env = { ...TIMERS, SANDBOX_CATALOGUE_SIZE: String(opts.catalogueSize) };
  const acked: Acked = { topUps: new Map(), withdrawals: new Map(), purchases: new Map(), deposits: new Map(), sandboxActions: 0 };
  const results: CycleResult[] = [];
  try {
    gw = await ready(spawnGateway({ dataDir, port, env }));
    const created = await http(gw.url, 'POST', '/api/admin/merchants', { admin: true, body: { name: 'Crash shop', webhook_url: receiver.url('/hook') } });
    check(created.status === 201, `merchant: ${JSON.stringify(created.body)}`);
    const merchant = created.body.data as { id: number; api_key: string };
    check((await http(gw.url, 'POST', `/api/admin/merchants/${merchant.id}/top-ups`, { admin: true, body: { amount: 1_000_000, reference: 'initial' } })).status === 201, 'initial top-up');
    acked.topUps.set('initial', 1_000_000_000);

    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      const counts = { topUps: acked.topUps.size, withdrawals: acked.withdrawals.size, purchases: acked.purchases.size, deposits: acked.deposits.size, sandboxActions: acked.sandboxActions };
      const listings = await liveListings(gw, merchant.api_key);
      const burst = burstClients(gw, merchant, cycle, opts.clients, listings, acked);
      // The kill comes a random moment after every kind of write has been answered at least once
      // this cycle (on a loaded machine the first deposit can take seconds).
      await waitFor(() => acked.topUps.size > counts.topUps && acked.withdrawals.size > counts.withdrawals &&
        acked.purchases.size > counts.purchases && acked.deposits.size > counts.deposits, 30_000, 'a write of every kind');
      const [min, max] = opts.burstMs;
      await sleep(min + Math.random() * (max - min));
      gw.killGroup();
      burst.stop();
      await gw.exited;
      await burst.done;
      await waitFor(() => processesWith(dataDir).length === 0, 15_000, 'the killed group to be gone');

      const t0 = Date.now();
      gw = await ready(spawnGateway({ dataDir, port, env }));
      const restartMs = Date.now() - t0;
      const t1 = Date.now();
      const events = await verify(gw, dataDir, merchant.id, acked, receiver);
      results.push({
        cycle,
        acked: {
          topUps: acked.topUps.size - counts.topUps,
          withdrawals: acked.withdrawals.size - counts.withdrawals,
          purchases: acked.purchases.size - counts.purchases,
          deposits: acked.deposits.size - counts.deposits,
          sandboxActions: acked.sandboxActions - counts.sandboxActions,
        },
        restartMs,
        settleMs: Date.now() - t1,
        webhookEvents: events,
      });
      log(`cycle ${cycle}: ${JSON.stringify(results.at(-1))}`);
    }
    gw.child.kill('SIGTERM');
    check((await gw.exited) === 0, `clean stop: ${gw.output()}`);
    return results;
  } finally {
    gw?.killGroup();
    await receiver.close();
    await fs.rm(root, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function liveListings(gw: GatewayProcess, key: string): Promise<string[]> {
  const res = await http(gw.url, 'GET', '/api/v1/merchant/purchase/available?game=csgo&full=true', { key, timeoutMs: 60_000 });
  check(res.status === 200, `available: ${res.status}`);
  return (res.body.data.items as { id: string }[]).map((i) => i.id);
}

/** Client loops that record what the gateway acknowledged, until stopped or the gateway dies. */
function burstClients(gw: GatewayProcess, m: { id: number; api_key: string }, cycle: number, clients: number, listings: string[], acked: Acked) {
  let stopped = false;
  let seq = 0;
  const admin = (p: string, body: unknown) => http(gw.url, 'POST', `/api/admin/merchants/${m.id}${p}`, { admin: true, body, timeoutMs: 10_000 });
  const merchant = (method: string, p: string, body?: unknown) => http(gw.url, method, `/api/v1/merchant${p}`, { key: m.api_key, body, timeoutMs: 10_000 });
  const ops = [
    async () => {
      const reference = `c${cycle}-t${++seq}`;
      const r = await admin('/top-ups', { amount: 1.001, reference });
      if (r.status === 201) acked.topUps.set(reference, 1001);
    },
    async () => {
      const reference = `c${cycle}-w${++seq}`;
      const r = await admin('/withdrawals', { amount: 0.5, reference });
      if (r.status === 201) acked.withdrawals.set(r.body.data.id, reference);
    },
    async () => {
      const asset = listings.pop();
      if (!asset) return;
      const tx = `c${cycle}-p${++seq}`;
      const r = await merchant('POST', '/purchase', { game: 'csgo', partner: 12345678, token: TOKEN, asset_id: asset, merchant_tx_id: tx });
      if (r.status === 200) acked.purchases.set(tx, r.body.data.id);
    },
    async () => {
      const partner = 20_000_000 + cycle * 100_000 + ++seq;
      const inv = await merchant('POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
      if (inv.status !== 200 || !inv.body.data.items.length) return;
      const tx = `c${cycle}-d${++seq}`;
      const r = await merchant('POST', '/create-deposit', { game: 'csgo', partner, token: TOKEN, asset_ids: [inv.body.data.items[0].id], merchant_tx_id: tx });
      if (r.status !== 200) return;
      acked.deposits.set(tx, r.body.data.id);
      // Most offers are accepted (into the hold, or completed at once; some holds released now);
      // the rest expire on their timer.
      const roll = Math.random();
      if (roll < 0.8) {
        const a = await merchant('POST', `/sandbox/deposit/${r.body.data.id}/accept`, { hold: roll < 0.5 });
        if (a.status === 200) acked.sandboxActions++;
        if (roll < 0.2 && a.status === 200 && (await merchant('POST', `/sandbox/deposit/${r.body.data.id}/release`, {})).status === 200) acked.sandboxActions++;
      }
    },
  ];
  const loops = Array.from({ length: clients }, async (_, i) => {
    const op = ops[i % ops.length]!;
    while (!stopped) {
      try {
        await op();
      } catch {
        if (stopped) return; // the gateway died under the request: not acknowledged
        await sleep(50);
      }
    }
  });
  return { stop: () => void (stopped = true), done: Promise.all(loops) };
}

async function verify(gw: GatewayProcess, dataDir: string, merchantId: number, acked: Acked, receiver: Receiver): Promise<number> {
  const db = new pg.Client({ connectionString: await embeddedUrl(dataDir) });
  db.on('error', () => {});
  await db.connect();
  try {
    const q = async <T = any>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[];
    // 1. Every acknowledged write survived the kill.
    const topUps = new Map((await q('select reference, amount::int8 as amount from top_ups where merchant_id = $1', [merchantId])).map((r) => [r.reference, Number(r.amount)]));
    for (const [ref, amount] of acked.topUps) check(topUps.get(ref) === amount, `acknowledged top-up ${ref} is missing or changed`);
    const withdrawals = new Map((await q('select id::int8 as id, reference from withdrawals where merchant_id = $1', [merchantId])).map((r) => [Number(r.id), r.reference]));
    for (const [id, ref] of acked.withdrawals) check(withdrawals.get(id) === ref, `acknowledged withdrawal ${id} (${ref}) is missing`);
    const purchases = new Map((await q('select merchant_tx_id, id::int8 as id from purchases where merchant_id = $1', [merchantId])).map((r) => [r.merchant_tx_id, Number(r.id)]));
    for (const [tx, id] of acked.purchases) check(purchases.get(tx) === id, `acknowledged purchase ${tx} is missing`);
    const deposits = new Map((await q('select merchant_tx_id, id::int8 as id from deposits where merchant_id = $1', [merchantId])).map((r) => [r.merchant_tx_id, Number(r.id)]));
    for (const [tx, id] of acked.deposits) check(deposits.get(tx) === id, `acknowledged deposit ${tx} is missing`);

    // 2. Jobs resume: every record reaches a terminal status once its timer runs (hold ends,
    //    offers expire), and every webhook event is delivered.
    await waitFor(async () => {
      const open = await q(`select (select count(*) from deposits where merchant_id = $1 and status <> all($2)) +
                                   (select count(*) from purchases where merchant_id = $1 and status <> all($3)) +
                                   (select count(*) from webhook_events where merchant_id = $1 and state <> 'delivered') as n`,
        [merchantId, TERMINAL, TERMINAL]);
      return Number(open[0].n) === 0;
    }, 60_000, 'every record to reach a terminal status and every webhook to be delivered').catch(async (err) => {
      const stuck = await q(`select 'deposit' as kind, id, status, updated_at::text from deposits where merchant_id = $1 and status <> all($2)
                             union all select 'purchase', id, status, updated_at::text from purchases where merchant_id = $1 and status <> all($3)
                             union all select 'webhook ' || kind, record_id, status || ' ' || state || ' attempts ' || attempts, created_at::text
                               from webhook_events where merchant_id = $1 and state <> 'delivered' limit 20`, [merchantId, TERMINAL, TERMINAL]);
      const jobs = await q(`select task_identifier, attempts, last_error, run_at::text, locked_at::text from graphile_worker.jobs limit 10`);
      throw new CrashFailure(`${(err as Error).message}: ${JSON.stringify(stuck)} jobs ${JSON.stringify(jobs)}\n${gw.output().slice(-3000)}`);
    });

    // 3. The books balance, and the balance is what the records' statuses say (nothing twice).
    const verified = await http(gw.url, 'GET', '/api/admin/ledger/verify', { admin: true });
    check(verified.status === 200 && verified.body.data.mismatches.length === 0, `ledger verify: ${JSON.stringify(verified.body)}`);
    const books = await balanceAgainstRecords(db, merchantId);
    check(books.derived === books.actual, `balance ${books.actual} ≠ ${books.derived} derived from the records`);

    // 4. Every committed status change reached the receiver at least once.
    const events = await q(`select kind, record_id::int8 as record_id, status from webhook_events where merchant_id = $1`, [merchantId]);
    const got = new Set(receiver.received.map((r) => `${r.body?.trade_id !== undefined ? 'deposit' : 'purchase'}:${r.body?.trade_id ?? r.body?.purchase_id}:${r.body?.status}`));
    for (const e of events) check(got.has(`${e.kind}:${e.record_id}:${e.status}`), `webhook ${e.kind} ${e.record_id} ${e.status} never reached the receiver`);
    // Statuses only a transition reaches (a record created failed has no change to report).
    const finals = await q(`select 'deposit' as kind, id::int8 as id, status from deposits where merchant_id = $1 and status in ('completed', 'canceled')
                            union all select 'purchase', id::int8, status from purchases where merchant_id = $1 and status in ('completed', 'canceled')`, [merchantId]);
    for (const f of finals) check(got.has(`${f.kind}:${f.id}:${f.status}`), `final status ${f.kind} ${f.id} ${f.status} never reached the receiver`);
    return events.length;
  } finally {
    await db.end();
  }
}
