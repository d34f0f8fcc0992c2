import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
});
afterAll(async () => gw?.stop());

async function balance(key: string) {
  return (await gw.merchant(key, 'GET', '/balance')).body.data;
}

describe('top-ups and withdrawals (spec 3.4)', () => {
  it('a top-up grows available, exactly', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 0.1);
    await gw.topUp(m.id, 0.2);
    expect(await balance(m.api_key)).toEqual({ total: 0.3, hold: 0, available: 0.3 });
  });

  it('top-ups are idempotent by reference', async () => {
    const m = await gw.createMerchant();
    const a = await gw.admin('POST', `/merchants/${m.id}/top-ups`, { amount: 5, reference: 'bank-1' });
    const b = await gw.admin('POST', `/merchants/${m.id}/top-ups`, { amount: 5, reference: 'bank-1' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.data.duplicate).toBe(true);
    expect((await balance(m.api_key)).available).toBe(5);
    const clash = await gw.admin('POST', `/merchants/${m.id}/top-ups`, { amount: 6, reference: 'bank-1' });
    expect(clash.status).toBe(400);
  });

  it('rejects amounts that are zero, negative, absurd or finer than 1/1000', async () => {
    const m = await gw.createMerchant();
    for (const amount of [0, -1, 1e12, 0.0001, 'ten', null]) {
      const res = await gw.admin('POST', `/merchants/${m.id}/top-ups`, { amount });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.message).toBe('validation error');
    }
    const ok = await gw.admin('POST', `/merchants/${m.id}/top-ups`, { amount: 0.001 });
    expect(ok.status).toBe(201);
    expect((await balance(m.api_key)).available).toBe(0.001);
  });

  it('a withdrawal drops available at once; complete keeps it out', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 10);
    const w = await gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 4 });
    expect(w.status).toBe(201);
    expect(w.body.data.status).toBe('pending');
    expect((await balance(m.api_key)).available).toBe(6);
    const done = await gw.admin('POST', `/withdrawals/${w.body.data.id}/complete`);
    expect(done.body.data.status).toBe('completed');
    expect((await balance(m.api_key)).available).toBe(6);
  });

  it.each(['fail', 'cancel'])('a withdrawal that is %sed returns the amount', async (action) => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 10);
    const w = await gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 7.5 });
    const res = await gw.admin('POST', `/withdrawals/${w.body.data.id}/${action}`);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe(action === 'fail' ? 'failed' : 'canceled');
    expect((await balance(m.api_key)).available).toBe(10);
  });

  it('terminal withdrawals refuse further transitions with 409 and move no money', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 10);
    const w = await gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 3 });
    await gw.admin('POST', `/withdrawals/${w.body.data.id}/cancel`);
    for (const action of ['complete', 'fail', 'cancel']) {
      const res = await gw.admin('POST', `/withdrawals/${w.body.data.id}/${action}`);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe('invalid transition');
    }
    expect((await balance(m.api_key)).available).toBe(10);
    expect((await gw.admin('POST', '/withdrawals/999999/complete')).status).toBe(404);
  });

  it('a withdrawal above available is refused with insufficient_balance', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 1);
    const res = await gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 1.001 });
    expect(res.status).toBe(400);
    expect(res.body.data[0].code).toBe('insufficient_balance');
    expect((await balance(m.api_key)).available).toBe(1);
  });

  it('50 concurrent withdrawals that together exceed the balance never overdraw', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 100);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 3 })),
    );
    const ok = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 400);
    expect(ok).toBe(33); // 33 × 3 = 99 ≤ 100 < 34 × 3
    expect(refused.length).toBe(17);
    for (const r of refused) expect(r.body.data[0].code).toBe('insufficient_balance');
    expect((await balance(m.api_key)).available).toBe(1);
    const verify = await gw.ctx.ledger.verify(m.id);
    expect(verify.mismatches).toEqual([]);
  });

  it('concurrent complete and cancel of one withdrawal: exactly one wins', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 10);
    const w = await gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 10 });
    const [a, b] = await Promise.all([
      gw.admin('POST', `/withdrawals/${w.body.data.id}/complete`),
      gw.admin('POST', `/withdrawals/${w.body.data.id}/cancel`),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const expected = a.status === 200 ? 0 : 10;
    expect((await balance(m.api_key)).available).toBe(expected);
  });
});

describe('the ledger', () => {
  it('lists entries newest first with running balances', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 2);
    await gw.admin('POST', `/merchants/${m.id}/withdrawals`, { amount: 0.5 });
    const res = await gw.admin('GET', `/merchants/${m.id}/ledger?limit=10`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: any) => [e.kind, e.available_delta, e.available_after])).toEqual([
      ['withdrawal', -0.5, 1.5],
      ['top_up', 2, 2],
    ]);
  });

  it('entries are immutable (a database trigger refuses updates)', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 1);
    await expect(sql`update ledger_entries set available_delta = 100 where merchant_id = ${m.id}`.execute(gw.ctx.db)).rejects.toThrow(/immutable/);
  });

  it('available can never go below zero, even by direct SQL (CHECK constraint)', async () => {
    const m = await gw.createMerchant();
    await expect(sql`update balances set available = -1 where merchant_id = ${m.id}`.execute(gw.ctx.db)).rejects.toThrow(/check/i);
  });

  it('verify finds a balance that disagrees with its entries', async () => {
    const m = await gw.createMerchant();
    await gw.topUp(m.id, 3);
    expect((await gw.ctx.ledger.verify(m.id)).mismatches).toEqual([]);
    await sql`update balances set available = available + 1 where merchant_id = ${m.id}`.execute(gw.ctx.db);
    const r = await gw.ctx.ledger.verify(m.id);
    expect(r.mismatches).toHaveLength(1);
    expect(r.mismatches[0]).toMatchObject({ merchant_id: m.id, available: 3001, ledger_available: 3000 });
    const api = await gw.admin('GET', '/ledger/verify');
    expect(api.body.data.ok).toBe(false);
  });
});
