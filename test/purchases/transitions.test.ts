import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
const USER = { partner: 22334455, token: 'tokenABC' };

beforeAll(async () => {
  gw = await startTestGateway({ HOLD_SECONDS_RUST: '3600', HOLD_SECONDS_CSGO: '604800' });
  // A webhook URL (never called by these assertions: we read the outbox rows).
  m = await gw.createMerchant({ name: 'Transitions', webhook_url: 'http://127.0.0.1:9/hook' });
  await gw.topUp(m.id, 100_000);
});
afterAll(async () => gw?.stop());

const used = new Set<string>();
async function listing(game: string) {
  const res = await gw.merchant(m.api_key, 'GET', `/purchase/available?game=${game}&full=true`);
  const l = (res.body.data.items as any[]).find((i) => !used.has(i.id));
  used.add(l.id);
  return l as { id: string; name: string; price: number };
}
const status = async (id: number) => (await gw.merchant(m.api_key, 'GET', `/purchase/status?id=${id}`)).body.data;
const act = (id: number, action: string, body?: unknown, key = m.api_key) => gw.merchant(key, 'POST', `/sandbox/purchase/${id}/${action}`, body);
const available = async () => (await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available;
const isLive = async (game: string, id: string) =>
  ((await gw.merchant(m.api_key, 'GET', `/purchase/available?game=${game}&full=true`)).body.data.items as any[]).some((i) => i.id === id);

async function activePurchase(game = 'csgo') {
  const l = await listing(game);
  const res = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game, asset_id: l.id, merchant_tx_id: `tx-${l.id.slice(0, 20)}` });
  expect(res.body.data.status).toBe('pending');
  await eventually(async () => (await status(res.body.data.id)).status === 'active');
  return { p: res.body.data, l };
}
async function webhooks(id: number) {
  return gw.ctx.db.selectFrom('webhook_events').select(['status', 'payload']).where('kind', '=', 'purchase').where('record_id', '=', id).orderBy('id').execute();
}

describe('purchase state machine through the sandbox helpers', () => {
  it('csgo: accept → hold (hold_end_date) → release → completed; hold_end_date kept; listing sold for good', async () => {
    const { p, l } = await activePurchase('csgo');
    const before = await available();
    const hold = await act(p.id, 'accept');
    expect(hold.status).toBe(200);
    expect(hold.body.data.status).toBe('hold');
    const end = Date.parse(hold.body.data.hold_end_date);
    expect(end - Date.now()).toBeGreaterThan(604800_000 - 60_000);
    const done = await act(p.id, 'release');
    expect(done.body.data.status).toBe('completed');
    expect(done.body.data.hold_end_date).toBe(hold.body.data.hold_end_date);
    expect(done.body.data).not.toHaveProperty('fail_reason');
    expect(await available()).toBe(before);
    expect(await isLive('csgo', l.id)).toBe(false);
    const row = await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('sold');

    const hooks = await webhooks(p.id);
    expect(hooks.map((h) => h.status)).toEqual(['active', 'hold', 'completed']);
    const body = hooks[2].payload as any;
    expect(body).toEqual({
      status: 'completed',
      purchase_id: p.id,
      trade_date: expect.stringMatching(/Z$/),
      merchant_tx_id: p.merchant_tx_id,
      asset_id: l.id,
      offer_id: expect.any(String),
      amount: l.price,
      amount_currency: 'usd',
    });
    expect(body).not.toHaveProperty('sign');
  });

  it('accept {hold:false} → completed at once', async () => {
    const { p } = await activePurchase('csgo');
    const res = await act(p.id, 'accept', { hold: false });
    expect(res.body.data.status).toBe('completed');
    expect(res.body.data).not.toHaveProperty('hold_end_date');
  });

  it('dota2 and tf2 complete without a hold; rust holds (HOLD_SECONDS_RUST)', async () => {
    for (const game of ['dota2', 'tf2']) {
      const { p } = await activePurchase(game);
      expect((await act(p.id, 'accept')).body.data.status).toBe('completed');
    }
    const { p } = await activePurchase('rust');
    const r = await act(p.id, 'accept');
    expect(r.body.data.status).toBe('hold');
    expect(Date.parse(r.body.data.hold_end_date) - Date.now()).toBeGreaterThan(3500_000);
  });

  it('decline → canceled canceled_by_user: full amount back, listing back on sale', async () => {
    const before = await available();
    const { p, l } = await activePurchase('csgo');
    expect(await available()).toBeCloseTo(before - l.price, 6);
    const res = await act(p.id, 'decline');
    expect(res.body.data).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_user' });
    expect(await available()).toBe(before);
    expect(await isLive('csgo', l.id)).toBe(true);
    const hooks = await webhooks(p.id);
    expect(hooks.map((h) => h.status)).toEqual(['active', 'canceled']);
    expect(hooks[1].payload).not.toHaveProperty('fail_reason'); // only when failed (6.2)
  });

  it('expire → canceled buyer_too_slow', async () => {
    const before = await available();
    const { p } = await activePurchase('csgo');
    const res = await act(p.id, 'expire');
    expect(res.body.data).toMatchObject({ status: 'canceled', fail_reason: 'buyer_too_slow' });
    expect(await available()).toBe(before);
  });

  it('revert {by:user|gateway} during hold → reverted with the reason, amount back, listing back', async () => {
    for (const [by, reason] of [['user', 'user_reverted'], ['gateway', 'gateway_reverted']]) {
      const before = await available();
      const { p, l } = await activePurchase('csgo');
      const hold = await act(p.id, 'accept');
      const res = await act(p.id, 'revert', { by });
      expect(res.body.data).toMatchObject({ status: 'reverted', fail_reason: reason, hold_end_date: hold.body.data.hold_end_date });
      expect(await available()).toBe(before);
      expect(await isLive('csgo', l.id)).toBe(true);
    }
  });

  it('illegal transitions → 409 invalid transition, nothing changes', async () => {
    const { p } = await activePurchase('csgo');
    for (const action of ['release', 'revert']) {
      const res = await act(p.id, action);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe('invalid transition');
      // the message names the helper action, as for deposits
      expect(res.body.data).toEqual([{ field: 'status', code: 'invalid_transition', message: `cannot ${action} from status active` }]);
    }
    await act(p.id, 'accept', { hold: false });
    for (const action of ['accept', 'decline', 'expire', 'cancel', 'release', 'revert']) {
      const res = await act(p.id, action);
      expect(res.status).toBe(409);
      expect(res.body.data[0].message).toBe(`cannot ${action} from status completed`);
    }
    expect((await status(p.id)).status).toBe('completed');
    // a pending purchase cannot be accepted yet; a failed one never
    const failed = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: 'eeee' });
    expect((await act(failed.body.data.id, 'accept')).status).toBe(409);
  });

  it('helpers: 404 for an unknown or another merchant purchase, 400 for a bad body or action', async () => {
    const { p } = await activePurchase('csgo');
    const other = await gw.createMerchant({ name: 'Other' });
    expect((await act(p.id, 'accept', undefined, other.api_key)).status).toBe(404);
    expect((await act(99999999, 'accept')).status).toBe(404);
    expect((await act(p.id, 'revert', { by: 'nobody' })).status).toBe(400);
    expect((await act(p.id, 'accept', { hold: 'yes' })).status).toBe(400);
    expect((await act(p.id, 'explode')).status).toBe(400);
    expect((await status(p.id)).status).toBe('active');
  });

  it('a failed purchase sends a failed webhook with fail_reason', async () => {
    const res = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: 'dddd', merchant_tx_id: 'wh-failed' });
    const hooks = await webhooks(res.body.data.id);
    expect(hooks.map((h) => h.status)).toEqual(['failed']);
    expect(hooks[0].payload).toMatchObject({ status: 'failed', fail_reason: 'item_not_available', merchant_tx_id: 'wh-failed', amount: 0, amount_currency: 'usd' });
    expect(hooks[0].payload).not.toHaveProperty('asset_id');
  });

  it('the books balance', async () => {
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });
});

describe('transitions by time', () => {
  let t: TestGateway;
  let k: { id: number; api_key: string };
  beforeAll(async () => {
    t = await startTestGateway({ OFFER_TTL_SECONDS: '3', HOLD_SECONDS_CSGO: '1' });
    k = await t.createMerchant({ name: 'Timed' });
    await t.topUp(k.id, 10_000);
  });
  afterAll(async () => t?.stop());

  async function buyActive() {
    const items = (await t.merchant(k.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as any[];
    const l = items[Math.floor(Math.random() * items.length)];
    const res = await t.merchant(k.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id });
    return res.body.data.id as number;
  }
  const st = async (id: number) => (await t.merchant(k.api_key, 'GET', `/purchase/status?id=${id}`)).body.data;

  it('an offer not accepted within OFFER_TTL_SECONDS → canceled buyer_too_slow, amount back', async () => {
    const before = (await t.merchant(k.api_key, 'GET', '/balance')).body.data.available;
    const id = await buyActive();
    const p = await eventually(async () => ((await st(id)).status === 'canceled' ? st(id) : undefined), 20_000);
    expect(p.fail_reason).toBe('buyer_too_slow');
    expect((await t.merchant(k.api_key, 'GET', '/balance')).body.data.available).toBe(before);
  });

  it('a hold ends by itself after the game hold → completed', async () => {
    const id = await buyActive();
    await eventually(async () => (await st(id)).status === 'active');
    const r = await t.merchant(k.api_key, 'POST', `/sandbox/purchase/${id}/accept`);
    expect(r.body.data.status).toBe('hold');
    const p = await eventually(async () => ((await st(id)).status === 'completed' ? st(id) : undefined), 20_000);
    expect(p.hold_end_date).toBe(r.body.data.hold_end_date);
  });
});
