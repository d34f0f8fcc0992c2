// A late offer the platform already shows (an eresult 16 send whose offer appeared later) is taken
// by its pending deposit in the poll that reports its acceptance — not after the next pending
// sweep: the poll's change makes the deposit ask for its offer first. Counted in polls, never in
// wall time; the pending watchdog is never run here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
let partnerSeq = 51_000_000;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

beforeAll(async () => {
  // A long settle window: the deposit must not fail while its offer may appear.
  ({ w, key } = await startSteamMerchantWorld({ bots: 1, env: { STEAM_SEND_SETTLE_MS: '600000' } }));
});
afterAll(async () => w?.stop());

const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data;
const offerOf = (id: number) => [...w.fake.offers.values()].find((o) => o.message.startsWith(`[gw:deposit:${id}]`));

/** A deposit whose send answers eresult 16 while the offer is made, unseen until reveal(). */
async function lateDeposit(): Promise<{ id: number; amount: number }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAME }] });
  const inv = await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  w.fake.nextSendHidden = true;
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `late-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: [String(partner * 10)] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('pending');
  return { id: res.body.data.id, amount: res.body.data.amount };
}

/** Polls until the deposit leaves `from`, at most `max`; answers how many polls it took. */
async function pollsUntilNot(id: number, from: string, max: number): Promise<number> {
  for (let n = 1; n <= max; n++) {
    await w.platform.pollTick();
    if ((await status(id)).status !== from) return n;
  }
  return Infinity;
}

describe('a known late offer', () => {
  it('appears, then is accepted: the deposit reaches hold in the first poll after the acceptance', async () => {
    const d = await lateDeposit();
    w.fake.reveal();
    await w.platform.pollTick(); // the poll sees the offer (Active) and adopts it for its deposit
    const row = await w.gw.ctx.db.selectFrom('steam_offers').select(['trade_offer_id']).where('offer_kind', '=', 'deposit').where('record_id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.trade_offer_id).toBe(offerOf(d.id)!.id);
    w.fake.accept(offerOf(d.id)!.id);
    expect(await pollsUntilNot(d.id, 'pending', 5)).toBe(1);
    expect(await status(d.id)).toMatchObject({ status: 'hold', trade_offer_id: offerOf(d.id)!.id });
    expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });

  it('accepted before the bot ever saw it: one poll takes it from pending to hold', async () => {
    const d = await lateDeposit();
    w.fake.accept(offerOf(d.id)!.id);
    w.fake.reveal();
    expect(await pollsUntilNot(d.id, 'pending', 5)).toBe(1);
    expect((await status(d.id)).status).toBe('hold');
    // Never sent twice.
    expect([...w.fake.offers.values()].filter((o) => o.message.startsWith(`[gw:deposit:${d.id}]`)).length).toBe(1);
  });
});
