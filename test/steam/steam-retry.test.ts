// Issue 20, point 4 and the poll: a deposit's send refused for now (429s, eresult 20) is retried
// with jittered backoff within DEPOSIT_TIMEOUT_MS before the deposit fails, and a failure after
// the deadline keeps its real cause (fail_cause); a late offer is seen by the poll even while
// another send of the same bot hangs, and even when it changes in the second of the poll cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';
import type { FakeOffer } from './fake-steam.js';

let w: SteamWorld;
let key: string;
let partnerSeq = 63_000_000;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 1, env: { STEAM_SEND_SETTLE_MS: '600000', DEPOSIT_TIMEOUT_MS: '5000' } }));
});
afterAll(async () => w?.stop());

const messageOf = (id: number) => `[gw:deposit:${id}] Deposit #${id}`;
const offersOf = (id: number): FakeOffer[] => [...w.fake.offers.values()].filter((o) => o.message === messageOf(id));
const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const sends = () => w.fake.requests.filter((r) => r.path === '/community/tradeoffer/new/send').length;

/** A user with one priced item and a create-deposit for it; answers the deposit as created. */
async function createDeposit(): Promise<{ id: number; status: string; partner: number; trade_offer_id: string | null; fail_reason?: string }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAME }] });
  const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `r-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: [String(partner * 10)] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...res.body.data, partner };
}

/** A deposit failed after an ambiguous send whose offer the platform does not show yet (a late offer to come). */
async function failedWithHiddenOffer(): Promise<{ id: number; offer: FakeOffer }> {
  w.fake.nextSendHidden = true;
  const d = await createDeposit();
  expect(d.status).toBe('pending');
  await w.gw.ctx.db.updateTable('steam_offers').set({ uncertain_since: new Date(Date.now() - 3_600_000) })
    .where('offer_kind', '=', 'deposit').where('record_id', '=', d.id).execute();
  expect(await w.gw.ctx.deposits.resolvePending(d.id)).toBe('done');
  expect((await status(d.id)).status).toBe('failed');
  return { id: d.id, offer: offersOf(d.id)[0] };
}

describe('deposit sends refused for now are retried within the deadline', () => {
  it('a burst of 429s on the send (more than one call\'s backoff absorbs): retried, the deposit goes active with one offer', async () => {
    const before = sends();
    w.fake.limit(/\/tradeoffer\/new\/send$/, 6); // one call tries 4 times: the deposit needs a second
    const d = await createDeposit();
    expect(d.status).toBe('active');
    expect(offersOf(d.id).map((o) => o.state)).toEqual([2]);
    expect(sends() - before).toBe(7);
  });

  it('eresult 20 (service unavailable) until the deadline: failed service_unavailable after several attempts, the real cause stored; no offer', async () => {
    const before = sends();
    const unavailable = { strError: 'There was an error sending your trade offer.  Please try again later. (20)' };
    w.fake.fail(/\/tradeoffer\/new\/send$/, 10_000, 500, unavailable);
    try {
      const d = await createDeposit();
      expect(d).toMatchObject({ status: 'failed', fail_reason: 'service_unavailable' });
      expect(sends() - before).toBeGreaterThan(2);
      expect(offersOf(d.id)).toEqual([]);
      const row = await w.gw.ctx.db.selectFrom('deposits').select(['fail_cause']).where('id', '=', d.id).executeTakeFirstOrThrow();
      expect(row.fail_cause).toMatch(/PlatformUnavailableError: .*\(\d+ attempts\)/);
      expect(JSON.stringify(await status(d.id))).not.toContain('fail_cause'); // never on the wire
    } finally {
      w.fake.clearFailures();
    }
  });
});

describe('the poll sees every late offer', () => {
  it('while another send of the same bot hangs, a late offer of a failed deposit is seen and withdrawn before the user can accept it', async () => {
    const late = await failedWithHiddenOffer();
    // Another deposit's send hangs (the platform made its offer, unseen, and answers after the call timeout).
    w.fake.nextSendHangMs = 4_500;
    const created = w.fake.offers.size;
    const hanging = createDeposit();
    await eventually(async () => w.fake.offers.size > created, 5_000, 20);
    w.fake.reveal();
    await w.platform.pollTick(); // while the other send still awaits its answer
    expect(late.offer.state).toBe(6);
    expect(() => w.fake.accept(late.offer.id)).toThrow(/not active/);
    const other = await hanging;
    expect(['pending', 'active']).toContain(other.status); // ambiguous: found by the poll or by the watchdog
    await w.gw.ctx.deposits.resolvePending(other.id);
    expect((await status(other.id)).status).toBe('active');
    expect((await status(late.id)).status).toBe('failed');
  });

  it('an offer revealed in the very second of the poll cursor (time_updated in whole seconds) is still seen: the user accepted it → the deposit follows', async () => {
    await w.platform.pollTick();
    const late = await failedWithHiddenOffer();
    const cursor = Number((w.platform.driverOf(w.bots[0].id)!.manager as any).pollData.offersSince);
    w.fake.accept(late.offer.id);
    w.fake.reveal();
    late.offer.updated = cursor; // the same second as the last change the poll saw
    await w.platform.pollTick();
    expect(await status(late.id)).toMatchObject({ status: 'hold', trade_offer_id: late.offer.id });
    await w.platform.pollTick(); // seen twice, applied once
    expect((await status(late.id)).status).toBe('hold');
    expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });

  it('a change the gateway failed to take (a database error) is reported again by the next poll', async () => {
    const d = await createDeposit();
    expect(d.status).toBe('active');
    const db = w.gw.ctx.db as any;
    const orig = db.updateTable.bind(db);
    let failed = 0;
    db.updateTable = (t: string) => {
      if (t === 'steam_offers' && failed === 0) {
        failed++;
        throw new Error('injected: the database is gone for a moment');
      }
      return orig(t);
    };
    try {
      w.fake.decline(d.trade_offer_id!);
      await w.platform.pollTick();
    } finally {
      db.updateTable = orig;
    }
    expect(failed).toBe(1);
    await w.platform.pollTick();
    expect(await status(d.id)).toMatchObject({ status: 'canceled', fail_reason: 'canceled_by_user' });
  });

  it('an open offer whose record no longer wants it (a confirmation that raced the record\'s failure) is canceled by the next poll', async () => {
    const d = await createDeposit();
    expect(d.status).toBe('active');
    // As if the record had failed while the poll confirmed its offer: the offer is out, the record closed.
    await w.gw.ctx.db.updateTable('deposits').set({ status: 'failed', fail_reason: 'service_unavailable' }).where('id', '=', d.id).execute();
    await w.platform.pollTick();
    expect(w.fake.offers.get(d.trade_offer_id!)!.state).toBe(6);
    expect(() => w.fake.accept(d.trade_offer_id!)).toThrow(/not active/);
  });
});
