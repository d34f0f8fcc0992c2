// Reconciliation against the platform on PLATFORM=steam (issue 20, point 7), through the stand-in
// platform: the bots' trade history (GetTradeHistory, reversals) and sent offers are read through
// the real libraries and compared with the records.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importListings } from '../../src/modules/catalogue/catalogue-import.js';
import { eventually } from '../helpers.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let w: SteamWorld;
let key: string;
const TOKEN = 'tok12345';
const WINDOW = 3600;

const lateRevert = (k: string) => w.gw.ctx.db.selectFrom('ledger_entries').select(['kind']).where('key', '=', k).execute();
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
    // Its items were listed when it completed: the one that left the bot is a listed item missing too.
    expect(r.discrepancies.map((d) => [d.kind, d.record_kind, d.record_id])).toEqual([
      ['reversed_trade_still_credited', 'deposit', dep.body.data.id],
      ['listed_item_missing', 'deposit', dep.body.data.id],
    ]);
    // The gateway reads the reversal: recorded against the merchant (deposit_late_revert), nothing left to reconcile.
    await w.platform.historyTick();
    await eventually(async () => (await lateRevert(`deposit:${dep.body.data.id}:late_revert`)).length === 1, 10_000, 100);
    expect((await run()).discrepancies).toEqual([]);
  }, 60_000);

  it('a completed purchase reversed by the buyer (seen after its hold): the amount returns to the merchant once (purchase_late_revert), audited; nothing left to reconcile', async () => {
    const bot = w.bots[0].fake;
    const assetId = '62900000001';
    bot.items.push({ assetid: assetId, classid: '7', name: 'AK-47 | Redline (Minimal Wear)' });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'steam-rec-'));
    const file = path.join(dir, 'listings.jsonl');
    await fs.writeFile(file, JSON.stringify({ id: 'ac00000000000001', game: 'csgo', name: 'AK-47 | Redline (Minimal Wear)', price: 3.5, inspect_url: `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S${bot.steamId}A${assetId}D4649842965496580321` }) + '\n');
    expect((await importListings(w.gw.ctx, file, () => {})).errors).toEqual([]);
    await w.gw.topUp((await w.gw.ctx.db.selectFrom('merchants').select('id').executeTakeFirstOrThrow()).id, 100);
    const partner = 43_000_002;
    w.fake.addUser({ partner, token: TOKEN, items: [] });
    const p = await w.gw.merchant(key, 'POST', '/purchase', { partner, token: TOKEN, game: 'csgo', asset_id: 'ac00000000000001', merchant_tx_id: 'rec-steam-p1' });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const id = p.body.data.id as number;
    const purchase = async () => (await w.gw.merchant(key, 'GET', `/purchase/status?id=${id}`)).body.data;
    await w.gw.ctx.purchases.dispatch(id, { attempts: 1, maxAttempts: 5 });
    expect((await purchase()).status).toBe('active');
    const offer = (await purchase()).trade_offer_id as string;
    w.fake.accept(offer);
    await eventually(async () => {
      await w.platform.pollTick();
      return (await purchase()).status === 'hold';
    }, 20_000, 200);
    await w.gw.ctx.db.updateTable('purchases').set({ hold_end_date: new Date(Date.now() - 1000) }).where('id', '=', id).execute();
    await w.gw.ctx.purchases.endHoldIfDue(id);
    expect((await purchase()).status).toBe('completed');
    const before = (await w.gw.merchant(key, 'GET', '/balance')).body.data.available as number;
    w.fake.reverse(offer);
    await w.platform.historyTick();
    await w.platform.historyTick(); // reported once
    expect((await purchase()).status).toBe('completed');
    expect(await lateRevert(`purchase:${id}:late_revert`)).toEqual([{ kind: 'purchase_late_revert' }]);
    expect((await w.gw.merchant(key, 'GET', '/balance')).body.data.available).toBeCloseTo(before + 3.5, 2);
    const audit = await w.gw.ctx.db.selectFrom('audit_log' as any).select(['action']).where('action', '=', 'purchase_reversed_after_completion').execute();
    expect(audit.length).toBe(1);
    expect((await w.gw.ctx.ledger.verify()).mismatches).toEqual([]);
    expect((await run()).discrepancies).toEqual([]);
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
