// Money at the edges (issue 21): digits a JSON number cannot hold are refused on the text as sent
// (never rounded), on the admin and merchant APIs and the forms; a balance stops at its documented
// limit with a clear 400; rates that would price an item at 0 are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';
import { BALANCE_LIMIT_MILLS } from '../../src/modules/ledger/ledger-service.js';
import { MIN_RATE } from '../../src/modules/merchants/merchant-service.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
});
afterAll(async () => gw?.stop());

/** A JSON body sent exactly as written (JSON.stringify would already have rounded the number). */
async function raw(path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: (await res.json()) as any };
}
const admin = (path: string, body: string) => raw(`/api/admin${path}`, body, { authorization: `Bearer ${ADMIN_TOKEN}` });

async function available(id: number): Promise<number> {
  const r = await sql<{ available: string }>`select available::text from balances where merchant_id = ${id}`.execute(gw.ctx.db);
  return Number(r.rows[0].available);
}

describe('decimals are decided on the number as sent', () => {
  it('a top-up with digits a double cannot hold is refused with its field, not rounded; the same value written shortly is credited', async () => {
    const m = await gw.createMerchant();
    for (const amount of ['1.0000000000000001', '0.0009999999999999999999', '1.00000000000000000001e0']) {
      const r = await admin(`/merchants/${m.id}/top-ups`, `{"amount": ${amount}}`);
      expect(r.status, amount).toBe(400);
      expect(r.body.message).toBe('validation error');
      expect(r.body.data[0]).toMatchObject({ field: 'amount', code: 'numeric' });
      expect(r.body.data[0].message).toContain(amount);
    }
    expect(await available(m.id)).toBe(0);
    for (const amount of ['1.000', '1.5e0', '0.001', '123456789.123']) {
      expect((await admin(`/merchants/${m.id}/top-ups`, `{"amount": ${amount}}`)).status, amount).toBe(201);
    }
    expect(await available(m.id)).toBe(1000 + 1500 + 1 + 123456789123);
    expect((await admin(`/merchants/${m.id}/top-ups`, '{"amount": 1.0005}')).status).toBe(400); // 4 decimals, exactly held
  });

  it('the merchant API: a max_price a double cannot hold is refused with its field', async () => {
    const m = await gw.createMerchant();
    const r = await raw('/api/v1/merchant/purchase', '{"merchant_tx_id":"t1","game":"csgo","partner":12345678,"token":"abcdefgh","max_price":2.0000000000000001,"name":"x"}', { 'x-api-key': m.api_key });
    expect(r.status).toBe(400);
    expect(r.body.data[0]).toMatchObject({ field: 'max_price', code: 'numeric' });
  });
});

describe(`the balance limit (${BALANCE_LIMIT_MILLS} mills)`, () => {
  it('a top-up that reaches the limit exactly is credited; one mill past it is a 400 naming the limit, nothing moved', async () => {
    const m = await gw.createMerchant();
    const start = BALANCE_LIMIT_MILLS - 1_000_000_000_000; // 1e9 USD below the limit
    await sql`update balances set available = ${start} where merchant_id = ${m.id}`.execute(gw.ctx.db);
    const atLimit = await admin(`/merchants/${m.id}/top-ups`, '{"amount": 1000000000}');
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.data.balance.total).toBe(BALANCE_LIMIT_MILLS / 1000);
    const past = await admin(`/merchants/${m.id}/top-ups`, '{"amount": 0.001}');
    expect(past.status).toBe(400);
    expect(past.body.data[0]).toMatchObject({ field: 'amount', code: 'max' });
    expect(past.body.data[0].message).toContain(String(BALANCE_LIMIT_MILLS / 1000));
    expect(await available(m.id)).toBe(BALANCE_LIMIT_MILLS);
  });
});

describe('rates that would price an item at 0', () => {
  it(`purchase_markup and deposit_multiplier below ${MIN_RATE} are refused; ${MIN_RATE} is accepted`, async () => {
    const m = await gw.createMerchant();
    for (const field of ['purchase_markup', 'deposit_multiplier']) {
      for (const v of [0.0001, 0.000001, 0.499999]) {
        const r = await gw.admin('PATCH', `/merchants/${m.id}`, { [field]: v });
        expect(r.status, `${field} ${v}`).toBe(400);
      }
      const ok = await gw.admin('PATCH', `/merchants/${m.id}`, { [field]: MIN_RATE });
      expect(ok.status).toBe(200);
      expect(ok.body.data[field]).toBe(MIN_RATE);
    }
  });
});

describe('merchant names', () => {
  it('a blank name or one over 200 characters is a 400 on the admin API; 200 is accepted', async () => {
    expect((await gw.admin('POST', '/merchants', { name: '   ' })).status).toBe(400);
    expect((await gw.admin('POST', '/merchants', { name: 'x'.repeat(201) })).status).toBe(400);
    expect((await gw.admin('POST', '/merchants', { name: 'x'.repeat(200) })).status).toBe(201);
  });
});
