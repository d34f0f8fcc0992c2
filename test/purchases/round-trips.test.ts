// Statements per purchase creation (issue 12): the creation transaction is BEGIN, two statements,
// COMMIT (create-repo.ts), and none of them touches graphile-worker (the jobs go to the outbox);
// the whole request adds only the merchant_tx_id lookup before it. Counted on the pool's clients
// (no worker runs; the relay, the catalogue stamper and the listeners are told apart by their SQL).
import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
let log: string[] | undefined;
const BACKGROUND = /job_outbox_relay|catalogue_stamp_events|^\s*listen |catalogue_pages|webhook_events where state <> 'delivered'|_private_jobs|api_key_usage/; // api_key_usage: the key's last use, written at most once a minute per key

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'Counted' });
  await gw.topUp(m.id, 1_000);
  // Every client of the pool records its statements while a test listens.
  const wrapped = new WeakSet<pg.PoolClient>();
  const wrap = (client: pg.PoolClient) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text ?? '';
      if (log && !BACKGROUND.test(text)) log.push(text.replace(/\s+/g, ' ').trim());
      return query(...args);
    };
  };
  gw.ctx.pool.on('acquire', wrap);
});
afterAll(async () => gw?.stop());

async function counted(body: Record<string, unknown>) {
  log = [];
  const res = await gw.merchant(m.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', ...body });
  const statements = log;
  log = undefined;
  return { res, statements };
}

async function liveListing() {
  const res = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true');
  return res.body.data.items[0] as { id: string; name: string; price: number };
}

describe('a purchase creation, statement by statement', () => {
  it('by asset_id with a merchant_tx_id: lookup, BEGIN, claim + lock, debit + reserve + jobs, COMMIT', async () => {
    const l = await liveListing();
    const { res, statements } = await counted({ asset_id: l.id, merchant_tx_id: 'rt-1' });
    expect(res.body.data.status).toBe('pending');
    expect(statements).toHaveLength(5);
    expect(statements[0]).toMatch(/^select .* from "purchases" where "merchant_id" = \$1 and "merchant_tx_id" = \$2/);
    expect(statements[1]).toBe('begin');
    expect(statements[2]).toMatch(/^with p as \( insert into purchases .* for update ?\) select p\.\*/);
    expect(statements[3]).toMatch(/^with live as .*update balances .*insert into ledger_entries .*update listings .*update purchases .*insert into job_outbox/);
    expect(statements[4]).toBe('commit');
    expect(statements.join('\n')).not.toMatch(/graphile_worker|savepoint|pg_notify/);
  });

  it('by name without a merchant_tx_id: BEGIN, two statements, COMMIT', async () => {
    const l = await liveListing();
    const { res, statements } = await counted({ name: l.name });
    expect(res.body.data.status).toBe('pending');
    expect(statements.map((s) => s.slice(0, 12))).toEqual(['begin', 'with p as ( ', 'with live as', 'commit']);
    expect(statements[1]).toMatch(/for update skip locked/);
  });

  it('insufficient balance: the debit statement changed nothing, the purchase is stored failed (no savepoint)', async () => {
    const poor = await gw.createMerchant({ name: 'Poor' });
    const l = await liveListing();
    log = [];
    const res = await gw.merchant(poor.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', asset_id: l.id });
    const statements = log;
    log = undefined;
    expect(res.body.data).toMatchObject({ status: 'failed', fail_reason: 'insufficient_balance', amount: l.price });
    expect(statements.join('\n')).not.toMatch(/savepoint|graphile_worker/);
    expect((await gw.ctx.db.selectFrom('ledger_entries').select('id').where('merchant_id', '=', poor.id).execute()).length).toBe(0);
    expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l.id).executeTakeFirstOrThrow()).status).toBe('live');
    await gw.flushJobs();
    const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where key = ${`purchase_dispatch:${res.body.data.id}`}`.execute(gw.ctx.db);
    expect(jobs.rows[0].n).toBe(0); // a failed purchase is not dispatched
  });
});
