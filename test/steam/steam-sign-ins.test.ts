// Sign-ins are spent carefully: a bot's working web session is kept (sealed) for its next driver,
// so a disable + enable, a restart or a lease move signs in only when that session stopped working;
// a sign-in refused for Steam's rate limit waits as long as Steam asks, visibly; every sign-in is
// counted (gateway_steam_sign_ins_total). The sign-in calls are counted at the stand-in platform.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, freshDatabase } from '../helpers.js';
import { FakeSteam } from './fake-steam.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';

let fake: FakeSteam;
let databaseUrl: string;
let w: SteamWorld;

beforeAll(async () => {
  offline();
  fake = await new FakeSteam().start();
  databaseUrl = await freshDatabase();
  w = await startSteamWorld({ bots: 2, fake, databaseUrl });
  await w.platform.leaseTick();
});
afterAll(async () => {
  await w?.stop();
  await fake?.stop();
});

const view = async (id: number) => (await w.gw.admin('GET', `/bots/${id}`)).body.data;
const attempts = () => [...fake.signInAttempts.values()].reduce((a, b) => a + b, 0);
const metrics = async () => (await fetch(`${w.gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();

describe('sign-ins', () => {
  it('the first start signs each bot in once, counted per bot', async () => {
    expect(fake.signIns).toBe(2);
    expect(attempts()).toBe(2);
    for (const b of w.bots) expect(w.platform.rotationOf(b.id)?.rotation).toBe('in');
    const text = await metrics();
    for (const b of w.bots) expect(text).toContain(`gateway_steam_sign_ins_total{bot="${b.fake.accountName}",outcome="ok"} 1`);
  });

  it('disable + enable: no new sign-in while the stored session works', async () => {
    const id = w.bots[0].id;
    expect((await w.gw.admin('POST', `/bots/${id}/disable`)).status).toBe(200);
    expect(w.platform.driverOf(id)).toBeUndefined(); // let go: no open offers
    const on = await w.gw.admin('PATCH', `/bots/${id}`, { enabled: true });
    expect(on.body.data).toMatchObject({ rotation: 'in', signed_in: true });
    expect(attempts()).toBe(2);
  });

  it('a restart: the new process starts from the stored sessions, no sign-in', async () => {
    await w.stop();
    w = await startSteamWorld({ bots: 0, fake, databaseUrl });
    w.bots = (await w.gw.admin('GET', '/bots')).body.data.map((b: { id: number; account_name: string }) => ({ id: b.id, fake: [...fake.bots.values()].find((f) => f.accountName === b.account_name)! }));
    await w.platform.leaseTick();
    for (const b of w.bots) expect(w.platform.rotationOf(b.id)?.rotation).toBe('in');
    expect(attempts()).toBe(2);
  });

  it('a session that stopped working: one sign-in (the refresh token), then the new session is kept', async () => {
    const b = w.bots[1];
    fake.expireSessionOf(b.fake);
    await w.platform.pollTick();
    await w.platform.pollTick();
    expect(fake.signInAttempts.get(b.fake.accountName)).toBe(2);
    expect(w.platform.rotationOf(b.id)?.rotation).toBe('in');
    expect(await metrics()).toContain(`gateway_steam_sign_ins_total{bot="${b.fake.accountName}",outcome="ok"} 1`);
  });

  it('a sign-in refused for Steam\'s rate limit: out, no other attempt before the wait Steam asked for, shown as the reason', async () => {
    const b = w.bots[0];
    fake.rateLimitSignInsOf.set(b.fake.accountName, 120);
    fake.expireSessionOf(b.fake);
    const before = fake.signInAttempts.get(b.fake.accountName) ?? 0;
    const asked = Date.now();
    for (let i = 0; i < 5; i++) await w.platform.pollTick();
    expect(fake.signInAttempts.get(b.fake.accountName)).toBe(before + 1);
    expect(w.platform.rotationOf(b.id)?.rotation).toBe('out');
    const v = await view(b.id);
    expect(v).toMatchObject({ rotation: 'out', signed_in: false });
    expect(new Date(v.sign_in_retry_at).getTime()).toBeGreaterThanOrEqual(asked + 120_000);
    expect(v.rotation_reason).toMatch(/rate limit.*next sign-in attempt at \d{4}-/);
    expect(await metrics()).toContain(`gateway_steam_sign_ins_total{bot="${b.fake.accountName}",outcome="rate_limited"} 1`);
    // The other bot carries on.
    expect(w.platform.rotationOf(w.bots[1].id)?.rotation).toBe('in');
  });
});
