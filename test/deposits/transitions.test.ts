// Deposit state machine through the sandbox helpers: every transition, every illegal one,
// balance effects (spec 3.4), webhooks (6.1) and the time-driven transitions.
import { depositListingId } from '../catalogue/deposit-listing-id.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import fs from 'node:fs/promises';
import { sql } from 'kysely';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { loadConfig } from '../../src/config.js';
import { startGateway } from '../../src/assembly/app.js';
import { steamTestPriceBook } from '../steam/test-price-book.js';
import { sandboxDepositRoutes } from '../../src/modules/sandbox-helpers/sandbox-deposit-routes.js';
import { depositTasks } from '../../src/modules/deposits/deposit-tasks.js';
import { delistDepositItems } from '../../src/modules/catalogue/writes.js';
import { releaseListing } from '../../src/modules/purchases/purchase-repo.js';
import { activeDeposit, balance, expectBooksBalance, payloadOf, webhookEvents } from './deposit-helpers.js';

let gw: TestGateway;
let m: any;
beforeAll(async () => {
  // csgo: a long hold; rust: a 1-second hold (time-driven hold end); offers of tf2 expire fast
  // only where a test uses the timed gateway below.
  gw = await startTestGateway({ HOLD_SECONDS_RUST: '1', HOLD_SECONDS_CSGO: '604800' });
  m = await gw.createMerchant({ name: 'Transitions', webhook_url: 'http://127.0.0.1:9/hooks' });
});
afterAll(async () => gw?.stop());

const act = (id: number, action: string, body?: unknown) => gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${id}/${action}`, body);

/** Two completed dota2 deposits (no hold), of two items and of one, each item listed. */
async function completedDotaDeposits() {
  const two = await activeDeposit(gw, m.api_key, { game: 'dota2' });
  const one = await activeDeposit(gw, m.api_key, { game: 'dota2', count: 1 });
  for (const d of [two, one]) expect((await act(d.id, 'accept')).body.data.status).toBe('completed');
  return [two, one] as const;
}
/** A deposit's listings, by source_ref, with whether each is withdrawn. */
async function listingsOf(depositId: number) {
  return (await sql<{ id: string; status: string; withdrawn: boolean }>`select id, status, withdrawn_at is not null as withdrawn from listings
     where source = 'deposit' and source_ref like ${`deposit:${depositId}:%`} order by source_ref`.execute(gw.ctx.db)).rows;
}

describe('sandbox helpers drive each transition with its balance effect', () => {
  it('active → hold (csgo default) → completed: hold grows, then moves to available', async () => {
    const before = await balance(gw, m.api_key);
    const d = await activeDeposit(gw, m.api_key);
    const held = await act(d.id, 'accept');
    expect(held.status).toBe(200);
    expect(held.body.data.status).toBe('hold');
    expect(held.body.data.hold_end_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    let b = await balance(gw, m.api_key);
    expect(b.hold).toBeCloseTo(before.hold + d.amount, 3);
    expect(b.available).toBeCloseTo(before.available, 3);

    const done = await act(d.id, 'release');
    expect(done.status).toBe(200);
    expect(done.body.data.status).toBe('completed');
    expect(done.body.data).not.toHaveProperty('hold_end_date');
    b = await balance(gw, m.api_key);
    expect(b.hold).toBeCloseTo(before.hold, 3);
    expect(b.available).toBeCloseTo(before.available + d.amount, 3);
    await expectBooksBalance(gw);

    const keys = (await gw.ctx.db.selectFrom('ledger_entries').select('key').where('ref_id', '=', d.id).where('ref_type', '=', 'deposit').execute()).map((r) => r.key);
    expect(keys.sort()).toEqual([`deposit:${d.id}:hold`, `deposit:${d.id}:release`]);

    const events = await webhookEvents(gw, d.id);
    expect(events.map((e) => e.status)).toEqual(['hold', 'completed']);
    const hold = payloadOf(events[0]);
    expect(hold).toMatchObject({ status: 'hold', trade_id: d.id, merchant_tx_id: d.merchant_tx_id, amount: d.amount, amount_currency: 'usd', offer_id: d.trade_offer_id });
    expect(typeof hold.platform_id).toBe('string');
    expect(hold.platform_id).toMatch(/^7656119\d{10}$/);
    expect(hold.trade_date).toMatch(/Z$/);
    expect(hold.hold_end_date).toBe(held.body.data.hold_end_date);
    expect(hold).not.toHaveProperty('fail_reason');
    expect(hold).not.toHaveProperty('purchase_id');
    expect(hold).not.toHaveProperty('sign');
    const completed = payloadOf(events[1]);
    expect(completed).not.toHaveProperty('hold_end_date');
    expect(completed).not.toHaveProperty('fail_reason');

  });

  it('completed lists the items in the completing transaction, no job (checked with no worker running); the old job replays to nothing', async () => {
    const quiet = await startTestGateway({}, { worker: false });
    try {
      const qm = await quiet.createMerchant({ name: 'No worker' });
      const d = await activeDeposit(quiet, qm.api_key, { game: 'dota2' });
      const items = await quiet.ctx.db.selectFrom('deposit_items').select(['asset_id', 'market_hash_name', 'price', 'original_price']).where('deposit_id', '=', d.id).orderBy('id').execute();
      expect(items.length).toBeGreaterThan(0);
      const listed = async () =>
        (await sql<{ id: string; name: string; base_price: number; source_ref: string; status: string; game: string }>`
          select id, name, base_price, source_ref, status, game from listings where source = 'deposit' and source_ref like ${`deposit:${d.id}:%`} order by source_ref`.execute(quiet.ctx.db)).rows;
      expect(await listed()).toEqual([]);
      expect((await quiet.merchant(qm.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`)).body.data.status).toBe('completed');
      const expected = items
        .map((it) => ({ id: depositListingId(d.id, it.asset_id!), name: it.market_hash_name, base_price: Number(it.original_price ?? it.price), source_ref: `deposit:${d.id}:${it.asset_id}`, status: 'live', game: 'dota2' }))
        .sort((a, b) => a.source_ref.localeCompare(b.source_ref));
      expect(await listed()).toEqual(expected);
      await quiet.flushJobs();
      const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
         where t.identifier = 'catalogue_add_deposit_items'`.execute(quiet.ctx.db);
      expect(jobs.rows[0]!.n).toBe(0);
      // A job an older version queued for it lists nothing twice.
      expect(await quiet.ctx.catalogue.addDepositItems(d.id)).toBe(0);
      expect(await listed()).toEqual(expected);
    } finally {
      await quiet.stop();
    }
  });

  it('a completed deposit reversed late: its live listings are delisted, a reserved one is delisted when its purchase releases it; another deposit\'s released listing goes back on sale', async () => {
    const [reversed, kept] = await completedDotaDeposits();
    const [taken, forSale] = await listingsOf(reversed.id);
    const [other] = await listingsOf(kept.id);
    expect([taken?.status, forSale?.status, other?.status]).toEqual(['live', 'live', 'live']);
    // Two purchases in flight hold a listing each (as purchase_create_batch leaves them).
    const reserve = (id: string, purchaseId: number) => sql`update listings set status = 'reserved', reserved_by = ${purchaseId} where id = ${id}`.execute(gw.ctx.db);
    await reserve(taken!.id, 990_001);
    await reserve(other!.id, 990_002);
    expect(await delistDepositItems(gw.ctx.db, reversed.id)).toBe(2);
    expect(await delistDepositItems(gw.ctx.db, reversed.id)).toBe(0); // replayed: nothing more
    expect(await listingsOf(reversed.id)).toEqual([
      { id: taken!.id, status: 'reserved', withdrawn: true },
      { id: forSale!.id, status: 'delisted', withdrawn: true },
    ]);
    // Both purchases fail and release their listings.
    await gw.ctx.db.transaction().execute(async (trx) => {
      await releaseListing(trx, taken!.id, 990_001);
      await releaseListing(trx, other!.id, 990_002);
    });
    expect((await listingsOf(reversed.id)).map((l) => l.status)).toEqual(['delisted', 'delisted']);
    expect((await listingsOf(kept.id)).map((l) => l.status)).toEqual(['live']);
  });

  it('migration 076 marks withdrawn the listings reserved when their deposit was reversed before 075, and no other', async () => {
    const [before, untouched] = await completedDotaDeposits();
    // As a reversal before 075 left them: the live listing delisted, the reserved one untouched, the audit row written.
    const [reserved, delisted] = await listingsOf(before.id);
    const [other] = await listingsOf(untouched.id);
    await sql`update listings set status = 'reserved', reserved_by = 990003 where id in (${reserved!.id}, ${other!.id})`.execute(gw.ctx.db);
    await sql`update listings set status = 'delisted' where id = ${delisted!.id}`.execute(gw.ctx.db);
    await sql`insert into audit_log (merchant_id, actor, action, detail) values (${m.id}, 'platform', 'deposit_reversed_after_completion',
      ${JSON.stringify({ deposit_id: before.id, amount: before.amount, recovered: true })}::jsonb)`.execute(gw.ctx.db);
    const migration = await fs.readFile(new URL('../../src/db/migrations/076_listings_withdrawn_backfill.sql', import.meta.url), 'utf8');
    await sql.raw(migration).execute(gw.ctx.db);
    expect(await listingsOf(before.id)).toEqual([
      { id: reserved!.id, status: 'reserved', withdrawn: true },
      { id: delisted!.id, status: 'delisted', withdrawn: false },
    ]);
    expect(await listingsOf(untouched.id)).toEqual([{ id: other!.id, status: 'reserved', withdrawn: false }]);
  });

  it('active → completed without a hold lands in available directly', async () => {
    const before = await balance(gw, m.api_key);
    const d = await activeDeposit(gw, m.api_key, { game: 'dota2' });
    const res = await act(d.id, 'accept');
    expect(res.body.data.status).toBe('completed');
    const b = await balance(gw, m.api_key);
    expect(b.available).toBeCloseTo(before.available + d.amount, 3);
    expect(b.hold).toBeCloseTo(before.hold, 3);
    const keys = (await gw.ctx.db.selectFrom('ledger_entries').select('key').where('ref_id', '=', d.id).where('ref_type', '=', 'deposit').execute()).map((r) => r.key);
    expect(keys).toEqual([`deposit:${d.id}:credit`]);
    await expectBooksBalance(gw);
  });

  it('accept {hold:false} on csgo completes at once; accept {hold:true} on tf2 holds', async () => {
    const a = await activeDeposit(gw, m.api_key);
    expect((await act(a.id, 'accept', { hold: false })).body.data.status).toBe('completed');
    const b = await activeDeposit(gw, m.api_key, { game: 'tf2' });
    const held = await act(b.id, 'accept', { hold: true });
    expect(held.body.data.status).toBe('hold');
    expect(held.body.data.hold_end_date).toBeTruthy();
  });

  it('hold → reverted by user / gateway: hold drops, nothing credited', async () => {
    for (const by of ['user', 'gateway'] as const) {
      const before = await balance(gw, m.api_key);
      const d = await activeDeposit(gw, m.api_key);
      await act(d.id, 'accept');
      const res = await act(d.id, 'revert', { by });
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('reverted');
      expect(res.body.data.fail_reason).toBe(`${by}_reverted`);
      const b = await balance(gw, m.api_key);
      expect(b.hold).toBeCloseTo(before.hold, 3);
      expect(b.available).toBeCloseTo(before.available, 3);
      const events = await webhookEvents(gw, d.id);
      expect(events.map((e) => e.status)).toEqual(['hold', 'reverted']);
      expect(payloadOf(events[1])).not.toHaveProperty('fail_reason'); // 6.1: only failed or canceled
    }
    // revert without a body defaults to the user
    const d = await activeDeposit(gw, m.api_key);
    await act(d.id, 'accept');
    expect((await act(d.id, 'revert')).body.data.fail_reason).toBe('user_reverted');
    await expectBooksBalance(gw);
  });

  it('active → canceled by decline (canceled_by_user) and by expire (canceled_by_gateway)', async () => {
    const before = await balance(gw, m.api_key);
    const d1 = await activeDeposit(gw, m.api_key);
    const r1 = await act(d1.id, 'decline');
    expect(r1.body.data).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_user' });
    const d2 = await activeDeposit(gw, m.api_key);
    const r2 = await act(d2.id, 'expire');
    expect(r2.body.data).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_gateway' });
    expect(await balance(gw, m.api_key)).toEqual(before);
    const ev = await webhookEvents(gw, d1.id);
    expect(ev.map((e) => e.status)).toEqual(['canceled']);
    expect(payloadOf(ev[0]).fail_reason).toBe('canceled_by_user');
  });

  it('illegal transitions answer 409 invalid transition and change nothing', async () => {
    const d = await activeDeposit(gw, m.api_key);
    for (const action of ['release', 'revert']) {
      const res = await act(d.id, action);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe('invalid transition');
      expect(res.body.data[0]).toMatchObject({ field: 'status', code: 'invalid_transition' });
    }
    await act(d.id, 'accept'); // → hold
    for (const action of ['accept', 'decline', 'expire']) {
      expect((await act(d.id, action)).status).toBe(409);
    }
    await act(d.id, 'release'); // → completed
    for (const action of ['accept', 'decline', 'expire', 'release', 'revert']) {
      expect((await act(d.id, action)).status).toBe(409);
    }
    const status = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}`);
    expect(status.body.data.status).toBe('completed');
    // a draft (status new) cannot be accepted either
    const draft = await gw.merchant(m.api_key, 'POST', '/get-prices', { game: 'csgo', marketHashNames: [gw.ctx.pricing.namesFor('csgo')[0]] });
    expect((await act(draft.body.data.id, 'accept')).status).toBe(409);
    await expectBooksBalance(gw);
  });

  it("another merchant's deposit is 404; a bad action or body is 4xx", async () => {
    const d = await activeDeposit(gw, m.api_key);
    const other = await gw.createMerchant({ name: 'Other' });
    const res = await gw.merchant(other.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('not found error');
    expect((await act(d.id, 'explode')).status).toBe(400);
    expect((await act(d.id, 'accept', { hold: 'yes' })).status).toBe(400);
    expect((await act(d.id, 'revert', { by: 'nobody' })).status).toBe(400);
    expect((await act(999999999, 'accept')).status).toBe(404);
  });

  it('two concurrent accepts of one offer: one wins, the other is 409; money moves once', async () => {
    const before = await balance(gw, m.api_key);
    const d = await activeDeposit(gw, m.api_key, { game: 'dota2' });
    const results = await Promise.all([act(d.id, 'accept'), act(d.id, 'accept'), act(d.id, 'decline')]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(2);
    const after = await balance(gw, m.api_key);
    const final = (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}`)).body.data.status;
    expect(after.available).toBeCloseTo(before.available + (final === 'completed' ? d.amount : 0), 3);
    await expectBooksBalance(gw);
  });
});

describe('time-driven transitions (jobs with run_at)', () => {
  it('a hold ends by itself after HOLD_SECONDS_<GAME> → completed, balance moved', async () => {
    const before = await balance(gw, m.api_key);
    const d = await activeDeposit(gw, m.api_key, { game: 'rust' });
    expect((await act(d.id, 'accept')).body.data.status).toBe('hold');
    await eventually(async () => (await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${d.id}`)).body.data.status === 'completed', 15_000, 200);
    const b = await balance(gw, m.api_key);
    expect(b.available).toBeCloseTo(before.available + d.amount, 3);
    expect(b.hold).toBeCloseTo(before.hold, 3);
    await expectBooksBalance(gw);
  });

  it('an offer expires by itself after OFFER_TTL_SECONDS → canceled; a job for a moved-on deposit does nothing', async () => {
    const timed = await startTestGateway({ OFFER_TTL_SECONDS: '1' });
    try {
      const tm = await timed.createMerchant({ name: 'Timed' });
      const d = await activeDeposit(timed, tm.api_key);
      const accepted = await activeDeposit(timed, tm.api_key, { game: 'dota2' });
      await timed.merchant(tm.api_key, 'POST', `/sandbox/deposit/${accepted.id}/accept`);
      const st = await eventually(async () => {
        const s = (await timed.merchant(tm.api_key, 'GET', `/deposit/status?id=${d.id}`)).body.data;
        return s.status === 'canceled' ? s : null;
      }, 15_000, 200);
      expect(st.fail_reason).toBe('canceled_by_gateway');
      // the expiry job of the accepted deposit ran too and left it completed
      await eventually(async () => {
        await timed.flushJobs();
        const jobs = await timed.ctx.db.selectFrom('graphile_worker.jobs' as any).select('id' as any).where('task_identifier' as any, '=', 'deposit_offer_expire').execute();
        return jobs.length === 0;
      }, 15_000, 200);
      expect((await timed.merchant(tm.api_key, 'GET', `/deposit/status?id=${accepted.id}`)).body.data.status).toBe('completed');
      // re-running the handler directly is a no-op
      expect(await timed.ctx.deposits.tryTransition(d.id, 'expire')).toBeNull();
      await expectBooksBalance(timed);
    } finally {
      await timed.stop();
    }
  });
});

describe('pending watchdog', () => {
  it('fails a deposit left pending (crash between commit and perform); leaves others alone', async () => {
    const mk = (status: string) =>
      gw.ctx.db.insertInto('deposits').values({ merchant_id: m.id, flow: 'inventory', status: status as any, game: 'csgo', partner: 12345678, token: 'abcdefgh', amount: 1000 }).returning('id').executeTakeFirstOrThrow();
    const stuck = await mk('pending');
    const draft = await mk('new');
    const tasks = depositTasks(gw.ctx);
    await (tasks.deposit_pending_watchdog as any)({ deposit_id: stuck.id }, {});
    await (tasks.deposit_pending_watchdog as any)({ deposit_id: draft.id }, {});
    await (tasks.deposit_pending_watchdog as any)({ deposit_id: stuck.id }, {}); // repeat: no-op
    const rows = await gw.ctx.db.selectFrom('deposits').select(['id', 'status', 'fail_reason']).where('id', 'in', [stuck.id, draft.id]).orderBy('id').execute();
    expect(rows).toEqual([
      { id: stuck.id, status: 'failed', fail_reason: 'service_unavailable' },
      { id: draft.id, status: 'new', fail_reason: null },
    ]);
  });
});

describe('platform selection', () => {
  it('PLATFORM=steam needs BOT_SECRETS_KEY, then starts the steam adapter', async () => {
    const env = { DATABASE_URL: gw.databaseUrl, PORT: '0', PLATFORM: 'steam', ADMIN_TOKEN: 'x'.repeat(32), LOG_LEVEL: 'silent' };
    expect(() => loadConfig(env)).toThrow(/BOT_SECRETS_KEY is required/);
    const steam = await startGateway(loadConfig({ ...env, BOT_SECRETS_KEY: 'ab'.repeat(32), PRICE_BOOK: steamTestPriceBook() }), { listen: false, worker: false });
    try {
      expect(steam.ctx.platform.kind).toBe('steam');
      expect(steam.ctx.platform.simulate).toBeUndefined();
    } finally {
      await steam.stop();
    }
  });

  it('the sandbox helper routes exist only on the sandbox platform', async () => {
    const app = Fastify();
    await app.register(sandboxDepositRoutes({ config: { platform: 'steam' } } as any));
    const res = await app.inject({ method: 'POST', url: '/sandbox/deposit/1/accept' });
    expect(res.statusCode).toBe(404);
    await app.close();
  });
});
