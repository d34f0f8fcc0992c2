// Reconciliation against the platform (issue 20, point 7) on the sandbox platform: its own record of
// the bots' trades and holdings (sandbox_trades, sandbox_bot_items) against the gateway's records.
// Flows the gateway followed reconcile to 0; each rule is shown by making the platform's side (or a
// record) disagree, at its edge and one past it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, eventually, freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import type { SandboxPlatform } from '../../src/platform/sandbox/sandbox-platform.js';
import { botListingId } from '../../src/modules/catalogue/bot-stock.js';
import { runCli } from '../cli-run.js';

let gw: TestGateway;
let databaseUrl: string;
let platform: SandboxPlatform;
let key: string;
let merchantId: number;
const WINDOW = 8 * 86400;
let seq = 0;

const run = async () => {
  const r = await gw.admin('POST', '/reconciliation/run');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data.read_errors).toEqual([]);
  return r.body.data as { run_id: number; total: number; discrepancies: any[] };
};
const kinds = (r: { discrepancies: any[] }) => r.discrepancies.map((d) => `${d.kind}:${d.record_kind ?? ''}:${d.record_id ?? d.listing_id ?? d.trade_id}`).sort();

/** A deposit through the merchant API and the sandbox helper: completed (hold false) or held. */
async function deposit(hold: boolean): Promise<number> {
  const partner = 55_000_000 + ++seq;
  const inv = await gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: 'recon123' });
  const asset = inv.body.data.items[0].id;
  const dep = await gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: `rec-${seq}`, game: 'csgo', partner, token: 'recon123', asset_ids: [asset] });
  expect(dep.body.data.status).toBe('active');
  const acc = await gw.merchant(key, 'POST', `/sandbox/deposit/${dep.body.data.id}/accept`, { hold });
  expect(acc.body.data.status).toBe(hold ? 'hold' : 'completed');
  return dep.body.data.id;
}

beforeAll(async () => {
  databaseUrl = await freshDatabase();
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '50', METRICS_REFRESH_MS: '100' }, { databaseUrl });
  platform = gw.ctx.platform as SandboxPlatform;
  const m = await gw.createMerchant();
  key = m.api_key;
  merchantId = m.id;
  await gw.topUp(m.id, 10_000);
});
afterAll(async () => gw?.stop());

describe('flows the gateway followed', () => {
  it('completed and held deposits, a declined one, a purchase of a bot\'s item and a purchase of a seeded listing: 0 discrepancies', async () => {
    expect((await gw.admin('GET', '/reconciliation')).status).toBe(404); // no run yet
    await deposit(false);
    await deposit(true);
    const partner = 55_100_000;
    const inv = await gw.merchant(key, 'POST', '/inventory', { game: 'csgo', partner, token: 'recon123' });
    const declined = await gw.merchant(key, 'POST', '/create-deposit', { merchant_tx_id: 'rec-declined', game: 'csgo', partner, token: 'recon123', asset_ids: [inv.body.data.items[0].id] });
    await gw.merchant(key, 'POST', `/sandbox/deposit/${declined.body.data.id}/decline`);
    const bot = Number((await gw.ctx.db.selectFrom('bots').select('id').orderBy('id').executeTakeFirstOrThrow()).id);
    await platform.giveBotItems(bot, 'csgo', [{ assetId: '90000000001', marketHashName: 'AK-47 | Redline (Field-Tested)' }, { assetId: '90000000002', marketHashName: 'AK-47 | Redline (Field-Tested)' }]);
    await gw.admin('POST', '/bots/sync', { bot_id: bot });
    const seeded = await gw.ctx.db.selectFrom('listings').select('id').where('source', '=', 'seed').where('game', '=', 'csgo').where('status', '=', 'live').limit(1).executeTakeFirstOrThrow();
    for (const [i, listing] of [botListingId(bot, 'csgo', '90000000001'), seeded.id].entries()) {
      const p = await gw.merchant(key, 'POST', '/purchase', { partner: 55_200_000, token: 'recon123', game: 'csgo', asset_id: listing, merchant_tx_id: `rec-p${i}` });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
      await eventually(async () => (await gw.merchant(key, 'GET', `/purchase/status?id=${p.body.data.id}`)).body.data.status === 'active', 30_000, 100);
      expect((await gw.merchant(key, 'POST', `/sandbox/purchase/${p.body.data.id}/accept`, { hold: false })).body.data.status).toBe('completed');
    }
    const r = await run();
    expect(r.discrepancies).toEqual([]);
    expect((await gw.admin('GET', '/reconciliation')).body.data).toMatchObject({ run_id: r.run_id, total: 0 });
  }, 90_000);
});

describe('every item that moved is matched by a record in the right status', () => {
  it('a deposit trade: the deposit in hold is fine; the same deposit closed as canceled is reported (deposit_trade_not_credited)', async () => {
    const id = await deposit(true);
    expect(kinds(await run())).toEqual([]);
    await sql`update deposits set status = 'canceled' where id = ${id}`.execute(gw.ctx.db);
    const r = await run();
    expect(kinds(r)).toEqual([`deposit_trade_not_credited:deposit:${id}`]);
    expect(r.discrepancies[0]).toMatchObject({ merchant_id: merchantId, action: expect.stringContaining('Credit the merchant') });
    await sql`update deposits set status = 'hold' where id = ${id}`.execute(gw.ctx.db);
  });

  it('a purchase trade: completed is fine; the same purchase refunded as failed is reported (purchase_trade_not_recorded)', async () => {
    const p = await gw.ctx.db.selectFrom('purchases').select('id').where('status', '=', 'completed').orderBy('id').executeTakeFirstOrThrow();
    await sql`update purchases set status = 'failed' where id = ${p.id}`.execute(gw.ctx.db);
    expect(kinds(await run())).toEqual([`purchase_trade_not_recorded:purchase:${p.id}`]);
    await sql`update purchases set status = 'completed' where id = ${p.id}`.execute(gw.ctx.db);
    expect(kinds(await run())).toEqual([]);
  });

  it('a trade no record made: reported inside the window, not compared one minute before it', async () => {
    const bot = Number((await gw.ctx.db.selectFrom('bots').select('id').orderBy('id').executeTakeFirstOrThrow()).id);
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
    await sql`insert into sandbox_trades (trade_offer_id, offer_kind, record_id, bot_id, accepted_at) values
      ('outside-1', 'deposit', 999999999, ${bot}, ${at(WINDOW + 60)}::timestamptz),
      ('inside-1', 'deposit', 999999998, ${bot}, ${at(WINDOW - 60)}::timestamptz)`.execute(gw.ctx.db);
    const r = await run();
    expect(r.discrepancies.map((d) => [d.kind, d.record_id])).toEqual([['trade_without_record', 999999998]]);
    await sql`delete from sandbox_trades where trade_offer_id in ('outside-1', 'inside-1')`.execute(gw.ctx.db);
  });
});

describe('every credit by an item received and not reversed', () => {
  it('a reversal the gateway never saw: reported while the deposit credits the merchant (reversed_trade_still_credited)', async () => {
    const id = await deposit(false);
    await sql`update sandbox_trades set reverted_at = now() where offer_kind = 'deposit' and record_id = ${id}`.execute(gw.ctx.db);
    expect(kinds(await run())).toEqual([`reversed_trade_still_credited:deposit:${id}`]);
    // Once the records follow (reverted: the credit taken back), it is settled.
    await sql`update deposits set status = 'reverted' where id = ${id}`.execute(gw.ctx.db);
    expect(kinds(await run())).toEqual([]);
  });

  it('a credit with no trade on the platform: reported for a deposit created inside the window, not for one created before it', async () => {
    const inside = await deposit(false);
    const before = await deposit(false);
    await sql`delete from sandbox_trades where offer_kind = 'deposit' and record_id in (${inside}, ${before})`.execute(gw.ctx.db);
    await sql`update deposits set created_at = now() - make_interval(secs => ${WINDOW + 60}) where id = ${before}`.execute(gw.ctx.db);
    await sql`update deposits set created_at = now() - make_interval(secs => ${WINDOW - 60}) where id = ${inside}`.execute(gw.ctx.db);
    const r = await run();
    expect(kinds(r).filter((k) => k.startsWith('credit_without_trade'))).toEqual([`credit_without_trade:deposit:${inside}`]);
    await sql`update deposits set status = 'failed' where id in (${inside}, ${before})`.execute(gw.ctx.db);
  });
});

describe('every listing by an item a bot holds', () => {
  it('a bot listing whose item left the bot is reported until the sync delists it', async () => {
    const bot = Number((await gw.ctx.db.selectFrom('bots').select('id').orderBy('id').executeTakeFirstOrThrow()).id);
    await eventually(async () => (await run()).total === 0, 30_000, 200);
    await platform.takeBotItems(bot, 'csgo', ['90000000002']);
    const r = await run();
    expect(r.discrepancies.map((d) => [d.kind, d.listing_id])).toEqual([['listed_item_missing', botListingId(bot, 'csgo', '90000000002')]]);
    // The metric shows the latest run by kind.
    await eventually(async () => {
      const m = await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return /gateway_reconcile_discrepancies\{kind="listed_item_missing"\} 1/.test(m.body) && /gateway_reconcile_discrepancies\{kind="total"\} 1/.test(m.body);
    }, 10_000, 100);
    await gw.admin('POST', '/bots/sync', { bot_id: bot });
    expect((await run()).total).toBe(0);
  });

  it('`gateway reconcile --json` exits 1 while anything disagrees, 0 once all agree', async () => {
    const clean = await runCli(databaseUrl, ['reconcile']);
    expect(clean.code, clean.err).toBe(0);
    expect(JSON.parse(clean.out).total).toBe(0);
    const id = await deposit(false);
    await sql`update sandbox_trades set reverted_at = now() where offer_kind = 'deposit' and record_id = ${id}`.execute(gw.ctx.db);
    const dirty = await runCli(databaseUrl, ['reconcile']);
    expect(dirty.code).toBe(1);
    expect(JSON.parse(dirty.out).discrepancies.map((d: any) => d.kind)).toEqual(['reversed_trade_still_credited']);
  }, 180_000); // two CLI processes (tsx start-up, migrations check) on a busy machine
});
