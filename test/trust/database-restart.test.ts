// The database goes away under running gateways and comes back: an external PostgreSQL restarted
// (`pg_ctl restart -m fast`), a failover to a promoted standby behind the same address, and the
// embedded cluster's postmaster killed. Under load the gateways keep running; while the database
// is away every answer is 2xx or 503 with Retry-After (never 500, never a hang); they recover by
// themselves; every acknowledged write is there; the books balance; the LISTEN connections that
// feed the caches come back (a key rotated after the restart is refused at once on the other
// instance); jobs, webhooks and purchase offers flow again; the log has one warning when the
// database goes away and one when it is back, not a line per failed request.
//
// Each server here is a real PostgreSQL of the test's own (test/trust/pg-server.ts), not the run's
// shared one, since it is restarted and killed.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedUrl, freePort } from '../../src/db/embedded.js';
import { freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { balanceAgainstRecords, TERMINAL } from './books.js';
import { http, PROCESS_ADMIN_TOKEN, processesWith, ready, SHORT_TIMERS, spawnGateway, waitFor, type GatewayProcess } from './gateway-process.js';
import { createDatabase, createPgServer, startTcpProxy, type PgServer } from './pg-server.js';

/** Short timers, so records left mid-flight end within seconds once the database is back. */
const TIMERS = { ...SHORT_TIMERS, SANDBOX_CATALOGUE_SIZE: '300' };
const TOKEN = 'abcdefgh';
/** What a client waits for an answer: past it the request counts as hung. */
const CLIENT_TIMEOUT_MS = 25_000;

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch(() => {});
});

async function tempRoot(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(d, 0o755);
  cleanups.push(() => fs.rm(d, { recursive: true, force: true }));
  return d;
}

/** A pino logger whose lines (warn and above) are kept for the test to read. */
function capturedLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'warn' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

interface Answer {
  op: string;
  status: number; // 0: no answer (network error or timeout)
  retryAfter?: string | null;
  body?: any;
  error?: string;
}

interface Acked {
  topUps: Map<string, number>;
  purchases: Map<string, number>;
  deposits: Map<string, number>;
}

async function call(base: string, method: string, p: string, opts: { key?: string; admin?: boolean; body?: unknown }, op: string, answers: Answer[]): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.admin) headers.authorization = `Bearer ${PROCESS_ADMIN_TOKEN}`;
  let a: Answer;
  try {
    const res = await fetch(`${base}${p}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    a = { op, status: res.status, retryAfter: res.headers.get('retry-after'), body };
  } catch (err) {
    a = { op, status: 0, error: String((err as Error).cause ?? err) };
  }
  answers.push(a);
  return a;
}

/**
 * Clients firing top-ups, purchases and deposits (with sandbox accepts) at the gateways in turn,
 * recording every answer and what was acknowledged, until stopped.
 */
function load(bases: string[], m: { id: number; api_key: string }, listings: string[], clients: number, acked: Acked, answers: Answer[], tag: string) {
  let stopped = false;
  let seq = 0;
  const ops = [
    async (base: string) => {
      const reference = `${tag}-t${++seq}`;
      const r = await call(base, 'POST', `/api/admin/merchants/${m.id}/top-ups`, { admin: true, body: { amount: 1.001, reference } }, 'top-up', answers);
      if (r.status === 201) acked.topUps.set(reference, 1001);
    },
    async (base: string) => {
      const asset = listings.pop();
      if (!asset) return sleep(50);
      const tx = `${tag}-p${++seq}`;
      const r = await call(base, 'POST', '/api/v1/merchant/purchase', { key: m.api_key, body: { game: 'csgo', partner: 12345678, token: TOKEN, asset_id: asset, merchant_tx_id: tx } }, 'purchase', answers);
      if (r.status === 200) acked.purchases.set(tx, r.body.data.id);
      else listings.unshift(asset); // not bought (503): tried again last, the outage would use them all up
    },
    async (base: string) => {
      const partner = 30_000_000 + ++seq;
      const inv = await call(base, 'POST', '/api/v1/merchant/inventory', { key: m.api_key, body: { game: 'csgo', partner, token: TOKEN } }, 'inventory', answers);
      if (inv.status !== 200 || !inv.body.data.items.length) return;
      const tx = `${tag}-d${++seq}`;
      const r = await call(base, 'POST', '/api/v1/merchant/create-deposit', { key: m.api_key, body: { game: 'csgo', partner, token: TOKEN, asset_ids: [inv.body.data.items[0].id], merchant_tx_id: tx } }, 'create-deposit', answers);
      if (r.status !== 200) return;
      acked.deposits.set(tx, r.body.data.id);
      // Most are accepted (into the hold, or completed at once); the rest expire on their timer.
      if (Math.random() < 0.7) await call(base, 'POST', `/api/v1/merchant/sandbox/deposit/${r.body.data.id}/accept`, { key: m.api_key, body: { hold: Math.random() < 0.5 } }, 'accept', answers);
    },
  ];
  const loops = Array.from({ length: clients }, async (_, i) => {
    const op = ops[i % ops.length]!;
    for (let n = 0; !stopped; n++) {
      const seen = answers.length;
      await op(bases[(i + n) % bases.length]!);
      // A 503 is met again at once (no wait for Retry-After: the outage is hit as hard as can be),
      // after a breath that keeps the loop from spinning.
      if (answers.slice(seen).some((a) => a.status === 503)) await sleep(20);
    }
  });
  return { stop: () => void (stopped = true), done: Promise.all(loops) };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Every answer was a 2xx, or a 503 in the envelope with Retry-After; none hung or failed otherwise. */
function expectOnlySuccessOr503(answers: Answer[]) {
  const bad = answers.filter((a) => !(a.status >= 200 && a.status < 300) && !(a.status === 503 && Number(a.retryAfter) > 0 && a.body?.success === false));
  expect(bad.slice(0, 5), `${bad.length} of ${answers.length} answers were neither 2xx nor 503 with Retry-After`).toEqual([]);
  const unavailable = answers.filter((a) => a.status === 503);
  for (const a of unavailable) expect(a.body).toMatchObject({ success: false, message: 'service unavailable', data: [{ code: 'service_unavailable' }] });
  return unavailable.length;
}

/** Every acknowledged write is in the database; every record ends; every webhook is delivered; the books balance. */
async function verify(dbUrl: string, base: string, merchantId: number, acked: Acked, receiver: Receiver) {
  const db = new pg.Client({ connectionString: dbUrl });
  db.on('error', () => {});
  await db.connect();
  try {
    const q = async (text: string, params: unknown[] = []) => (await db.query(text, params)).rows;
    const topUps = new Map((await q('select reference, amount::int8 as amount from top_ups where merchant_id = $1', [merchantId])).map((r) => [r.reference, Number(r.amount)]));
    for (const [ref, amount] of acked.topUps) expect(topUps.get(ref), `acknowledged top-up ${ref}`).toBe(amount);
    const purchases = new Map((await q('select merchant_tx_id, id::int8 as id from purchases where merchant_id = $1', [merchantId])).map((r) => [r.merchant_tx_id, Number(r.id)]));
    for (const [tx, id] of acked.purchases) expect(purchases.get(tx), `acknowledged purchase ${tx}`).toBe(id);
    const deposits = new Map((await q('select merchant_tx_id, id::int8 as id from deposits where merchant_id = $1', [merchantId])).map((r) => [r.merchant_tx_id, Number(r.id)]));
    for (const [tx, id] of acked.deposits) expect(deposits.get(tx), `acknowledged deposit ${tx}`).toBe(id);

    // The job worker (hold ends, offer expiries), the purchase dispatcher and the webhook
    // dispatcher resumed: every record ends and every event reaches the receiver.
    await waitFor(async () => {
      const [r] = await q(
        `select (select count(*) from deposits where merchant_id = $1 and status <> all($2)) +
                (select count(*) from purchases where merchant_id = $1 and status <> all($2)) +
                (select count(*) from webhook_events where merchant_id = $1 and state <> 'delivered') as n`,
        [merchantId, TERMINAL],
      );
      return Number(r.n) === 0;
    }, 120_000, 'every record to end and every webhook to be delivered');
    const events = await q(`select kind, record_id::int8 as record_id, status from webhook_events where merchant_id = $1`, [merchantId]);
    const got = new Set(receiver.received.map((r) => `${r.body?.trade_id !== undefined ? 'deposit' : 'purchase'}:${r.body?.trade_id ?? r.body?.purchase_id}:${r.body?.status}`));
    for (const e of events) expect(got.has(`${e.kind}:${e.record_id}:${e.status}`), `webhook ${e.kind} ${e.record_id} ${e.status} reached the receiver`).toBe(true);

    const verified = await http(base, 'GET', '/api/admin/ledger/verify', { admin: true });
    expect(verified.status).toBe(200);
    expect(verified.body.data.mismatches).toEqual([]);
    const books = await balanceAgainstRecords(db, merchantId);
    expect(books.derived).toBe(books.actual);
  } finally {
    await db.end();
  }
}

/** The log's lines about the database going away and coming back, and its error lines. */
function outageLines(lines: { level: number; msg: string }[]) {
  return {
    away: lines.filter((l) => l.msg.startsWith('database unavailable')).length,
    back: lines.filter((l) => l.msg.startsWith('database is back')).length,
    errors: lines.filter((l) => l.level >= 50),
  };
}

async function setUpMerchant(base: string, receiver: Receiver) {
  const created = await http(base, 'POST', '/api/admin/merchants', { admin: true, body: { name: 'Restart shop', webhook_url: receiver.url('/hook') } });
  expect(created.status).toBe(201);
  const m = created.body.data as { id: number; api_key: string };
  expect((await http(base, 'POST', `/api/admin/merchants/${m.id}/top-ups`, { admin: true, body: { amount: 1_000_000, reference: 'initial' } })).status).toBe(201);
  const res = await http(base, 'GET', '/api/v1/merchant/purchase/available?game=csgo&full=true', { key: m.api_key, timeoutMs: 60_000 });
  expect(res.status).toBe(200);
  return { merchant: m, listings: (res.body.data.items as { id: string }[]).map((i) => i.id) };
}

async function gateway(dbUrl: string): Promise<{ gw: TestGateway; lines: { level: number; msg: string }[] }> {
  const { logger, lines } = capturedLogger();
  const gw = await startTestGateway({ ...TIMERS, ADMIN_TOKEN: PROCESS_ADMIN_TOKEN }, { databaseUrl: dbUrl, logger });
  cleanups.push(() => gw.stop());
  return { gw, lines };
}

/** Runs `disrupt` under load once some writes of each kind were answered; returns the answers. */
async function disruptUnderLoad(bases: string[], m: { id: number; api_key: string }, listings: string[], acked: Acked, tag: string, disrupt: () => Promise<void>) {
  const answers: Answer[] = [];
  const before = { t: acked.topUps.size, p: acked.purchases.size, d: acked.deposits.size };
  const run = load(bases, m, listings, 8, acked, answers, tag);
  await waitFor(() => acked.topUps.size > before.t && acked.purchases.size > before.p && acked.deposits.size > before.d, 60_000, 'a write of every kind');
  await disrupt();
  // The load goes on until every gateway has acknowledged writes again: recovery without a restart.
  const t = acked.topUps.size;
  const p = acked.purchases.size;
  await waitFor(() => acked.topUps.size > t + 5 && acked.purchases.size > p + 2, 60_000, 'writes acknowledged again after the disruption');
  run.stop();
  await run.done;
  return answers;
}

/** A key rotated on `a` is refused by `b` at once, with `b`'s key cache in use (its LISTEN is up). */
async function rotationReachesOtherInstance(a: TestGateway, b: TestGateway, merchantId: number, key: string): Promise<string> {
  await waitFor(() => b.app.merchantKeys.listening && a.app.merchantKeys.listening, 30_000, 'both key caches to listen again');
  expect((await http(b.url, 'GET', '/api/v1/merchant/balance', { key })).status).toBe(200);
  expect(b.app.merchantKeys.cached(sha256(key))).toBeDefined(); // served from memory from now on
  const rotated = await http(a.url, 'POST', `/api/admin/merchants/${merchantId}/rotate-key`, { admin: true });
  expect(rotated.status).toBe(200);
  await waitFor(() => b.app.merchantKeys.cached(sha256(key)) === undefined, 10_000, 'the notification to reach the other instance');
  expect((await http(b.url, 'GET', '/api/v1/merchant/balance', { key })).status).toBe(401);
  const fresh = rotated.body.data.api_key as string;
  expect((await http(b.url, 'GET', '/api/v1/merchant/balance', { key: fresh })).status).toBe(200);
  return fresh;
}

function sha256(s: string): string {
  return crypto.createHash('sha256').update(s).digest('hex');
}

/** The log has no error line, and one line when the database went away and one when it came back. */
function expectOneOutage(lines: { level: number; msg: string }[]) {
  const o = outageLines(lines);
  expect(o.errors).toEqual([]);
  expect(o.away).toBe(1);
  expect(o.back).toBe(1);
}

/**
 * Two in-process gateways on `dbUrl` under load while `disrupt` takes the database away: every
 * answer is 2xx or 503 (some met the outage), a rotated key reaches the other instance (its LISTEN
 * is back), every acknowledged write is there and the books balance, and each log has one outage.
 */
async function twoInstancesThroughOutage(dbUrl: string, tag: string, disrupt: () => Promise<void>) {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const A = await gateway(dbUrl);
  const B = await gateway(dbUrl);
  const { merchant, listings } = await setUpMerchant(A.gw.url, receiver);
  const acked: Acked = { topUps: new Map([['initial', 1_000_000_000]]), purchases: new Map(), deposits: new Map() };

  const answers = await disruptUnderLoad([A.gw.url, B.gw.url], merchant, listings, acked, tag, disrupt);
  expect(expectOnlySuccessOr503(answers)).toBeGreaterThan(0); // the disruption was met under load

  const key = await rotationReachesOtherInstance(A.gw, B.gw, merchant.id, merchant.api_key);
  merchant.api_key = key;
  await verify(dbUrl, A.gw.url, merchant.id, acked, receiver);
  for (const { lines } of [A, B]) expectOneOutage(lines);
}

describe('the database restarts under the gateway', () => {
  it('external PostgreSQL, pg_ctl restart -m fast under load on two instances: 2xx or 503 + Retry-After, recovery, nothing lost, LISTEN back', async () => {
    const root = await tempRoot('gw-dbrestart-');
    const server = await createPgServer(root);
    await server.start();
    cleanups.push(() => server.stop('immediate'));
    const dbUrl = await createDatabase(server, 'gateway');
    await twoInstancesThroughOutage(dbUrl, 'r1', () => server.restartFast());
  }, 300_000);

  it('failover: the primary killed, a synchronous standby promoted behind the same address; two instances recover, nothing acknowledged is lost', async () => {
    const root = await tempRoot('gw-failover-');
    const primary = await createPgServer(root);
    await primary.start();
    cleanups.push(() => primary.stop('immediate'));
    await createDatabase(primary, 'gateway');
    const standby = await primary.standby();
    cleanups.push(() => standby.stop('immediate'));
    // "The same address": the gateways only know the proxy's port.
    const proxy = await startTcpProxy(primary.port);
    cleanups.push(() => proxy.close());
    const dbUrl = `postgres://postgres@127.0.0.1:${proxy.port}/gateway`;
    await twoInstancesThroughOutage(dbUrl, 'f1', async () => {
      // The primary's machine is gone: its postmaster killed, every connection to it cut.
      process.kill(await primary.postmasterPid(), 'SIGKILL');
      proxy.dropAll();
      await primary.stop('immediate').catch(() => {}); // its backends too (they notice the postmaster's death late)
      await standby.promote();
      proxy.switchTo(standby.port);
    });
  }, 300_000);

  it('a LISTEN connection left half-open (nothing passes, nobody is told) is found by its heartbeat: the other instance then refuses a rotated key', async () => {
    const dbUrl = await freshDatabase();
    const proxy = await startTcpProxy(Number(new URL(dbUrl).port));
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(dbUrl);
    viaProxy.port = String(proxy.port);
    const A = await gateway(dbUrl);
    const B = await gateway(viaProxy.toString());
    const created = await http(A.gw.url, 'POST', '/api/admin/merchants', { admin: true, body: { name: 'Half-open shop' } });
    expect(created.status).toBe(201);
    const m = created.body.data as { id: number; api_key: string };
    await waitFor(() => B.gw.app.merchantKeys.listening, 30_000, 'the key cache to listen');
    expect((await http(B.gw.url, 'GET', '/api/v1/merchant/balance', { key: m.api_key })).status).toBe(200);
    expect(B.gw.app.merchantKeys.cached(sha256(m.api_key))).toBeDefined();

    // B's LISTEN connection goes silent: the rotation's notification never reaches it.
    expect(proxy.freezeWhere((sent) => sent.includes('listen merchant_changed'))).toBe(1);
    const rotated = await http(A.gw.url, 'POST', `/api/admin/merchants/${m.id}/rotate-key`, { admin: true });
    expect(rotated.status).toBe(200);
    // Found by the heartbeat: B stops serving keys from memory, so the old key is refused.
    await waitFor(async () => (await http(B.gw.url, 'GET', '/api/v1/merchant/balance', { key: m.api_key })).status === 401, 60_000, 'the other instance to refuse the rotated key');
    expect((await http(B.gw.url, 'GET', '/api/v1/merchant/balance', { key: rotated.body.data.api_key })).status).toBe(200);
    // And it listens again on a new connection.
    await waitFor(() => B.gw.app.merchantKeys.listening, 30_000, 'the key cache to listen again');
  }, 120_000);

  it('embedded: kill -9 of the postmaster under a running gateway process; it is started again and the gateway recovers', async () => {
    const root = await tempRoot('gw-embedded-kill-');
    const dataDir = path.join(root, 'data');
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const g: GatewayProcess = spawnGateway({ dataDir, port: await freePort(), env: TIMERS });
    cleanups.push(() => g.killGroup());
    await ready(g);
    const { merchant, listings } = await setUpMerchant(g.url, receiver);
    const acked: Acked = { topUps: new Map([['initial', 1_000_000_000]]), purchases: new Map(), deposits: new Map() };
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    const postmaster = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);

    const answers = await disruptUnderLoad([g.url], merchant, listings, acked, 'e1', async () => {
      process.kill(postmaster, 'SIGKILL');
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n${g.output().slice(-4000)}`);
    });
    expect(expectOnlySuccessOr503(answers)).toBeGreaterThan(0);
    expect(processesWith(path.join(dataDir, 'pg')).length).toBeGreaterThan(0);
    expect(Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0])).not.toBe(postmaster);

    await verify((await embeddedUrl(dataDir))!, g.url, merchant.id, acked, receiver);
    const lines = g.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string });
    expectOneOutage(lines);
    expect(g.child.exitCode).toBeNull(); // it kept running
  }, 300_000);
});
