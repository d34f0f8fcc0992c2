// Offer changes flow through the platform port: ctx.platform.simulate reports a change, the
// handler wired in context.ts applies it as the deposit's / purchase's transition, and answers the
// record. Unknown records, foreign offers and wrong statuses are reported as 404 / 409 AppErrors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { AppError, httpStatusOf } from '../../src/http/errors.js';
import type { OfferChange } from '../../src/platform/port.js';
import { activeDeposit, balance, expectBooksBalance, webhookEvents } from './deposit-helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
beforeAll(async () => {
  gw = await startTestGateway({ HOLD_SECONDS_CSGO: '604800', HOLD_SECONDS_DOTA2: '0' });
  m = await gw.createMerchant({ name: 'Port', webhook_url: 'http://127.0.0.1:9/hooks' });
  await gw.topUp(m.id, 10_000);
});
afterAll(async () => gw?.stop());

const simulate = (change: OfferChange) => gw.ctx.platform.simulate!(change) as Promise<any>;
const depositRow = (id: number) => gw.ctx.db.selectFrom('deposits').select(['status', 'fail_reason', 'hold_end_date']).where('id', '=', id).executeTakeFirstOrThrow();
const purchaseRow = (id: number) => gw.ctx.db.selectFrom('purchases').select(['status', 'fail_reason', 'hold_end_date', 'trade_offer_id']).where('id', '=', id).executeTakeFirstOrThrow();

const used = new Set<string>();
async function activePurchase(game = 'csgo') {
  const items = (await gw.merchant(m.api_key, 'GET', `/purchase/available?game=${game}&full=true`)).body.data.items as Array<{ id: string; price: number }>;
  const l = items.find((i) => !used.has(i.id))!;
  used.add(l.id);
  const res = await gw.merchant(m.api_key, 'POST', '/purchase', { partner: 33445566, token: 'portport', game, asset_id: l.id });
  expect(res.body.data.status).toBe('pending');
  const id = res.body.data.id as number;
  await eventually(async () => (await purchaseRow(id)).status === 'active');
  return { id, l };
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('the sandbox platform reports offer changes through the port', () => {
  it('only the sandbox adapter simulates; the port carries the subscription', () => {
    expect(gw.ctx.platform.kind).toBe('sandbox');
    expect(typeof gw.ctx.platform.onOfferChange).toBe('function');
    expect(typeof gw.ctx.platform.simulate).toBe('function');
  });

  it('deposit: accepted with a hold → hold, hold_ended → completed; money moves like the helpers', async () => {
    const before = await balance(gw, m.api_key);
    const d = await activeDeposit(gw, m.api_key);
    const holdEndsAt = new Date(Date.now() + 3 * 86_400_000);
    const held = await simulate({ offer: 'deposit', recordId: d.id, tradeOfferId: d.trade_offer_id, change: 'accepted', hold: true, holdEndsAt });
    expect(held).toMatchObject({ id: d.id, status: 'hold' });
    const row = await depositRow(d.id);
    expect(row.status).toBe('hold');
    expect(new Date(row.hold_end_date!).getTime()).toBe(holdEndsAt.getTime());
    expect((await balance(gw, m.api_key)).hold).toBeCloseTo(before.hold + d.amount, 3);

    const done = await simulate({ offer: 'deposit', recordId: d.id, change: 'hold_ended' });
    expect(done).toMatchObject({ id: d.id, status: 'completed' });
    expect((await depositRow(d.id)).status).toBe('completed');
    const after = await balance(gw, m.api_key);
    expect(after.available).toBeCloseTo(before.available + d.amount, 3);
    expect(after.hold).toBeCloseTo(before.hold, 3);
    expect((await webhookEvents(gw, d.id)).map((e) => e.status)).toEqual(['hold', 'completed']);
  });

  it('deposit: accepted without a hold → completed; declined, expired, canceled, reverted by the gateway', async () => {
    const a = await activeDeposit(gw, m.api_key);
    expect(await simulate({ offer: 'deposit', recordId: a.id, change: 'accepted', hold: false })).toMatchObject({ status: 'completed' });
    const cases: Array<[OfferChange['change'], string]> = [
      ['declined', 'canceled_by_user'],
      ['expired', 'canceled_by_gateway'],
      ['canceled', 'canceled_by_gateway'],
    ];
    for (const [change, reason] of cases) {
      const d = await activeDeposit(gw, m.api_key);
      expect(await simulate({ offer: 'deposit', recordId: d.id, change })).toMatchObject({ status: 'canceled', fail_reason: reason });
      expect(await depositRow(d.id)).toMatchObject({ status: 'canceled', fail_reason: reason });
    }
    const r = await activeDeposit(gw, m.api_key);
    await simulate({ offer: 'deposit', recordId: r.id, change: 'accepted' }); // csgo: the game's hold
    expect(await simulate({ offer: 'deposit', recordId: r.id, change: 'reverted', by: 'gateway' })).toMatchObject({ status: 'reverted', fail_reason: 'gateway_reverted' });
    await expectBooksBalance(gw);
  });

  it('purchase: accepted (game hold) → hold → hold_ended → completed; declined → canceled; reverted', async () => {
    const { id, l } = await activePurchase('csgo');
    const { trade_offer_id } = await purchaseRow(id);
    const held = await simulate({ offer: 'purchase', recordId: id, tradeOfferId: trade_offer_id!, change: 'accepted' });
    expect(held).toMatchObject({ id, status: 'hold', hold_end_date: expect.any(String) });
    expect(Date.parse(held.hold_end_date) - Date.now()).toBeGreaterThan(604800_000 - 60_000);
    expect(await simulate({ offer: 'purchase', recordId: id, change: 'hold_ended' })).toMatchObject({ status: 'completed' });
    expect((await purchaseRow(id)).status).toBe('completed');
    expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l.id).executeTakeFirstOrThrow()).status).toBe('sold');

    const before = (await balance(gw, m.api_key)).available;
    const dec = await activePurchase('csgo');
    expect(await simulate({ offer: 'purchase', recordId: dec.id, change: 'declined' })).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_user' });
    const can = await activePurchase('csgo');
    expect(await simulate({ offer: 'purchase', recordId: can.id, change: 'canceled' })).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_gateway' });
    const exp = await activePurchase('csgo');
    expect(await simulate({ offer: 'purchase', recordId: exp.id, change: 'expired' })).toMatchObject({ status: 'canceled', fail_reason: 'buyer_too_slow' });
    const rev = await activePurchase('csgo');
    await simulate({ offer: 'purchase', recordId: rev.id, change: 'accepted', hold: true });
    expect(await simulate({ offer: 'purchase', recordId: rev.id, change: 'reverted' })).toMatchObject({ status: 'reverted', fail_reason: 'user_reverted' });
    expect((await balance(gw, m.api_key)).available).toBeCloseTo(before, 3);

    const dota = await activePurchase('dota2');
    expect(await simulate({ offer: 'purchase', recordId: dota.id, change: 'accepted' })).toMatchObject({ status: 'completed' });
    await expectBooksBalance(gw);
  });

  it('unknown record, another trade offer, another merchant → 404; a wrong status → 409; nothing changes', async () => {
    for (const offer of ['deposit', 'purchase'] as const) {
      const e = await rejection(simulate({ offer, recordId: 999_999_999, change: 'accepted' }));
      expect(httpStatusOf(e)).toBe(404);
    }
    const other = await gw.createMerchant({ name: 'Other' });
    const d = await activeDeposit(gw, m.api_key);
    expect(httpStatusOf(await rejection(simulate({ offer: 'deposit', recordId: d.id, tradeOfferId: '1', change: 'declined' })))).toBe(404);
    expect(httpStatusOf(await rejection(simulate({ offer: 'deposit', recordId: d.id, change: 'declined', merchantId: other.id })))).toBe(404);
    const dep409 = await rejection(simulate({ offer: 'deposit', recordId: d.id, change: 'hold_ended' }));
    expect(httpStatusOf(dep409)).toBe(409);
    expect(dep409.message).toBe('invalid transition');
    expect(dep409.data).toEqual([{ field: 'status', code: 'invalid_transition', message: 'cannot release from status active' }]);
    expect((await depositRow(d.id)).status).toBe('active');

    const p = await activePurchase('csgo');
    expect(httpStatusOf(await rejection(simulate({ offer: 'purchase', recordId: p.id, tradeOfferId: '1', change: 'declined' })))).toBe(404);
    expect(httpStatusOf(await rejection(simulate({ offer: 'purchase', recordId: p.id, change: 'declined', merchantId: other.id })))).toBe(404);
    const pur409 = await rejection(simulate({ offer: 'purchase', recordId: p.id, change: 'reverted' }));
    expect(httpStatusOf(pur409)).toBe(409);
    expect(pur409.message).toBe('invalid transition');
    expect((await purchaseRow(p.id)).status).toBe('active');
    // scoped to the right merchant it applies
    expect(await simulate({ offer: 'purchase', recordId: p.id, change: 'declined', merchantId: m.id })).toMatchObject({ status: 'canceled' });
  });
});

describe('sandbox helper cancel (deposit)', () => {
  it('cancel → canceled canceled_by_gateway, nothing credited; again → 409; another merchant → 404', async () => {
    const before = await balance(gw, m.api_key);
    const d = await activeDeposit(gw, m.api_key);
    const other = await gw.createMerchant({ name: 'Other 2' });
    expect((await gw.merchant(other.api_key, 'POST', `/sandbox/deposit/${d.id}/cancel`)).status).toBe(404);
    const res = await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: d.id, status: 'canceled', fail_reason: 'canceled_by_gateway' });
    expect(await balance(gw, m.api_key)).toEqual(before);
    const again = await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.data[0].message).toBe('cannot cancel from status canceled');
    expect((await webhookEvents(gw, d.id)).map((e) => e.status)).toEqual(['canceled']);
  });
});

describe('partner 90000011 (trade link reset after the check) on a deposit', () => {
  it('the inventory loads, the offer is refused: HTTP 200 failed service_unavailable', async () => {
    const inv = await gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner: 90000011, token: 'abcdefgh' });
    expect(inv.status).toBe(200);
    const res = await gw.merchant(m.api_key, 'POST', '/create-deposit', {
      merchant_tx_id: `revoked-${Date.now()}`,
      game: 'csgo',
      partner: 90000011,
      token: 'abcdefgh',
      asset_ids: [inv.body.data.items[0].id],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
  });
});
