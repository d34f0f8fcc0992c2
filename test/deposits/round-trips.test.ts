// Statements per status transition (issue 12): the sandbox accept of an active deposit with
// hold:false (→ completed) is the deposit's read, then ONE statement with its own commit (the
// guarded status change, the items' release, webhook event, the items' listings, ledger
// movement: the merchant's balances row lock is never held across a round trip) — since phase 5
// the group commit's statement (024_deposit_transition_batch.sql), shared with the transitions
// that arrive at the same time (test/deposits/group-commit.test.ts); the sandbox platform's own
// record of the departed assets, the trade and the bot's new items follow in statements of their
// own (grouped too: one each for the acceptances that arrive together). The read is grouped
// with the concurrent ones as well: `id = any($1)`.
// Counted on the pool's clients (no worker runs; the relay, the catalogue stamper and the
// listeners are told apart by their SQL).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { statementLog } from '../statement-log.js';
import { activeDeposit, balance, expectBooksBalance, webhookEvents } from './deposit-helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
let recorder: ReturnType<typeof statementLog>;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'Counted', webhook_url: 'http://127.0.0.1:9/hook' });
  recorder = statementLog(gw.ctx.pool);
});
afterAll(async () => gw?.stop());

async function counted(path: string, body: unknown) {
  const { result: res, statements } = await recorder.during(() => gw.merchant(m.api_key, 'POST', path, body));
  return { res, statements };
}

describe('sandbox accept (hold:false) → completed, statement by statement', () => {
  it('the read, then one statement with its own commit (guarded update, items released, webhook, listings, ledger), then the platform record', async () => {
    const d = await activeDeposit(gw, m.api_key);
    const before = await balance(gw, m.api_key);
    const { res, statements } = await counted(`/sandbox/deposit/${d.id}/accept`, { hold: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: d.id, status: 'completed', amount: d.amount });
    // The gateway's part is the first two; the rest is the sandbox platform's own record of the trade
    // (the user's assets departed; the trade and the bot's new items, for bot stock and reconciliation).
    expect(statements, statements.join('\n')).toHaveLength(4);
    expect(statements[0]).toMatch(/^\/\* prepared:deposits_by_ids \*\/ select id, merchant_id, .* from deposits where id = any\(array\(select unnest\(\$1::bigint\[\]\)\)\)$/); // the grouped read (offer.ts), scoped to the merchant in code, a prepared statement
    // only the markers of what it writes: a webhook, no job (a relay woken for nothing is a round trip)
    expect(statements[1]).toMatch(/^\/\* webhook_events:write \*\/ +select \* from deposit_transition_batch\(\$1::jsonb\)$/);
    expect(statements[2]).toMatch(/insert into sandbox_trades.*insert into sandbox_departed_assets/s); // one statement
    expect(statements[3]).toMatch(/insert into sandbox_bot_items .* from unnest/s);
    expect(statements.join('\n')).not.toMatch(/^(begin|commit)$/m);
    expect(statements.join('\n')).not.toMatch(/graphile_worker|savepoint|pg_notify/);

    // what it did: every rule of the transition is still there
    expect((await balance(gw, m.api_key)).available).toBeCloseTo(before.available + d.amount, 3);
    const entries = await gw.ctx.db.selectFrom('ledger_entries').select('key').where('ref_type', '=', 'deposit').where('ref_id', '=', d.id).execute();
    expect(entries.map((e) => e.key)).toEqual([`deposit:${d.id}:credit`]);
    const events = await webhookEvents(gw, d.id);
    expect(events.map((e) => e.status)).toEqual(['completed']); // active sends none (DEPOSIT_MACHINE.onEnter)
    const reserved = await gw.ctx.db.selectFrom('deposit_items').select('reserved').where('deposit_id', '=', d.id).execute();
    expect(reserved.length).toBeGreaterThan(0);
    expect(reserved.every((r) => r.reserved === false)).toBe(true);
    // its items listed by the same statement (no job)
    const listed = await sql<{ n: number }>`select count(*)::int as n from listings where source = 'deposit' and source_ref like ${`deposit:${d.id}:%`}`.execute(gw.ctx.db);
    expect(listed.rows[0]!.n).toBe(reserved.length);
    await expectBooksBalance(gw);
  });

  it('acceptances that arrive together: the platform records their trades and the bots\' new items in one statement each', async () => {
    const ds = await Promise.all(Array.from({ length: 6 }, () => activeDeposit(gw, m.api_key)));
    const { result, statements } = await recorder.during(() => Promise.all(ds.map((d) => gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: false }))));
    for (const r of result) expect(r.body.data.status).toBe('completed');
    const ids = ds.map((d) => d.id);
    const trades = await sql<{ record_id: string }>`select record_id from sandbox_trades where offer_kind = 'deposit' and record_id = any(${ids}::bigint[]) order by record_id`.execute(gw.ctx.db);
    expect(trades.rows.map((t) => Number(t.record_id))).toEqual([...ids].sort((a, b) => a - b));
    const items = await sql<{ deposit_id: string; n: number }>`select deposit_id, count(*)::int as n from sandbox_bot_items where deposit_id = any(${ids}::bigint[]) and gone_at is null group by deposit_id`.execute(gw.ctx.db);
    const reserved = await sql<{ deposit_id: string; n: number }>`select deposit_id, count(*)::int as n from deposit_items where deposit_id = any(${ids}::bigint[]) group by deposit_id`.execute(gw.ctx.db);
    expect(new Map(items.rows.map((r) => [Number(r.deposit_id), r.n]))).toEqual(new Map(reserved.rows.map((r) => [Number(r.deposit_id), r.n])));
    expect(statements.filter((s) => /insert into sandbox_trades/.test(s)).length).toBeLessThan(ds.length);
    expect(statements.filter((s) => /insert into sandbox_bot_items/.test(s)).length).toBeLessThan(ds.length);
  });

  it('a refused accept (already completed) reads the row once (locked, in the transaction path) to answer 409, and changes nothing', async () => {
    const d = await activeDeposit(gw, m.api_key);
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: false });
    const { res, statements } = await counted(`/sandbox/deposit/${d.id}/accept`, { hold: false });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, message: 'invalid transition' });
    expect(statements.join('\n')).not.toMatch(/ledger_entries|webhook_events:write|sandbox_departed_assets/);
    expect((await webhookEvents(gw, d.id)).map((e) => e.status)).toEqual(['completed']);
    expect(statements.filter((s) => /^select .* from "deposits" where "id" = \$1 for update$/.test(s))).toHaveLength(1);
    expect(statements.join('\n')).not.toMatch(/deposit_transition_batch\(/);
  });

  it("another merchant's deposit is a 404, and nothing changes", async () => {
    const d = await activeDeposit(gw, m.api_key);
    const other = await gw.createMerchant({ name: 'Other' });
    const res = await gw.merchant(other.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: false });
    expect(res.status).toBe(404);
    const row = await gw.ctx.db.selectFrom('deposits').select('status').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
    expect(res.body).toMatchObject({ success: false });
    expect(await webhookEvents(gw, d.id)).toEqual([]);
    expect((await gw.ctx.db.selectFrom('deposit_items').select('reserved').where('deposit_id', '=', d.id).execute()).every((r) => r.reserved)).toBe(true);
  });

  it('a movement whose key is already in the ledger is a no-op: the batch statement completes the deposit once, with no second credit', async () => {
    const d = await activeDeposit(gw, m.api_key);
    const before = await balance(gw, m.api_key);
    const b = await gw.ctx.db.selectFrom('balances').select(['available', 'hold']).where('merchant_id', '=', m.id).executeTakeFirstOrThrow();
    // the credit's key, as a replayed movement would find it (zero deltas: the books still add up)
    await gw.ctx.db
      .insertInto('ledger_entries')
      .values({ merchant_id: m.id, key: `deposit:${d.id}:credit`, kind: 'deposit_credit', available_delta: 0, hold_delta: 0, available_after: b.available, hold_after: b.hold, ref_type: 'deposit', ref_id: d.id } as never)
      .execute();
    const { res, statements } = await counted(`/sandbox/deposit/${d.id}/accept`, { hold: false });
    expect(res.body.data).toMatchObject({ id: d.id, status: 'completed' });
    expect(statements[1]).toMatch(/deposit_transition_batch/);
    expect(statements).not.toContain('begin'); // no transaction path: ledger_apply answered 'duplicate'
    expect((await balance(gw, m.api_key)).available).toBeCloseTo(before.available, 3);
    expect((await webhookEvents(gw, d.id)).map((e) => e.status)).toEqual(['completed']);
    const listed = await sql<{ n: number }>`select count(*)::int as n from listings where source = 'deposit' and source_ref like ${`deposit:${d.id}:%`}`.execute(gw.ctx.db);
    expect(listed.rows[0]!.n).toBeGreaterThan(0);
    await expectBooksBalance(gw);
  });
});
