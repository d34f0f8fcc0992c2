// Issue 20 leftover: an offer change the gateway refuses (its record cannot take it) is settled —
// never offered again — but when items may have moved the operator is told: an audit entry
// (offer_change_refused), the metric gateway_steam_refused_changes_total{kind} and an error line
// naming bot, record and trade offer. A change the record already took stays quiet.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN } from '../helpers.js';
import { startSteamMerchantWorld, type SteamWorld } from './steam-helpers.js';
import type { FakeOffer } from './fake-steam.js';

let w: SteamWorld;
let key: string;
let merchantId: number;
let partnerSeq = 72_000_000;
const TOKEN = 'tok12345';
const NAME = 'AK-47 | Redline (Minimal Wear)';

beforeAll(async () => {
  ({ w, key, merchantId } = await startSteamMerchantWorld({ bots: 1 }));
});
afterAll(async () => w?.stop());

/** A deposit of one priced item, its offer sent (active). */
async function deposit(): Promise<{ id: number; offer: FakeOffer }> {
  const partner = ++partnerSeq;
  w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: String(partner * 10), classid: '1', name: NAME }] });
  expect((await w.gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: TOKEN })).status).toBe(200);
  const res = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `rc-${partner}`, game: 'csgo', partner, token: TOKEN, asset_ids: [String(partner * 10)] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('active');
  return { id: res.body.data.id, offer: w.fake.offers.get(res.body.data.trade_offer_id)! };
}

const status = async (id: number) => (await w.gw.merchant(key, 'GET', `/deposit/status?id=${id}`)).body.data.status as string;
const refusals = async () =>
  (await sql<{ merchant_id: number | null; detail: any }>`select merchant_id, detail from audit_log where action = 'offer_change_refused' order by id`.execute(w.gw.ctx.db)).rows.map((r) => ({
    merchant_id: r.merchant_id,
    ...(typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail),
  }));
const offerRow = async (tradeOfferId: string) =>
  (await sql<{ state: number; reported_state: number | null }>`select state, reported_state from steam_offers where trade_offer_id = ${tradeOfferId}`.execute(w.gw.ctx.db)).rows[0];
const metric = async () => {
  const text = await (await fetch(`${w.gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  return Number(/^gateway_steam_refused_changes_total\{kind="not_found"\} (\d+)$/m.exec(text)?.[1] ?? 0);
};
/** The deposit records another offer than the one the bot sent (a second offer for the same record). */
const recordAnotherOffer = (id: number) => sql`update deposits set trade_offer_id = '9990001' where id = ${id}`.execute(w.gw.ctx.db);

describe('refused offer changes', () => {
  it('an accepted offer its deposit does not hold as its own: audited, counted, logged as an error once, and never offered again', async () => {
    const errors = vi.spyOn(w.gw.ctx.log, 'error');
    const d = await deposit();
    await recordAnotherOffer(d.id);
    w.fake.accept(d.offer.id); // the items moved to the bot
    await w.platform.pollTick();

    expect(await status(d.id)).toBe('active'); // the record could not take it
    const row = await offerRow(d.offer.id);
    expect(row.reported_state).toBe(row.state); // settled: not handed over again
    expect(await refusals()).toEqual([
      expect.objectContaining({ merchant_id: merchantId, offer: 'deposit', record_id: d.id, trade_offer_id: d.offer.id, change: 'accepted', refusal: 'not_found', bot_id: w.bots[0].id }),
    ]);
    expect(w.platform.refusedChanges).toEqual({ not_found: 1 });
    expect(await metric()).toBe(1);
    const logged = errors.mock.calls.filter(([at]) => (at as any)?.tradeOfferId === d.offer.id);
    expect(logged).toEqual([[expect.objectContaining({ botId: w.bots[0].id, offer: 'deposit', recordId: d.id, tradeOfferId: d.offer.id, refusal: 'not_found' }), expect.stringMatching(/refused an offer change/)]]);

    // Later polls do not report it again: one audit entry, one count.
    await w.platform.pollTick();
    await w.platform.pollTick();
    expect(await refusals()).toHaveLength(1);
    expect(await metric()).toBe(1);
    errors.mockRestore();
  });

  it('a change the deposit already took (reported again after a crash before it was marked) stays quiet', async () => {
    const d = await deposit();
    w.fake.accept(d.offer.id);
    await w.platform.pollTick();
    expect(await status(d.id)).toBe('hold');
    const taken = await offerRow(d.offer.id);
    expect(taken.reported_state).toBe(taken.state);
    // As if the instance died between the handler's commit and marking the change reported.
    await sql`update steam_offers set reported_state = 2 where trade_offer_id = ${d.offer.id}`.execute(w.gw.ctx.db);
    const before = (await refusals()).length;
    const infos = vi.spyOn(w.gw.ctx.log, 'info');
    await w.platform.pollTick();
    const row = await offerRow(d.offer.id);
    expect(row.reported_state).toBe(row.state); // handed over again, refused (hold), settled
    expect(await status(d.id)).toBe('hold');
    expect(infos.mock.calls.filter(([at]) => (at as any)?.tradeOfferId === d.offer.id)).toEqual([
      [expect.objectContaining({ refusal: 'invalid_transition', message: 'cannot accept from status hold' }), expect.stringMatching(/already taken/)],
    ]);
    infos.mockRestore();
    expect(await refusals()).toHaveLength(before);
    expect(await metric()).toBe(1); // only the first test's
  });

  it('a declined offer that is not its deposit\'s own moved nothing: settled quietly', async () => {
    const d = await deposit();
    await recordAnotherOffer(d.id);
    const before = (await refusals()).length;
    w.fake.decline(d.offer.id);
    await w.platform.pollTick();
    const row = await offerRow(d.offer.id);
    expect(row.reported_state).toBe(row.state);
    expect(await status(d.id)).toBe('active');
    expect(await refusals()).toHaveLength(before);
    expect(w.platform.refusedChanges).toEqual({ not_found: 1 });
  });
});
