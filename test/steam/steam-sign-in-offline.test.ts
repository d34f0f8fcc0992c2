// A bot's whole life with the platform served by local stand-ins and no route out: it signs in with
// its credentials through the real steam-session (STEAM_LOGIN_API_URL, STEAM_LOGIN_URL), renews its
// refresh token and gets a new web session once its session dies, and every one of its calls leaves
// through its own proxy (a local CONNECT proxy that counts its tunnels). The proxy is stored sealed
// and shown only as "set"; a bad proxy URL is a 400.
//
// No route out: every TCP connection of this process to anything but 127.0.0.1 is refused before
// it is made (net.Socket's connect, which http, https and tls all go through). nock is not used
// here: its request interceptor takes only agents that hand over their socket at once, and a
// proxy agent's socket comes once the tunnel is up.
import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutNock } from './without-nock.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { FakeSteam } from './fake-steam.js';
import { FakeSteamLogin, startCountingProxy } from './fake-steam-login.js';
import { steamTestPriceBook } from './test-price-book.js';
import { createSecretBox, parseSecretsKey, proxyAad, refreshTokenAad } from '../../src/platform/steam/secret-box.js';
import type { SteamPlatform } from '../../src/platform/steam/steam-platform.js';

let fake: FakeSteam;
let login: FakeSteamLogin;
let proxy: Awaited<ReturnType<typeof startCountingProxy>>;
let gw: TestGateway;
let platform: SteamPlatform;
const BOT_KEY = crypto.randomBytes(32).toString('base64');
const box = createSecretBox(parseSecretsKey(BOT_KEY));
/** Connections refused for leaving the machine (none expected). */
const refusedOut: string[] = [];
const connect = net.Socket.prototype.connect;

function noRouteOut(): void {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0] as { host?: string; path?: string } | number | string;
    const host = typeof first === 'object' && first !== null ? first.host ?? (first.path ? 'unix' : 'localhost') : typeof args[1] === 'string' ? args[1] : 'localhost';
    if (!['127.0.0.1', 'localhost', '::1', 'unix'].includes(host)) {
      refusedOut.push(host);
      process.nextTick(() => this.destroy(new Error(`no route out: ${host}`)));
      return this;
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
}

let nockBack: () => void;
beforeAll(async () => {
  nockBack = withoutNock();
  noRouteOut();
  fake = await new FakeSteam().start();
  login = await new FakeSteamLogin(fake).start();
  proxy = await startCountingProxy();
  // No steamSessions given: the gateway signs in with steam-session itself.
  gw = await startTestGateway(
    { PLATFORM: 'steam', BOT_SECRETS_KEY: BOT_KEY, PRICE_BOOK: steamTestPriceBook(), SANDBOX_CATALOGUE_SIZE: '0', STEAM_CALL_TIMEOUT_MS: '5000', STEAM_BACKOFF_BASE_MS: '50', ...fake.env, ...login.env },
    { worker: false },
  );
  platform = gw.ctx.platform as SteamPlatform;
});
afterAll(async () => {
  nockBack?.();
  net.Socket.prototype.connect = connect;
  await gw?.stop();
  await proxy?.stop();
  await login?.stop();
  await fake?.stop();
});

const loginPort = () => new URL(login.url).port;
const tunnelsTo = (port: string) => [...proxy.tunnels].filter(([t]) => t.endsWith(`:${port}`)).reduce((a, [, n]) => a + n, 0);
const storedRow = (id: number) => gw.ctx.db.selectFrom('bots').select(['refresh_token', 'proxy', 'account_name']).where('id', '=', id).executeTakeFirstOrThrow();

describe('a bot signed in, renewed and given a new web session by local stand-ins, through its own proxy', () => {
  let botId: number;
  const fb = () => [...fake.bots.values()][0]!;

  it('a bad proxy URL is a 400 naming the field', async () => {
    const b = fake.addBot('proxied_bot', 912_345);
    for (const bad of ['ftp://10.0.0.5:21', 'not a url', 'http://10.0.0.5:3128/path']) {
      const res = await gw.admin('POST', '/bots', { account_name: b.accountName, password: b.password, shared_secret: b.sharedSecret, identity_secret: b.identitySecret, platform_id: b.steamId, proxy: bad });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('proxy');
    }
  });

  it('added with a proxy: stored sealed, shown only as "set", never in clear', async () => {
    const b = fb();
    const proxyUrl = proxy.url.replace('http://', 'http://op:s3cret-pw@');
    const res = await gw.admin('POST', '/bots', { account_name: b.accountName, password: b.password, shared_secret: b.sharedSecret, identity_secret: b.identitySecret, platform_id: b.steamId, proxy: proxyUrl });
    expect(res.status).toBe(201);
    botId = res.body.data.id;
    expect(res.body.data.proxy).toBe('set');
    const listed = await gw.admin('GET', '/bots');
    expect(JSON.stringify(listed.body)).not.toContain('s3cret-pw');
    expect(JSON.stringify(listed.body)).not.toContain(new URL(proxy.url).port);
    const row = await storedRow(botId);
    expect(row.proxy!.toString('latin1')).not.toContain('s3cret-pw');
    expect(box.open(row.proxy!, proxyAad(row.account_name!))).toBe(proxyUrl);
  });

  it('signs in with its credentials at the stand-in (steam-session), through its proxy', async () => {
    await platform.leaseTick();
    expect(platform.rotationOf(botId)?.rotation).toBe('in');
    // The whole credentials flow reached the stand-in, none of it the real hosts (no route out).
    expect(login.count('/api/IAuthenticationService/GetPasswordRSAPublicKey/v1/')).toBe(1);
    expect(login.count('/api/IAuthenticationService/BeginAuthSessionViaCredentials/v1/')).toBe(1);
    expect(login.count('/api/IAuthenticationService/UpdateAuthSessionWithSteamGuardCode/v1/')).toBe(1);
    expect(login.count('/api/IAuthenticationService/PollAuthSessionStatus/v1/')).toBeGreaterThanOrEqual(1);
    expect(login.count('/login/jwt/finalizelogin')).toBe(1);
    expect(login.count('/community/login/settoken')).toBe(1);
    // The refresh token it was given is stored sealed.
    const row = await storedRow(botId);
    expect(box.open(row.refresh_token!, refreshTokenAad(row.account_name!))).toBe(login.refreshTokens.get(fb().steamId));
    // Sign-in and trading calls went through the bot's proxy (its credentials accepted or not, the tunnels were its).
    expect(tunnelsTo(loginPort())).toBeGreaterThanOrEqual(5);
    expect(tunnelsTo(new URL(fake.url).port)).toBeGreaterThanOrEqual(1);
  });

  it('its session dies: the refresh token is renewed and a new web session made, at the stand-in, through the proxy', async () => {
    const firstToken = login.refreshTokens.get(fb().steamId)!;
    const before = { finalize: login.count('/login/jwt/finalizelogin'), tunnels: tunnelsTo(loginPort()), begin: login.count('/api/IAuthenticationService/BeginAuthSessionViaCredentials/v1/') };
    fake.expireSessionOf(fb());
    await platform.pollTick();
    await platform.pollTick();
    expect(platform.rotationOf(botId)?.rotation).toBe('in');
    expect(login.count('/api/IAuthenticationService/GenerateAccessTokenForApp/v1/')).toBe(1);
    const renewed = login.refreshTokens.get(fb().steamId)!;
    expect(renewed).not.toBe(firstToken);
    // The new web session came from the renewed token, with no new credentials sign-in.
    expect(login.count('/login/jwt/finalizelogin')).toBe(before.finalize + 1);
    expect(login.count('/api/IAuthenticationService/BeginAuthSessionViaCredentials/v1/')).toBe(before.begin);
    const row = await storedRow(botId);
    expect(box.open(row.refresh_token!, refreshTokenAad(row.account_name!))).toBe(renewed);
    expect(tunnelsTo(loginPort())).toBeGreaterThanOrEqual(before.tunnels + 3);
    // A signed-in call went through with the new session.
    expect((await gw.admin('GET', `/bots/${botId}`)).body.data).toMatchObject({ signed_in: true, proxy: 'set' });
    expect(refusedOut).toEqual([]);
  });

  it('the proxy can be replaced and cleared (null); a bad one is a 400', async () => {
    expect((await gw.admin('PATCH', `/bots/${botId}`, { proxy: 'gopher://x' })).status).toBe(400);
    const socks = await gw.admin('PATCH', `/bots/${botId}`, { proxy: 'socks5://user:pw@10.0.0.9:1080' });
    expect(socks.status).toBe(200);
    expect(socks.body.data.proxy).toBe('set');
    const row = await storedRow(botId);
    expect(box.open(row.proxy!, proxyAad(row.account_name!))).toBe('socks5://user:pw@10.0.0.9:1080');
    const cleared = await gw.admin('PATCH', `/bots/${botId}`, { proxy: null });
    expect(cleared.body.data.proxy).toBeNull();
    expect((await storedRow(botId)).proxy).toBeNull();
  });
});
