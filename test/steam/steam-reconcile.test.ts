// Reconciliation against the platform on PLATFORM=steam (issue 20, point 7), through the stand-in
// platform: the bots' trade history (GetTradeHistory, reversals) and sent offers are read through
// the real libraries and compared with the records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
const TOKEN = 'tok12345';
const WINDOW = 3600;

const run = async () => {
  const r = await w.gw.admin('POST', '/reconciliation/run');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data.read_errors).toEqual([]);
  return r.body.data as { total: number; discrepancies: any[] };
};

beforeAll(async () => {
  offline();
  w = await startSteamWorld({ bots: 1, env: { HOLD_SECONDS_RUST: '0', RECONCILE_WINDOW_SECONDS: String(WINDOW) } });
  await w.platform.leaseTick();
  await eventually(async () => w.platform.driverOf(w.bots[0].id)?.signedIn, 15_000);
  const m = await w.gw.createMerchant();
  key = m.api_key;
});
afterAll(async () => w?.stop());

describe('reconciliation on steam', () => {
  it('a completed deposit agrees with its trade; reversed on the platform while the gateway has not read it, it is reported', async () => {
    const partner = 43_000_001;
    w.fake.addUser({ partner, token: TOKEN, items: [{ assetid: '8300000001', classid: '1', name: 'Alien Red', appid: 252490 }] });
    await w.gw.merchant(key, 'POST', '/inventory', { game: 'rust', partner, token: TOKEN });
    const dep = await w.gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'rec-steam-1', game: 'rust', partner, token: TOKEN, asset_ids: ['8300000001'] });
    expect(dep.body.data.status).toBe('active');
    w.fake.accept(dep.body.data.trade_offer_id);
    await eventually(async () => {
      await w.platform.pollTick();
      return (await w.gw.merchant(key, 'GET', `/deposit/status?id=${dep.body.data.id}`)).body.data.status === 'completed';
    }, 20_000, 200);
    expect((await run()).discrepancies).toEqual([]);
    w.fake.reverse(dep.body.data.trade_offer_id);
    const r = await run();
    expect(r.discrepancies.map((d) => [d.kind, d.record_kind, d.record_id])).toEqual([['reversed_trade_still_credited', 'deposit', dep.body.data.id]]);
  }, 60_000);

  it('a trade no offer of ours made: reported inside the window, not read one minute before it', async () => {
    const bot = w.bots[0].fake;
    const now = Math.floor(Date.now() / 1000);
    w.fake.trades.unshift(
      { tradeid: '6000000000000000002', bot: bot.steamId, steamid_other: '76561197960265729', time_init: now - WINDOW + 60, status: 3 },
    );
    w.fake.trades.push({ tradeid: '6000000000000000001', bot: bot.steamId, steamid_other: '76561197960265729', time_init: now - WINDOW - 60, status: 3 });
    const r = await run();
    expect(r.discrepancies.filter((d) => d.kind === 'trade_without_record').map((d) => d.trade_id)).toEqual(['6000000000000000002']);
  });
});
