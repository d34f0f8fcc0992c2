// An ambiguous send's late offer that the user accepted before the gateway looked it up (issue 20,
// found by the randomized run, seed 1): the deposit's watchdog finds the offer already accepted.
// The deposit must follow the trade (hold, credited) and then its reversal (reverted) — it was left
// `active` because the found offer's state counted as reported, and without its trade id no
// reversal could be matched to it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';
import type { FakeOffer } from './fake-steam.js';

let w: SteamWorld;
let key: string;
let partnerSeq = 64_500_000;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

beforeAll(async () => {
  ({ w, key } = await startSteamMerchantWorld({ bots: 2, env: { STEAM_SEND_SETTLE_MS: '600000', WEBHOOK_RETRY_SCHEDULE: '3600' }, topUp: 1000 }));
});
afterAll(async () => w?.stop());

const offerOf = (id: number): FakeOffer | undefined => [...w.fake.offers.values()].find((o) => o.message === `[gw:deposit:${id}] Deposit #${id}`);
const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const balance = async () => (await w.gw.merchant(key, 'GET', '/balance')).body.data as { available: number; hold: number };

/** A deposit whose send was ambiguous (the offer made but hidden from the bots' API): pending. */
async function ambiguousDeposit(): Promise<{ id: number; amount: number }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAME }] });
  expect((await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN })).status).toBe(200);
  w.fake.nextSendHidden = true;
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `fa-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: [String(partner * 10)] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('pending');
  return res.body.data;
}

it('the watchdog finds the late offer already accepted: the deposit follows it to hold (credited), then its reversal to reverted', async () => {
  const before = await balance();
  const d = await ambiguousDeposit();
  const offer = offerOf(d.id)!;
  w.fake.accept(offer.id); // in the user's client, before the bots' API lists it
  w.fake.reveal();
  // The watchdog looks first (the bot's poll has not seen the offer yet): the deposit takes it.
  expect(await w.gw.ctx.deposits.resolvePending(d.id)).toBe('done');
  await w.platform.pollTick();
  expect(await status(d.id)).toMatchObject({ status: 'hold', trade_offer_id: offer.id });
  expect((await balance()).hold).toBeCloseTo(before.hold + d.amount, 2);

  w.fake.reverse(offer.id);
  await w.platform.historyTick();
  expect((await status(d.id)).status).toBe('reverted');
  expect(await balance()).toEqual(before);
  expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);
});

it('one past the edge: the late offer found still active reports nothing until the user acts (declined → canceled, nothing credited)', async () => {
  const before = await balance();
  const d = await ambiguousDeposit();
  const offer = offerOf(d.id)!;
  w.fake.reveal();
  expect(await w.gw.ctx.deposits.resolvePending(d.id)).toBe('done');
  await w.platform.pollTick();
  expect(await status(d.id)).toMatchObject({ status: 'active', trade_offer_id: offer.id });
  w.fake.decline(offer.id);
  await w.platform.pollTick();
  expect((await status(d.id)).status).toBe('canceled');
  expect(await balance()).toEqual(before);
});
