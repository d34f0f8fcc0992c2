// Issue 26, point 2: on a grown database (a year of a busy gateway, bench/seed-year-data.ts at a
// small scale), no request-path statement reads a big table whole. The statements are not listed
// by hand: a real gateway answers the merchant API's, the operator API's and the dashboard's reads while every
// statement its pool runs is recorded with its parameters (and one purchase is made), then each is EXPLAINed on the grown
// database — first with the statistics of the empty database (autovacuum off on the big tables,
// as after a bulk load before the next analyse), then with fresh ones — and no plan may hold a
// Seq Scan on a big table. SHOW_PLAN=1 prints the plans.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedYear } from '../../bench/seed-year-data.js';
import { ADMIN_TOKEN, freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import { userOf } from '../dashboard/web-client.js';

/** Tables that grow with traffic: a whole read of one of them on a request path is the defect. */
const BIG = [
  'deposits', 'deposit_items', 'deposit_quotes', 'purchases', 'listings', 'ledger_entries', 'record_status_history',
  'webhook_events', 'webhook_attempts', 'request_logs', 'top_ups', 'withdrawals',
];
const BACKGROUND = /job_outbox|catalogue_stamp_events|^\s*listen |catalogue_pages|_private_jobs|api_key_usage|worker_heartbeats|^\s*(begin|commit|rollback|set)\b|request_logs|pg_advisory/i;


interface Recorded {
  text: string;
  values: unknown[];
}

let url: string;
let gw: TestGateway;
let admin: pg.Client;
let recorded: Recorded[] | undefined;
const KEY = 'sk_seedyear_1_0123456789abcdef'; // the busiest merchant of the seed

beforeAll(async () => {
  url = await freshDatabase();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('analyze'); // the statistics of the empty database
  for (const t of BIG) await admin.query(`alter table ${t} set (autovacuum_enabled = false)`);
  await seedYear(admin, { scale: 0.002, webhookDays: 60, analyze: false });
  // Withdrawals are not part of the year's seed (they move no item): a year of daily ones per merchant.
  await admin.query(`insert into withdrawals (merchant_id, amount, status, created_at) select m.id, 1000, 'completed', now() - d * interval '1 day' from merchants m, generate_series(1, 365) d`);
  gw = await startTestGateway({ REQUEST_LOG_DAYS: '0', RETENTION_INTERVAL_SECONDS: '0', WEBHOOK_RETENTION_DAYS: '0' }, { databaseUrl: url });
  gw.ctx.pool.on('acquire', (client: pg.PoolClient & { __rec?: boolean }) => {
    if (client.__rec) return;
    client.__rec = true;
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const a0 = args[0] as string | { text?: string; values?: unknown[] };
      const text = typeof a0 === 'string' ? a0 : (a0?.text ?? '');
      const values = (typeof a0 === 'string' ? (args[1] as unknown[]) : a0?.values) ?? [];
      if (recorded && !BACKGROUND.test(text)) recorded.push({ text, values });
      return query(...args);
    };
  });
}, 600_000);

afterAll(async () => {
  await gw?.stop();
  await admin?.end();
});

async function requestPathStatements(): Promise<Recorded[]> {
  const m = (await admin.query(`select id from merchants where name = 'seed-year 1'`)).rows[0].id as string;
  const p = (await admin.query(`select id, merchant_tx_id from purchases where merchant_id = $1 order by id limit 1 offset 100`, [m])).rows[0];
  const d = (await admin.query(`select id, merchant_tx_id from deposits where merchant_id = $1 and status = 'completed' order by id limit 1 offset 100`, [m])).rows[0];
  const e = (await admin.query(`select id from webhook_events where merchant_id = $1 order by id limit 1 offset 50`, [m])).rows[0];
  const owner = await userOf(gw, Number(m), 'owner@seed-year.example'); // the merchant's dashboard, signed in before the recording
  const day = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
  recorded = [];
  const paths = [
    '/balance',
    `/purchase/status?id=${p.id}`,
    `/purchase/status?merchant_tx_id=${p.merchant_tx_id}`,
    '/purchase?limit=50',
    '/purchase?limit=50&status=completed',
    '/purchase?limit=50&date_range=30',
    '/purchase?limit=50&offset=500',
    `/deposit/status?id=${d.id}`,
    `/deposit/status?merchant_tx_id=${d.merchant_tx_id}`,
    '/events?limit=50',
    '/events?limit=50&type=deposit.completed',
    `/events?deposit_id=${d.id}`,
    `/events?purchase_id=${p.id}`,
    `/events?limit=50&cursor=${e.id}`,
    `/events/${e.id}`,
  ];
  try {
    for (const path of paths) {
      const r = await gw.merchant(KEY, 'GET', path);
      expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(200);
    }
    // A write: one purchase of a live listing (its creation statement, the balance debit, the listing).
    const listing = (await admin.query(`select id from listings where status = 'live' and game = 'csgo' order by id limit 1`)).rows[0];
    expect(listing).toBeDefined(); // the sandbox catalogue seeded at start
    const bought = await gw.merchant(KEY, 'POST', '/purchase', { partner: 12345678, token: 'abcdefgh', game: 'csgo', asset_id: listing.id, merchant_tx_id: 'plan-1' });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    expect((await gw.merchant(KEY, 'GET', `/purchase/status?merchant_tx_id=plan-1`)).status).toBe(200);
    for (const path of [`/merchants/${m}`, `/merchants/${m}/ledger?limit=50&offset=0`, `/merchants/${m}/webhook-deliveries?limit=50&offset=0`]) {
      const r = await fetch(`${gw.url}/api/admin${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(r.status, path).toBe(200);
    }
    // The merchant's dashboard: the pages of bench/dashboard-pages.ts.
    for (const path of [
      '/dashboard',
      '/dashboard/deposits',
      `/dashboard/deposits?before=${d.id}`,
      '/dashboard/deposits?status=reverted',
      '/dashboard/deposits?game=tf2&status=failed',
      `/dashboard/deposits?merchant_tx_id=${d.merchant_tx_id}`,
      `/dashboard/deposits?from=${day}&to=${day}`,
      `/dashboard/deposits?from=${day}&to=${day}&before=${d.id}`,
      `/dashboard/deposits/${d.id}`,
      '/dashboard/purchases',
      `/dashboard/purchases?merchant_tx_id=${p.merchant_tx_id}`,
      `/dashboard/purchases/${p.id}`,
      '/dashboard/ledger',
      '/dashboard/withdrawals',
    ]) {
      expect((await owner.get(path)).status, path).toBe(200);
    }
    return recorded;
  } finally {
    recorded = undefined;
  }
}

/** The Seq Scans on big tables in the statement's plan (EXPLAIN only: nothing is run). */
async function wholeReads(s: Recorded): Promise<string[]> {
  const r = await admin.query(`explain (costs off) ${s.text}`, s.values);
  const plan = r.rows.map((x) => x['QUERY PLAN'] as string).join('\n');
  if (process.env.SHOW_PLAN) console.log(`${s.text}\n${plan}\n`);
  return [...plan.matchAll(/Seq Scan on (\w+)/g)].map((x) => x[1]).filter((t) => BIG.includes(t));
}

describe('request-path statements on a grown database', () => {
  it('read no big table whole, on stale statistics and on fresh ones', async () => {
    const statements = await requestPathStatements();
    expect(statements.length).toBeGreaterThan(10);
    const seen = new Set<string>();
    const unique = statements.filter((s) => !seen.has(s.text) && seen.add(s.text));
    const offenders = async () => {
      const found: string[] = [];
      for (const s of unique) {
        const seqs = await wholeReads(s);
        if (seqs.length) found.push(`${seqs.join(', ')}: ${s.text.replace(/\s+/g, ' ').slice(0, 300)}`);
      }
      return found;
    };
    // GET /purchase's `total` is read from the kept counts (migration 067), not counted: no allow-list.
    expect(await offenders(), 'stale statistics').toEqual([]);
    await admin.query('analyze');
    expect(await offenders(), 'fresh statistics').toEqual([]);
  });
});
