// A gateway with PLATFORM=steam against the fake platform, its bots added through the admin API.
import crypto from 'node:crypto';
import nock from 'nock';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { FakeSteam, type FakeBot } from './fake-steam.js';
import { steamTestPriceBook } from './test-price-book.js';
import type { SteamPlatform } from '../../src/platform/steam/steam-platform.js';

export const BOT_KEY = crypto.randomBytes(32).toString('base64');

/** No request may leave the machine: only the local fake platform (and the database) answer. */
export function offline(): void {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
}

export interface SteamWorld {
  fake: FakeSteam;
  gw: TestGateway;
  platform: SteamPlatform;
  bots: { fake: FakeBot; id: number }[];
  stop(): Promise<void>;
}

export async function startSteamWorld(opts: { bots?: number; env?: Record<string, string>; fake?: FakeSteam; databaseUrl?: string; worker?: boolean } = {}): Promise<SteamWorld> {
  const fake = opts.fake ?? (await new FakeSteam().start());
  const gw = await startTestGateway(
    { PLATFORM: 'steam', BOT_SECRETS_KEY: BOT_KEY, PRICE_BOOK: steamTestPriceBook(), SANDBOX_CATALOGUE_SIZE: '0', STEAM_CALL_TIMEOUT_MS: '3000', STEAM_BACKOFF_BASE_MS: '50', ...fake.env, ...opts.env },
    { worker: opts.worker ?? false, steamSessions: fake.sessions(), ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}) },
  );
  const platform = gw.ctx.platform as SteamPlatform;
  const bots: SteamWorld['bots'] = [];
  for (let i = 0; i < (opts.bots ?? 1); i++) {
    const n = fake.bots.size + 1;
    const fb = fake.addBot(`bot_${n}`, 900_000 + n);
    const res = await gw.admin('POST', '/bots', { account_name: fb.accountName, password: fb.password, shared_secret: fb.sharedSecret, identity_secret: fb.identitySecret, platform_id: fb.steamId });
    if (res.status !== 201) throw new Error(`bot add failed: ${JSON.stringify(res.body)}`);
    bots.push({ fake: fb, id: res.body.data.id });
  }
  return {
    fake, gw, platform, bots,
    async stop() {
      await gw.stop();
      if (!opts.fake) await fake.stop();
    },
  };
}

/** The usual start of a Steam test file: no network, a world whose bots are leased, one merchant
 *  (with `merchant` as its fields) and, when `topUp` is given, that much on its balance. */
export async function startSteamMerchantWorld(
  opts: Parameters<typeof startSteamWorld>[0] & { merchant?: Record<string, unknown>; topUp?: number } = {},
): Promise<{ w: SteamWorld; key: string; merchantId: number }> {
  offline();
  const w = await startSteamWorld(opts);
  await w.platform.leaseTick();
  const m = await w.gw.createMerchant(opts.merchant);
  if (opts.topUp) await w.gw.topUp(m.id, opts.topUp);
  return { w, key: m.api_key, merchantId: m.id };
}
