// The largest amount (src/domain/money.ts MAX_AMOUNT_MILLS, 2^43 USD): every amount up to it is
// printed exactly as a JSON number (mills / 1000 as a double), the first one past it is not, so
// entry amounts and balances stop at it with a clear 400. At the edge the balance prints exactly in
// GET balance, the admin ledger, `gateway ledger list`, the dashboard's ledger CSV and a webhook body.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers.js';
import { CLI_TEST_TIMEOUT_MS, cliGateway } from '../cli-run.js';
import { userOf } from '../dashboard/web-client.js';
import { MAX_AMOUNT_MILLS, MAX_AMOUNT_USD, millsToUsd, MoneyError, usdTextToMills, usdToMills } from '../../src/domain/money.js';
import { purchaseWebhookPayload } from '../../src/modules/purchases/purchase-views.js';
import { webhookPayload } from '../../src/modules/deposits/deposit-views.js';

/** The exact decimal text of an amount of mills, in JSON's shortest form (no trailing zeros). */
function exact(mills: number): string {
  const b = BigInt(mills);
  const int = b / 1000n;
  const frac = (b % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
  return frac ? `${int}.${frac}` : `${int}`;
}
const printed = (mills: number) => JSON.stringify(millsToUsd(mills));

describe('the bound', () => {
  it('is 2^43 USD', () => {
    expect(MAX_AMOUNT_MILLS).toBe(2 ** 43 * 1000);
    expect(exact(MAX_AMOUNT_MILLS)).toBe(MAX_AMOUNT_USD);
  });

  it('every amount in the last 500 000 mills up to it, and around every power of two below it, prints exactly', () => {
    for (let n = MAX_AMOUNT_MILLS - 500_000; n <= MAX_AMOUNT_MILLS; n++) {
      if (printed(n) !== exact(n)) expect(printed(n), `${n} mills`).toBe(exact(n));
    }
    for (let k = 20; k <= 43; k++) {
      const edge = 2 ** k * 1000;
      for (let n = Math.max(0, edge - 5000); n <= Math.min(MAX_AMOUNT_MILLS, edge + 5000); n++) {
        if (printed(n) !== exact(n)) expect(printed(n), `${n} mills`).toBe(exact(n));
      }
    }
    // and a spread of amounts of 16 digits
    let x = 0x2545f491;
    for (let i = 0; i < 200_000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const n = MAX_AMOUNT_MILLS - (x * 2048 + (i % 2048));
      if (printed(n) !== exact(n)) expect(printed(n), `${n} mills`).toBe(exact(n));
    }
  });

  it('one mill past it does not print exactly (so the bound is the largest), nor the reported balance', () => {
    expect(printed(MAX_AMOUNT_MILLS + 1)).not.toBe(exact(MAX_AMOUNT_MILLS + 1));
    expect(printed(9000000000301501)).not.toBe('9000000000301.501');
  });

  it('entry amounts past it are refused naming the limit (wire numbers and typed text)', () => {
    expect(usdToMills(8796093022208)).toBe(MAX_AMOUNT_MILLS);
    expect(usdTextToMills('8796093022208.000')).toBe(MAX_AMOUNT_MILLS);
    expect(usdTextToMills('8796093022207.999')).toBe(MAX_AMOUNT_MILLS - 1);
    for (const refused of [() => usdTextToMills('8796093022208.001'), () => usdTextToMills('9000000000301.501'), () => usdToMills(8796093022209)]) {
      expect(refused).toThrow(MoneyError);
      expect(refused).toThrow(`at most ${MAX_AMOUNT_USD} USD`);
    }
  });
});

describe('at the limit on the wire', () => {
  const state = cliGateway();

  it('a top-up that would pass it is refused (400, code max, naming it); at it and one mill below, every output prints the balance exactly', async () => {
    const { gw, cli } = state;
    const m = await gw.createMerchant({ name: 'Limit shop' });
    const adminPost = async (body: string) => {
      const res = await fetch(`${gw.url}/api/admin/merchants/${m.id}/top-ups`, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` } });
      return { status: res.status, body: (await res.json()) as any };
    };

    // The CLI refuses a single top-up past the limit, and credits one just below it.
    const tooBig = await cli('top-up', String(m.id), '8796093022208.001');
    expect(tooBig.code).not.toBe(0);
    expect(tooBig.err + tooBig.out).toContain(`at most ${MAX_AMOUNT_USD} USD`);
    const big = await cli('top-up', String(m.id), '8796093022206.999');
    expect(big.code, big.err).toBe(0);
    expect((await adminPost('{"amount": 1}')).status).toBe(201); // balance: 8796093022207.999
    const below = MAX_AMOUNT_MILLS - 1;

    // One mill below the limit: exact in every output.
    const balance = await fetch(`${gw.url}/api/v1/merchant/balance`, { headers: { 'x-api-key': m.api_key } });
    const balanceText = await balance.text();
    expect(balanceText).toContain(`"available":${exact(below)}`);
    expect(balanceText).toContain(`"total":${exact(below)}`);

    const ledger = await fetch(`${gw.url}/api/admin/merchants/${m.id}/ledger`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const ledgerText = await ledger.text();
    expect(ledgerText).toContain(`"available_after":${exact(below)}`);
    expect(ledgerText).toContain(`"available_delta":8796093022206.999`);

    const cliList = await cli('ledger', 'list', String(m.id));
    expect(cliList.code, cliList.err).toBe(0);
    expect(cliList.out).toContain(exact(below));
    expect(cliList.out).toContain('8796093022206.999');

    const owner = await userOf(gw, m.id, 'owner@limit.example');
    const csv = await owner.get('/dashboard/ledger.csv');
    expect(csv.status).toBe(200);
    expect(csv.body).toContain(`,${exact(below)},`);
    expect(csv.body).toContain(',8796093022206.999,');

    // One mill past: refused, nothing moved; the last mill to the limit is credited and printed.
    const past = await adminPost('{"amount": 0.002}');
    expect(past.status).toBe(400);
    expect(past.body.data[0]).toMatchObject({ field: 'amount', code: 'max' });
    expect(past.body.data[0].message).toContain(MAX_AMOUNT_USD);
    const atLimit = await adminPost('{"amount": 0.001}');
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.data.balance.total).toBe(MAX_AMOUNT_MILLS / 1000);
    expect((await adminPost('{"amount": 0.001}')).status).toBe(400);
    const stored = await sql<{ available: string }>`select available::text from balances where merchant_id = ${m.id}`.execute(gw.ctx.db);
    expect(stored.rows[0]!.available).toBe(String(MAX_AMOUNT_MILLS));

    // The database refuses a balance past the limit whoever writes it.
    await expect(sql`update balances set available = available + 1 where merchant_id = ${m.id}`.execute(gw.ctx.db)).rejects.toThrow(/balances_within_exact_range/);
  }, CLI_TEST_TIMEOUT_MS);

  it('webhook bodies carry an amount at the edge exactly, through the outbox column (jsonb) they are sent from', async () => {
    const { gw } = state;
    const at = new Date();
    const purchase = purchaseWebhookPayload({ status: 'completed', id: 1, updated_at: at, merchant_tx_id: 'p', listing_id: null, trade_offer_id: null, amount: MAX_AMOUNT_MILLS - 1, fail_reason: null } as never);
    const deposit = webhookPayload({ status: 'completed', id: 2, created_at: at, merchant_tx_id: 'd', platform_id: null, trade_offer_id: null, amount: MAX_AMOUNT_MILLS - 1, fail_reason: null } as never);
    for (const body of [purchase, deposit]) {
      const r = await sql<{ p: Record<string, unknown> }>`select ${JSON.stringify(body)}::jsonb as p`.execute(gw.ctx.db);
      expect(JSON.stringify(r.rows[0]!.p)).toContain(`"amount":${exact(MAX_AMOUNT_MILLS - 1)}`);
    }
  });
});
