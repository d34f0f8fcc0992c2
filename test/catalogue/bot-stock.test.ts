// The bots' stock is the catalogue (issue 20, point 6), on the sandbox platform: what the bots hold
// (the sandbox's own record of their inventories) is listed by the sync, delisted when it leaves,
// never while in trade protection, in a purchase or listed by a deposit; filters and price as settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, eventually } from '../helpers.js';
import { botListingId, createBotStockSync } from '../../src/modules/catalogue/bot-stock.js';
import type { SandboxPlatform } from '../../src/platform/sandbox/sandbox-platform.js';
import { runCli } from '../cli-run.js';
import { freshDatabase } from '../helpers.js';

let gw: TestGateway;
let databaseUrl: string;
let platform: SandboxPlatform;
let key: string;
let botA: number;
let botB: number;
const DOPPLER = '★ Karambit | Doppler (Factory New)';

/** Priced plain csgo names, cheapest first. */
let names: { name: string; price: number }[];

const listing = (id: string) => gw.ctx.db.selectFrom('listings').select(['id', 'status', 'base_price', 'asset_id', 'phase', 'name']).where('id', '=', id).executeTakeFirst();
const botListings = (bot: number) => gw.ctx.db.selectFrom('listings').select(['id', 'status', 'asset_id']).where('source', '=', 'bot').where('source_ref', 'like', `bot:${bot}:%`).orderBy('asset_id').execute();

beforeAll(async () => {
  databaseUrl = await freshDatabase();
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0' }, { databaseUrl });
  platform = gw.ctx.platform as SandboxPlatform;
  const m = await gw.createMerchant();
  key = m.api_key;
  await gw.topUp(m.id, 100_000);
  const bots = await gw.ctx.db.selectFrom('bots').select('id').orderBy('id').execute();
  [botA, botB] = [Number(bots[0].id), Number(bots[1].id)];
  names = gw.ctx.pricing.namesFor('csgo').filter((n) => !n.includes('Doppler')).map((n) => ({ name: n, price: gw.ctx.pricing.entry('csgo', n)!.price }))
    .sort((a, b) => a.price - b.price);
});
afterAll(async () => gw?.stop());

describe('the sync lists the bots\' tradable items', () => {
  it('two bots holding 10 tradable items: all 10 on sale at the book price (× BOT_SYNC_PRICE_PERCENT), a replay changes nothing', async () => {
    const give = (bot: number, from: number) => platform.giveBotItems(bot, 'csgo', Array.from({ length: 5 }, (_, i) => ({ assetId: String(70_000_000_000 + from + i), marketHashName: names[100 + from + i].name })));
    await give(botA, 0);
    await give(botB, 5);
    const r = await gw.admin('POST', '/bots/sync', {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ listed: 10, delisted: 0, errors: 0 });
    const full = await gw.merchant(key, 'GET', '/purchase/available?game=csgo&full=true');
    expect(full.body.data.total).toBe(10);
    const l = (await listing(botListingId(botA, 'csgo', '70000000000')))!;
    expect(l).toMatchObject({ status: 'live', asset_id: '70000000000', name: names[100].name });
    expect(Number(l.base_price)).toBe(names[100].price);
    const again = await gw.admin('POST', '/bots/sync', {});
    expect(again.body.data).toMatchObject({ listed: 0, delisted: 0 });
  });

  it('an item that leaves its bot is delisted; one that comes back is listed again', async () => {
    await platform.takeBotItems(botB, 'csgo', ['70000000009']);
    const r = await gw.admin('POST', '/bots/sync', { bot_id: botB });
    expect(r.body.data).toMatchObject({ listed: 0, delisted: 1 });
    expect((await listing(botListingId(botB, 'csgo', '70000000009')))!.status).toBe('delisted');
    expect((await listing(botListingId(botB, 'csgo', '70000000008')))!.status).toBe('live');
    await platform.giveBotItems(botB, 'csgo', [{ assetId: '70000000009', marketHashName: names[109].name }]);
    expect((await gw.admin('POST', '/bots/sync', { bot_id: botB })).body.data).toMatchObject({ listed: 1, delisted: 0 });
    expect((await listing(botListingId(botB, 'csgo', '70000000009')))!.status).toBe('live');
  });

  it('trade protection: an item tradable one second from now is not listed; one tradable since a second ago is', async () => {
    const now = Date.now();
    await platform.giveBotItems(botA, 'csgo', [
      { assetId: '70000000100', marketHashName: names[120].name, tradableAfter: new Date(now + 60_000) },
      { assetId: '70000000101', marketHashName: names[121].name, tradableAfter: new Date(now - 1000) },
    ]);
    const r = await gw.admin('POST', '/bots/sync', { bot_id: botA });
    expect(r.body.data.bots.find((b: any) => b.game === 'csgo').skipped.protected).toBe(1);
    expect(await listing(botListingId(botA, 'csgo', '70000000100'))).toBeUndefined();
    expect((await listing(botListingId(botA, 'csgo', '70000000101')))!.status).toBe('live');
  });

  it('prices by phase from the paint index: a Ruby at the Ruby price; an unknown index is not listed', async () => {
    await platform.giveBotItems(botA, 'csgo', [
      { assetId: '70000000200', marketHashName: DOPPLER, paintIndex: 415 },
      { assetId: '70000000201', marketHashName: DOPPLER, paintIndex: 422 },
    ]);
    const r = await gw.admin('POST', '/bots/sync', { bot_id: botA });
    expect(r.body.data.bots.find((b: any) => b.game === 'csgo').skipped.unpriced).toBe(1);
    const ruby = (await listing(botListingId(botA, 'csgo', '70000000200')))!;
    expect(ruby.phase).toBe('Ruby');
    expect(Number(ruby.base_price)).toBe(gw.ctx.pricing.entry('csgo', DOPPLER, 'Ruby')!.price);
    expect(await listing(botListingId(botA, 'csgo', '70000000201'))).toBeUndefined();
  });
});

describe('filters and price as settings', () => {
  it('BOT_SYNC_MIN_PRICE / MAX_PRICE: an item at each bound is listed, one a mill outside is not; BOT_SYNC_PRICE_PERCENT scales the base price', async () => {
    const bot = Number((await gw.ctx.db.selectFrom('bots').select('id').orderBy('id').offset(2).limit(1).executeTakeFirstOrThrow()).id);
    // Four items of distinct prices: the bounds are the two middle ones.
    const picks = [names[200], names[260], names[320], names[380]];
    expect(new Set(picks.map((p) => p.price)).size).toBe(4);
    await platform.giveBotItems(bot, 'csgo', picks.map((p, i) => ({ assetId: String(71_000_000_000 + i), marketHashName: p.name })));
    const sync = createBotStockSync({
      db: gw.ctx.db, log: gw.ctx.log, platform, pricing: gw.ctx.pricing, state: gw.ctx.catalogue.pageState,
      settings: { intervalSeconds: 0, games: ['csgo'], minPriceMills: picks[1].price, maxPriceMills: picks[2].price, pricePercent: 90 },
    });
    const r = await sync.sync({ botId: bot });
    expect(r.bots[0]).toMatchObject({ listed: 2, skipped: { filtered: 2 } });
    const ids = picks.map((_, i) => botListingId(bot, 'csgo', String(71_000_000_000 + i)));
    expect(await listing(ids[0])).toBeUndefined();
    expect(Number((await listing(ids[1]))!.base_price)).toBe(Math.round(picks[1].price * 0.9));
    expect(Number((await listing(ids[2]))!.base_price)).toBe(Math.round(picks[2].price * 0.9));
    expect(await listing(ids[3])).toBeUndefined();
    // A filter that now excludes a listed item delists it.
    const narrower = createBotStockSync({
      db: gw.ctx.db, log: gw.ctx.log, platform, pricing: gw.ctx.pricing, state: gw.ctx.catalogue.pageState,
      settings: { intervalSeconds: 0, games: ['csgo'], minPriceMills: picks[1].price + 1, maxPriceMills: picks[2].price, pricePercent: 90 },
    });
    expect((await narrower.sync({ botId: bot })).bots[0]).toMatchObject({ listed: 0, delisted: 1 });
    expect((await listing(ids[1]))!.status).toBe('delisted');
  });
});

describe('never an item in a purchase, and never twice', () => {
  it('a listing in a purchase stays reserved through a sync; once sold, its item has left the bot and nothing is listed again', async () => {
    const id = botListingId(botA, 'csgo', '70000000001');
    const p = await gw.merchant(key, 'POST', '/purchase', { partner: 33445566, token: 'stock123', game: 'csgo', asset_id: id, merchant_tx_id: 'stock-p1' });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect((await listing(id))!.status).toBe('reserved');
    await gw.admin('POST', '/bots/sync', { bot_id: botA });
    expect((await listing(id))!.status).toBe('reserved');
    await eventually(async () => (await gw.merchant(key, 'GET', `/purchase/status?id=${p.body.data.id}`)).body.data.status === 'active', 30_000, 100);
    const acc = await gw.merchant(key, 'POST', `/sandbox/purchase/${p.body.data.id}/accept`, { hold: false });
    expect(acc.body.data.status).toBe('completed');
    expect((await listing(id))!.status).toBe('sold');
    expect((await platform.botInventory(botA, 'csgo')).some((i) => i.assetId === '70000000001')).toBe(false);
    const r = await gw.admin('POST', '/bots/sync', { bot_id: botA });
    expect(r.body.data.listed).toBe(0);
    expect((await listing(id))!.status).toBe('sold');
  });

  it('a deposited item is listed once, by its deposit, not by the sync', async () => {
    const partner = 33445567;
    const inv = await gw.merchant(key, 'POST', '/inventory', { game: 'rust', partner, token: 'stock123' });
    const asset = inv.body.data.items[0].id;
    const dep = await gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'stock-d1', game: 'rust', partner, token: 'stock123', asset_ids: [asset] });
    expect(dep.body.data.status).toBe('active');
    const bot = Number((await gw.ctx.db.selectFrom('deposits').select('bot_id').where('id', '=', dep.body.data.id).executeTakeFirstOrThrow()).bot_id);
    await gw.merchant(key, 'POST', `/sandbox/deposit/${dep.body.data.id}/accept`, { hold: false });
    expect((await platform.botInventory(bot, 'rust')).find((i) => i.assetId === asset)).toMatchObject({ depositId: dep.body.data.id });
    const r = await gw.admin('POST', '/bots/sync', { bot_id: bot });
    expect(r.body.data.bots.find((b: any) => b.game === 'rust').skipped.deposit).toBe(1);
    expect(await listing(botListingId(bot, 'rust', asset))).toBeUndefined();
  });
});

describe('operator entry points', () => {
  it('`gateway bot sync --json` runs the same sync; a bad body is a 400', async () => {
    await platform.giveBotItems(botB, 'tf2', [{ assetId: '72000000000', marketHashName: gw.ctx.pricing.namesFor('tf2')[0] }]);
    const out = await runCli(databaseUrl, ['bot', 'sync', '--bot', String(botB)]);
    expect(out.code, out.err).toBe(0);
    const report = JSON.parse(out.out);
    expect(report.bots.find((b: any) => b.game === 'tf2')).toMatchObject({ listed: 1 });
    expect((await listing(botListingId(botB, 'tf2', '72000000000')))!.status).toBe('live');
    expect((await gw.admin('POST', '/bots/sync', { bot_id: 'x' })).status).toBe(400);
    expect((await gw.admin('POST', '/bots/sync', { other: 1 })).status).toBe(400);
  }, 180_000); // a CLI process (tsx start-up, migrations check) on a busy machine

  it('the schedule: a sync job is waiting for the next run', async () => {
    await gw.flushJobs();
    const job = await gw.ctx.db.selectFrom('graphile_worker.jobs' as any).select(['task_identifier' as any]).where('key' as any, '=', 'catalogue_bot_stock_sync').executeTakeFirst();
    expect(job).toBeDefined();
  });
});
