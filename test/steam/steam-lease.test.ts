// Two gateway instances on one database: each bot is driven by one of them; when its instance
// dies (stops renewing), the other takes the bot over within the lease and carries on its offers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers.js';
import { FakeSteam } from './fake-steam.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let fake: FakeSteam;
let a: SteamWorld;
let b: SteamWorld;

beforeAll(async () => {
  offline();
  fake = await new FakeSteam().start();
  const databaseUrl = await freshDatabase();
  a = await startSteamWorld({ bots: 1, fake, databaseUrl, env: { BOT_LEASE_SECONDS: '30' } });
  b = await startSteamWorld({ bots: 0, fake, databaseUrl, env: { BOT_LEASE_SECONDS: '30' } });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await fake?.stop();
});

describe('bot lease takeover', () => {
  it('one driver per bot; after its instance dies the other takes over and reports the offer it sent', async () => {
    const botId = a.bots[0].id;
    expect(await a.platform.leaseTick()).toEqual([botId]);
    expect(await b.platform.leaseTick()).toEqual([]);
    expect(fake.signIns).toBe(1);

    // Instance A sends a deposit offer.
    const m = await a.gw.createMerchant();
    const partner = 30_000_001;
    fake.addUser({ partner, token: 'tok12345', items: [{ assetid: '4400000001', classid: '1', name: 'AK-47 | Redline (Minimal Wear)' }] });
    const inv = await a.gw.merchant(m.api_key, 'POST', '/inventory', { game: 'csgo', partner, token: 'tok12345' });
    const dep = await a.gw.merchant(m.api_key, 'POST', '/create-deposit', { merchant_tx_id: 'lease-1', game: 'csgo', partner, token: 'tok12345', asset_ids: inv.body.data.items.map((i: any) => i.id) });
    expect(dep.body.data.status).toBe('active');
    const offerId = dep.body.data.trade_offer_id;

    // A renews while alive; B still gets nothing.
    expect(await a.platform.leaseTick()).toEqual([botId]);
    expect(await b.platform.leaseTick()).toEqual([]);

    // A dies: it renews no more, and its lease runs out (set in the past here rather than slept
    // through: a short lease slept on a busy machine could run out again before A's last check).
    // B then takes the bot with A's web session, still working (no new sign-in), and polls with A's poll data.
    await b.gw.ctx.db.updateTable('bots').set({ lease_expires_at: new Date(Date.now() - 1000) }).where('id', '=', botId).execute();
    expect(await b.platform.leaseTick()).toEqual([botId]);
    expect(fake.signIns).toBe(1);
    expect(b.platform.rotationOf(botId)?.rotation).toBe('in');
    const row = await b.gw.ctx.db.selectFrom('bots').select(['lease_owner', 'poll_data']).where('id', '=', botId).executeTakeFirstOrThrow();
    expect(row.lease_owner).toBe(b.platform.instanceId);
    fake.accept(offerId);
    await b.platform.pollTick();
    const st = await b.gw.merchant(m.api_key, 'GET', `/deposit/status?id=${dep.body.data.id}`);
    expect(st.body.data.status).toBe('hold');
    // A, back from the dead, finds the lease gone and stops driving the bot.
    expect(await a.platform.leaseTick()).toEqual([]);
    expect(a.platform.driverOf(botId)).toBeUndefined();
  });
});

describe('bots shared out among instances', () => {
  it('two live instances with four bots drive two each, never the same one; a stopped instance hands its bots over', async () => {
    const fake2 = await new FakeSteam().start();
    const databaseUrl = await freshDatabase();
    const x = await startSteamWorld({ bots: 4, fake: fake2, databaseUrl, env: { BOT_LEASE_SECONDS: '30' } });
    const y = await startSteamWorld({ bots: 0, fake: fake2, databaseUrl, env: { BOT_LEASE_SECONDS: '30' } });
    try {
      expect((await x.platform.leaseTick()).length).toBe(4); // alone so far: all four
      expect(await y.platform.leaseTick()).toEqual([]); // none free yet
      expect((await x.platform.leaseTick()).length).toBe(2); // two instances live: hands two back
      const ys = await y.platform.leaseTick();
      const xs = await x.platform.leaseTick();
      expect(ys.length).toBe(2);
      expect(xs.length).toBe(2);
      expect(new Set([...xs, ...ys]).size).toBe(4);
      // Y stops: its leases and its heartbeat go; X takes all four on its next round.
      await y.stop();
      expect((await x.platform.leaseTick()).length).toBe(4);
    } finally {
      await x.stop();
      await y.stop().catch(() => {});
      await fake2.stop();
    }
  });
});
