// Offers the gateway never recorded are withdrawn (port cancelOffer): a deposit offer that the
// platform sends after DEPOSIT_TIMEOUT_MS (sandbox partner 90000013) — the deposit already ended
// failed/service_unavailable — and one that arrives after the deposit moved on. The sandbox keeps
// its deposit offers in sandbox_deposit_offers; canceled_at is the platform-side withdrawal.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { activeDeposit, balance, inventory, nextPartner, nextTx, TOKEN } from './deposit-helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };

beforeAll(async () => {
  gw = await startTestGateway({ QUOTE_TTL_SECONDS: '60', DEPOSIT_TIMEOUT_MS: '300' });
  m = await gw.createMerchant({ name: 'Late offers' });
});
afterAll(async () => gw?.stop());

type OfferRow = { trade_offer_id: string; deposit_id: number; canceled_at: Date | null };
const offersOf = async (depositId: number) =>
  (await sql<OfferRow>`select trade_offer_id, deposit_id::int as deposit_id, canceled_at from sandbox_deposit_offers where deposit_id = ${depositId} order by trade_offer_id`.execute(gw.ctx.db)).rows;

describe('a deposit offer the platform answers late (partner 90000013)', () => {
  it('the deposit ends failed/service_unavailable (HTTP 200); the late offer is then canceled', async () => {
    const before = await balance(gw, m.api_key);
    const inv = await inventory(gw, m.api_key, 90000013);
    const tx = nextTx('late');
    const t0 = Date.now();
    const res = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: tx, game: 'csgo', partner: 90000013, token: TOKEN, asset_ids: [inv.items[0].id] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ merchant_tx_id: tx, status: 'failed', fail_reason: 'service_unavailable', trade_offer_id: null, bot_name: null });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    const id = res.body.data.id as number;
    // shortly after: the sandbox sent the offer, and the gateway withdrew it
    const rows = await eventually(async () => {
      const r = await offersOf(id);
      return r.length === 1 && r[0].canceled_at ? r : undefined;
    });
    expect(rows[0].trade_offer_id).toMatch(/^\d+$/);
    // the deposit is untouched: still failed, no offer recorded, no money moved
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${id}`);
    expect(st.body.data).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable', trade_offer_id: null });
    expect(await balance(gw, m.api_key)).toEqual(before);
    // the user accepting the (withdrawn) offer credits nothing
    const acc = await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${id}/accept`);
    expect(acc.status).not.toBe(200);
    expect(await balance(gw, m.api_key)).toEqual(before);
  });
});

describe('an offer that arrives after the deposit moved on', () => {
  it('the watchdog failed the deposit while the offer was on its way: offer_sent loses, the offer is canceled', async () => {
    const p = gw.ctx.platform;
    const orig = p.sendDepositOffer;
    p.sendDepositOffer = async (req) => {
      const offer = await orig.call(p, req);
      await gw.ctx.deposits.tryTransition(req.depositId, 'fail', { failReason: 'service_unavailable' });
      return offer;
    };
    try {
      const partner = nextPartner();
      const inv = await inventory(gw, m.api_key, partner);
      const res = await gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: nextTx('lost'), game: 'csgo', partner, token: TOKEN, asset_ids: [inv.items[0].id] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable', trade_offer_id: null });
      const rows = await eventually(async () => {
        const r = await offersOf(res.body.data.id);
        return r.length === 1 && r[0].canceled_at ? r : undefined;
      });
      expect(rows).toHaveLength(1);
    } finally {
      p.sendDepositOffer = orig;
    }
  });
});

describe('recorded offers stay; cancelOffer is idempotent', () => {
  it('an active deposit keeps its offer (recorded in the sandbox, not canceled); the cancel job leaves it alone', async () => {
    const d = await activeDeposit(gw, m.api_key);
    expect(await offersOf(d.id)).toEqual([{ trade_offer_id: d.trade_offer_id, deposit_id: d.id, canceled_at: null }]);
    expect(await gw.ctx.deposits.cancelUnrecordedOffer(d.id, d.trade_offer_id)).toBe('done');
    expect((await offersOf(d.id))[0].canceled_at).toBeNull();
  });

  it('canceling twice keeps the first cancel; an offer the sandbox never sent is refused', async () => {
    const d = await activeDeposit(gw, m.api_key);
    const req = { offer: 'deposit' as const, recordId: d.id, tradeOfferId: d.trade_offer_id };
    await gw.ctx.platform.cancelOffer(req);
    const first = (await offersOf(d.id))[0].canceled_at;
    expect(first).toBeInstanceOf(Date);
    await gw.ctx.platform.cancelOffer(req);
    expect((await offersOf(d.id))[0].canceled_at).toEqual(first);
    await expect(gw.ctx.platform.cancelOffer({ ...req, recordId: d.id + 100_000 })).rejects.toThrow(/no deposit offer/);
  });

  it('the books balance', async () => {
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });
});
