// Group commit of deposit transitions (issue 12, phase 5; 024_deposit_transition_batch.sql): the
// offer changes an instance receives at the same time are one statement and one commit. Each
// transition keeps its guarantees: a status changes along the state machine exactly once, the
// ledger movement once (books balance), one webhook event per change, in the same commit; a
// transition whose guard fails inside a batch is answered on its own, the others are not affected.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { statementLog } from '../statement-log.js';
import { createDepositTransitions } from '../../src/modules/deposits/deposit-transitions.js';
import * as repo from '../../src/modules/deposits/deposit-repo.js';
import { activeDeposit, balance, expectBooksBalance, payloadOf, webhookEvents } from './deposit-helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'Grouped', webhook_url: 'http://127.0.0.1:9/hook' });
});
afterAll(async () => gw?.stop());

const accept = (key: string, id: number) => gw.merchant(key, 'POST', `/sandbox/deposit/${id}/accept`, { hold: false });
const ledgerKeys = async (id: number) =>
  (await gw.ctx.db.selectFrom('ledger_entries').select('key').where('ref_type', '=', 'deposit').where('ref_id', '=', id).execute()).map((e) => e.key);

describe('group commit of deposit transitions', () => {
  it('50 concurrent accepts of one merchant: each completed once, in fewer statements than accepts, balance = sum, books balance, one webhook each', async () => {
    const deposits = await Promise.all(Array.from({ length: 50 }, () => activeDeposit(gw, m.api_key)));
    const before = await balance(gw, m.api_key);
    const recorder = statementLog(gw.ctx.pool);
    const { result: answers, statements } = await recorder.during(() => Promise.all(deposits.map((d) => accept(m.api_key, d.id))));
    for (const [i, res] of answers.entries()) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({ id: deposits[i].id, status: 'completed', amount: deposits[i].amount });
    }
    // grouped: fewer batch statements than transitions, and no transaction path
    const batches = statements.filter((s) => s.includes('deposit_transition_batch'));
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.length).toBeLessThan(50);
    expect(statements.filter((s) => s === 'begin')).toEqual([]);
    // the reads before the transitions and the sandbox platform's records after them are grouped too
    const reads = statements.filter((s) => s.includes('from deposits where id = any'));
    const departed = statements.filter((s) => s.includes('insert into sandbox_departed_assets'));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThan(50);
    expect(departed.length).toBeGreaterThan(0);
    expect(departed.length).toBeLessThan(50);
    const gone = await sql<{ n: number }>`select count(distinct deposit_id)::int as n from sandbox_departed_assets where deposit_id = any(${deposits.map((d) => d.id)}::bigint[])`.execute(gw.ctx.db);
    expect(gone.rows[0].n).toBe(50);

    const sum = deposits.reduce((a, d) => a + d.amount, 0);
    expect((await balance(gw, m.api_key)).available).toBeCloseTo(before.available + sum, 3);
    for (const d of deposits) {
      expect(await ledgerKeys(d.id)).toEqual([`deposit:${d.id}:credit`]);
      const events = await webhookEvents(gw, d.id);
      expect(events.map((e) => e.status)).toEqual(['completed']);
      expect(payloadOf(events[0])).toMatchObject({ status: 'completed', trade_id: d.id, amount: d.amount, offer_id: d.trade_offer_id });
    }
    // each ledger entry's balance-after follows the one before it (one running sum per merchant)
    const entries = await gw.ctx.db.selectFrom('ledger_entries').select(['available_delta', 'available_after']).where('merchant_id', '=', m.id).orderBy('id').execute();
    for (let i = 1; i < entries.length; i++) expect(Number(entries[i].available_after)).toBe(Number(entries[i - 1].available_after) + Number(entries[i].available_delta));
    const items = await gw.ctx.db.selectFrom('deposit_items').select('reserved').where('deposit_id', 'in', deposits.map((d) => d.id)).execute();
    expect(items.length).toBeGreaterThanOrEqual(50);
    expect(items.every((r) => r.reserved === false)).toBe(true);
    await expectBooksBalance(gw);
  });

  it('a transition whose guard fails inside a batch is answered on its own; the others of the batch complete', async () => {
    const transitions = createDepositTransitions({ db: gw.ctx.db, config: gw.ctx.config, clock: gw.ctx.clock });
    const made = await Promise.all(Array.from({ length: 5 }, () => activeDeposit(gw, m.api_key)));
    const rows = await Promise.all(made.map(async (d) => (await repo.findDepositById(gw.ctx.db, d.id))!));
    // the third deposit moves on after it was read: its read row is stale
    await transitions.apply(rows[2].id, 'decline');
    const before = await balance(gw, m.api_key);
    const results = await Promise.all(rows.map((d) => transitions.applyFrom(d, 'accept', { merchantId: m.id })));
    expect(results[2]).toEqual({ ok: false, reason: 'invalid_transition', current: 'canceled' });
    for (const i of [0, 1, 3, 4]) {
      expect(results[i]).toMatchObject({ ok: true, row: { id: rows[i].id, status: 'completed' } });
      expect(await ledgerKeys(rows[i].id)).toEqual([`deposit:${rows[i].id}:credit`]);
    }
    expect(await ledgerKeys(rows[2].id)).toEqual([]);
    expect((await webhookEvents(gw, rows[2].id)).map((e) => e.status)).toEqual(['canceled']);
    const sum = [0, 1, 3, 4].reduce((a, i) => a + made[i].amount, 0);
    expect((await balance(gw, m.api_key)).available).toBeCloseTo(before.available + sum, 3);
    await expectBooksBalance(gw);
  });

  it("another merchant's deposit in the same batch is not found, and is not changed", async () => {
    const other = await gw.createMerchant({ name: 'Other grouped' });
    const mine = await activeDeposit(gw, m.api_key);
    const theirs = await activeDeposit(gw, other.api_key);
    const [a, b] = await Promise.all([accept(m.api_key, mine.id), accept(m.api_key, theirs.id)]);
    expect(a.status).toBe(200);
    expect(a.body.data.status).toBe('completed');
    expect(b.status).toBe(404);
    const row = await gw.ctx.db.selectFrom('deposits').select('status').where('id', '=', theirs.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
    expect(await webhookEvents(gw, theirs.id)).toEqual([]);
  });

  it('concurrent accept and decline of one deposit (also the same deposit twice in a batch): exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const d = await activeDeposit(gw, m.api_key);
      const before = await balance(gw, m.api_key);
      const answers = await Promise.all([
        accept(m.api_key, d.id),
        gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/decline`),
        accept(m.api_key, d.id),
      ]);
      const won = answers.filter((r) => r.status === 200);
      expect(won, JSON.stringify(answers.map((r) => r.body))).toHaveLength(1);
      for (const r of answers.filter((x) => x.status !== 200)) expect(r.body).toMatchObject({ success: false, message: 'invalid transition' });
      const status = won[0].body.data.status as string;
      expect(['completed', 'canceled']).toContain(status);
      expect((await webhookEvents(gw, d.id)).map((e) => e.status)).toEqual([status]);
      expect(await ledgerKeys(d.id)).toEqual(status === 'completed' ? [`deposit:${d.id}:credit`] : []);
      expect((await balance(gw, m.api_key)).available).toBeCloseTo(before.available + (status === 'completed' ? d.amount : 0), 3);
    }
    await expectBooksBalance(gw);
  });

  it('two instances accepting and declining the same 20 deposits at once (batches on both): each changes once, money moves once', async () => {
    const b = await startTestGateway({}, { databaseUrl: gw.databaseUrl, worker: false });
    try {
      const deposits = await Promise.all(Array.from({ length: 20 }, () => activeDeposit(gw, m.api_key)));
      const before = await balance(gw, m.api_key);
      const answers = await Promise.all(
        deposits.flatMap((d) => [
          accept(m.api_key, d.id),
          b.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: false }),
          b.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/decline`),
        ]),
      );
      let credited = 0;
      for (const [i, d] of deposits.entries()) {
        const three = answers.slice(i * 3, i * 3 + 3);
        expect(three.filter((r) => r.status === 200), JSON.stringify(three.map((r) => r.body))).toHaveLength(1);
        expect(three.filter((r) => r.status === 409)).toHaveLength(2);
        const status = three.find((r) => r.status === 200)!.body.data.status as string;
        expect((await webhookEvents(gw, d.id)).map((e) => e.status)).toEqual([status]);
        expect(await ledgerKeys(d.id)).toEqual(status === 'completed' ? [`deposit:${d.id}:credit`] : []);
        if (status === 'completed') credited += d.amount;
      }
      expect((await balance(gw, m.api_key)).available).toBeCloseTo(before.available + credited, 3);
      await expectBooksBalance(gw);
    } finally {
      await b.stop();
    }
  });

  it('a movement that cannot apply fails the batch as a whole: each then goes on its own, and only that one is refused', async () => {
    const transitions = createDepositTransitions({ db: gw.ctx.db, config: gw.ctx.config, clock: gw.ctx.clock });
    const own = await gw.createMerchant({ name: 'Short hold', webhook_url: 'http://127.0.0.1:9/hook' });
    const [x, y] = [await activeDeposit(gw, own.api_key), await activeDeposit(gw, own.api_key)];
    const [hx, hy] = await Promise.all([x, y].map(async (d) => (await transitions.tryApply(d.id, 'accept_hold', { set: { hold_end_date: new Date(Date.now() + 3_600_000) } }))!));
    // the merchant's hold no longer covers both reverts (as if money had left it by another way)
    await gw.ctx.db.updateTable('balances').set({ hold: Math.max(hx.amount, hy.amount) }).where('merchant_id', '=', own.id).execute();
    const results = await Promise.allSettled([hx, hy].map((d) => transitions.applyFrom(d, 'revert', { failReason: 'user_reverted' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const after = await gw.ctx.db.selectFrom('deposits').select(['id', 'status']).where('id', 'in', [hx.id, hy.id]).orderBy('id').execute();
    expect(after.map((r) => r.status).sort()).toEqual(['hold', 'reverted']);
    const held = after.find((r) => r.status === 'hold')!;
    expect(await ledgerKeys(held.id)).toEqual([`deposit:${held.id}:hold`]);
    expect((await webhookEvents(gw, held.id)).map((e) => e.status)).toEqual(['hold']);
    const b = await gw.ctx.db.selectFrom('balances').select('hold').where('merchant_id', '=', own.id).executeTakeFirstOrThrow();
    expect(Number(b.hold)).toBe(Math.max(hx.amount, hy.amount) - (hx.id === held.id ? hy.amount : hx.amount));
  });
});
