// `npm start` with PLATFORM=steam pointed at the stand-in platform, as a black box: the gateway runs
// as a child process (its own session provider: steam-session, which cannot reach any login host
// here), and its bot signs in over HTTP alone with a web session the operator stored at `bot add`.
// One deposit goes through that bot end to end.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, eventually, freshDatabase } from '../helpers.js';
import { FakeSteam, type FakeBot } from './fake-steam.js';
import { BOT_KEY } from './steam-helpers.js';
import { steamTestPriceBook } from './test-price-book.js';

const TOKEN = 'tok12345';
let fake: FakeSteam;
let bot: FakeBot;
let child: ChildProcess;
let output = '';
let base = '';
let dataDir = '';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function call(method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${url}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json()) as any };
}
const admin = (method: string, url: string, body?: unknown) => call(method, `/api/admin${url}`, { authorization: `Bearer ${ADMIN_TOKEN}` }, body);

beforeAll(async () => {
  fake = await new FakeSteam().start();
  bot = fake.addBot('bot_child', 910_001);
  const [databaseUrl, port] = await Promise.all([freshDatabase(), freePort()]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-child-'));
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'src/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      PLATFORM: 'steam',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      BOT_SECRETS_KEY: BOT_KEY,
      PRICE_BOOK: steamTestPriceBook(),
      LOG_LEVEL: 'warn',
      ...fake.env,
      STEAM_POLL_INTERVAL_MS: '1000',
      STEAM_HISTORY_POLL_MS: '1000',
      STEAM_CALL_TIMEOUT_MS: '3000',
      BOT_LEASE_SECONDS: '3',
      HOLD_SECONDS_RUST: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '3600',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}:\n${output}`);
    return fetch(`${base}/readyz`).then((r) => r.ok).catch(() => false);
  }, 240_000, 200); // a hang detector: at load 15 the tsx start passed 60 s
}); // the config's hookTimeout (300 s)

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await fake?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('npm start, PLATFORM=steam, a stand-in platform and a stored web session', () => {
  it('a bot added with web cookies signs in over HTTP alone and takes a deposit to completed', async () => {
    const { cookies } = fake.webCookies(bot);
    // Another account's session is refused before anything is stored.
    const other = fake.webCookies(fake.addBot('bot_other', 910_002)).cookies;
    const wrong = await admin('POST', '/bots', { account_name: bot.accountName, password: bot.password, shared_secret: bot.sharedSecret, identity_secret: bot.identitySecret, platform_id: bot.steamId, web_cookies: other, games: ['rust'] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.data).toEqual([{ field: 'web_cookies', code: 'denied', message: 'web_cookies: the session belongs to another account than platform_id' }]);

    const added = await admin('POST', '/bots', { account_name: bot.accountName, password: bot.password, shared_secret: bot.sharedSecret, identity_secret: bot.identitySecret, platform_id: bot.steamId, web_cookies: cookies, games: ['rust'] });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(JSON.stringify(added.body)).not.toContain(cookies[0]!.split('%7C%7C')[1]); // never shown back
    // Signed in through the stand-in: trade protection acknowledged there (POST to the community site).
    await eventually(async () => (await admin('GET', `/bots/${added.body.data.id}`)).body.data.trade_protection_acknowledged_at, 20_000, 250);
    expect(bot.acknowledged).toBe(true);

    const m = (await admin('POST', '/merchants', { name: 'Child process merchant' })).body.data;
    const key = { 'x-api-key': m.api_key as string };
    const partner = 41_000_001;
    fake.addUser({ partner, token: TOKEN, items: [{ assetid: '5400000001', classid: '4', name: 'Alien Red', appid: 252490 }] });
    const inv = await call('POST', '/api/v1/merchant/inventory', key, { game: 'rust', partner, token: TOKEN });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    expect(inv.body.data.items.map((i: any) => i.id)).toEqual(['5400000001']);
    const dep = await call('POST', '/api/v1/merchant/create-deposit', key, { merchant_tx_id: 'child-dep-1', game: 'rust', partner, token: TOKEN, asset_ids: ['5400000001'] });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    expect(dep.body.data.status).toBe('active');
    const offer = fake.offers.get(dep.body.data.trade_offer_id)!;
    expect(offer.bot).toBe(bot.steamId);
    expect(offer.receive.map((i) => i.assetid)).toEqual(['5400000001']);

    fake.accept(dep.body.data.trade_offer_id);
    const done = await eventually(async () => {
      const s = (await call('GET', `/api/v1/merchant/deposit/status?id=${dep.body.data.id}`, key)).body.data;
      return s.status === 'completed' ? s : undefined;
    }, 20_000, 250);
    expect(done.merchant_tx_id).toBe('child-dep-1');
    // The child's own sign-in provider was never needed, and no request went to a login host.
    expect(fake.signIns).toBe(0);
    expect(output).not.toMatch(/sign-in failed|sign-in timed out/);
  }, 60_000);
});
