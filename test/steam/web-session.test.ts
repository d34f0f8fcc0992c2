// A stored web session (bot add web_cookies, PUT /bots/:id/web-session): used as is at sign-in,
// replaced by the operator, and once expired with nothing fresher stored, the refresh token /
// credentials path takes over. Checked on the operator API and on the stand-in platform.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers.js';
import { offline, startSteamWorld, type SteamWorld } from './steam-helpers.js';
import type { FakeBot } from './fake-steam.js';

let w: SteamWorld;
let bot: FakeBot;
let id: number;

beforeAll(async () => {
  offline();
  w = await startSteamWorld({ bots: 0 });
  bot = w.fake.addBot('bot_ws', 920_001);
  const res = await w.gw.admin('POST', '/bots', {
    account_name: bot.accountName, password: bot.password, shared_secret: bot.sharedSecret, identity_secret: bot.identitySecret, platform_id: bot.steamId,
    web_cookies: w.fake.webCookies(bot).cookies,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  id = res.body.data.id;
});
afterAll(async () => w?.stop());

describe('stored web session', () => {
  it('bot add: the cookies must carry steamLoginSecure of this very account', async () => {
    const other = w.fake.addBot('bot_ws_other', 920_002);
    const base = { account_name: other.accountName, password: other.password, shared_secret: other.sharedSecret, identity_secret: other.identitySecret, platform_id: other.steamId };
    const none = await w.gw.admin('POST', '/bots', { ...base, web_cookies: ['sessionid=abc'] });
    expect(none.status).toBe(400);
    expect(none.body.data).toEqual([{ field: 'web_cookies', code: 'format', message: 'web_cookies: needs steamLoginSecure=<steamid>%7C%7C<access token>' }]);
    const empty = await w.gw.admin('POST', '/bots', { ...base, web_cookies: [] });
    expect(empty.status).toBe(400);
    // Stored sealed: the access token is nowhere in the row.
    const row = await w.gw.ctx.db.selectFrom('bots').select('secrets').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.secrets!.includes(Buffer.from('steamLoginSecure'))).toBe(false);
  });

  it('signs in with the stored session alone (no login), then an operator-replaced one after expiry, then falls back to credentials', async () => {
    expect(await w.platform.leaseTick()).toEqual([id]);
    expect(w.fake.signIns).toBe(0);
    expect(w.platform.driverOf(id)?.signedIn).toBe(true);
    expect(w.fake.bots.get(bot.steamId)!.acknowledged).toBe(true); // a signed-in POST to the stand-in
    const polls = () => w.fake.requests.filter((r) => r.path.includes('GetTradeOffers'));
    // A refused poll signs in again in the background ("Access is denied" → sessionExpired): poll until one goes through.
    const pollGoesThrough = () => eventually(async () => {
      await w.platform.pollTick();
      return polls().at(-1)!.status === 200;
    }, 5_000, 50);
    await w.platform.pollTick();
    expect(polls().at(-1)!.status).toBe(200);

    // The session expires; the operator stores a fresh one: the re-login after the refused poll uses it.
    w.fake.expireSessions();
    const put = await w.gw.admin('PUT', `/bots/${id}/web-session`, { web_cookies: w.fake.webCookies(bot).cookies });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.message).toBe('web session stored');
    await pollGoesThrough();
    expect(w.fake.signIns).toBe(0);

    // Expired again with nothing fresher stored: the same session is not tried twice; credentials sign in.
    w.fake.expireSessions();
    await pollGoesThrough();
    expect(w.fake.signIns).toBe(1);
  });

  it('PUT web-session: another account\'s session is 400, an unknown or removed bot 404, unknown fields refused', async () => {
    const other = w.fake.addBot('bot_ws_third', 920_003);
    const wrong = await w.gw.admin('PUT', `/bots/${id}/web-session`, { web_cookies: w.fake.webCookies(other).cookies });
    expect(wrong.status).toBe(400);
    expect(wrong.body.data).toEqual([{ field: 'web_cookies', code: 'denied', message: 'web_cookies: the session belongs to another account than platform_id' }]);
    expect((await w.gw.admin('PUT', '/bots/999999/web-session', { web_cookies: w.fake.webCookies(bot).cookies })).status).toBe(404);
    expect((await w.gw.admin('PUT', `/bots/${id}/web-session`, { web_cookies: w.fake.webCookies(bot).cookies, extra: 1 })).status).toBe(400);
    const added = await w.gw.admin('POST', '/bots', { account_name: other.accountName, password: other.password, shared_secret: other.sharedSecret, identity_secret: other.identitySecret, platform_id: other.steamId });
    expect((await w.gw.admin('DELETE', `/bots/${added.body.data.id}`)).status).toBe(200);
    expect((await w.gw.admin('PUT', `/bots/${added.body.data.id}/web-session`, { web_cookies: w.fake.webCookies(other).cookies })).status).toBe(404);
  });
});
