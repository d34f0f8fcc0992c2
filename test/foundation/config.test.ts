import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const KEY = 'ab'.repeat(32);
/** PLATFORM=steam starts only with a price source (test/foundation/config-price-sources.test.ts). */
const PRICED = { PRICE_SKINPORT: 'https://api.skinport.com/v1/items?app_id=730&currency=USD' };

describe('settings', () => {
  it('defaults follow DESIGN 4', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
    expect(c.platform).toBe('sandbox');
    expect(c.quoteTtlSeconds).toBe(300);
    expect(c.offerTtlSeconds).toBe(600);
    expect(c.holdSeconds).toEqual({ csgo: 604800, rust: 3600, dota2: 0, tf2: 0 });
    expect(c.depositTimeoutMs).toBe(10000);
    expect(c.webhookRetrySchedule).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(c.priceRefreshSeconds).toBe(600);
    expect(c.sandboxCatalogueSize).toBe(5000);
  });

  it('WEBHOOK_ALLOW_PRIVATE defaults on only in sandbox mode, and can be overridden', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: KEY, ...PRICED }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: KEY, ...PRICED, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
  });

  it('PLATFORM=steam: the CS2 hold outlasts the 7-day reversal window plus an hour to see it (default and floor); the sandbox keeps 7 days', () => {
    expect(loadConfig({}).holdSeconds.csgo).toBe(604800);
    expect(loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: KEY, ...PRICED }).holdSeconds.csgo).toBe(608400);
    expect(loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: KEY, ...PRICED, HOLD_SECONDS_CSGO: '608400' }).holdSeconds.csgo).toBe(608400);
    expect(() => loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: KEY, ...PRICED, HOLD_SECONDS_CSGO: '608399' })).toThrow(/HOLD_SECONDS_CSGO must be between 608400/);
    expect(loadConfig({ HOLD_SECONDS_CSGO: '1' }).holdSeconds.csgo).toBe(1);
  });

  it('PLATFORM=steam needs a well-formed BOT_SECRETS_KEY; the platform hosts are settings', () => {
    expect(() => loadConfig({ PLATFORM: 'steam' })).toThrow(/BOT_SECRETS_KEY is required/);
    expect(() => loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: 'short' })).toThrow(/32 bytes/);
    expect(() => loadConfig({ BOT_SECRETS_KEY: 'ab'.repeat(31) })).toThrow(/32 bytes/);
    expect(loadConfig({}).botSecretsKey).toBeUndefined();
    const c = loadConfig({ PLATFORM: 'steam', BOT_SECRETS_KEY: KEY, ...PRICED });
    expect(c.steam).toEqual({ communityUrl: 'https://steamcommunity.com', apiUrl: 'https://api.steampowered.com', loginApiUrl: 'https://api.steampowered.com', loginUrl: 'https://login.steampowered.com', pollIntervalMs: 30000, historyPollMs: 300000, leaseSeconds: 30, callTimeoutMs: 20000, backoffBaseMs: 1000, sendSettleMs: 120000, protectionWindowSeconds: 604800, protectionMarginSeconds: 3600 });
    expect(loadConfig({ STEAM_COMMUNITY_URL: 'http://127.0.0.1:9000/community/' }).steam.communityUrl).toBe('http://127.0.0.1:9000/community');
    expect(() => loadConfig({ STEAM_API_URL: 'ftp://x' })).toThrow(/STEAM_API_URL/);
    expect(loadConfig({ STEAM_LOGIN_API_URL: 'http://127.0.0.1:9001/api/', STEAM_LOGIN_URL: 'http://127.0.0.1:9001/login' }).steam).toMatchObject({ loginApiUrl: 'http://127.0.0.1:9001/api', loginUrl: 'http://127.0.0.1:9001/login' });
    expect(() => loadConfig({ STEAM_LOGIN_URL: 'ftp://x' })).toThrow(/STEAM_LOGIN_URL/);
    expect(() => loadConfig({ BOT_LEASE_SECONDS: '2' })).toThrow(/BOT_LEASE_SECONDS/);
  });

  it('SMTP: off by default; SMTP_URL smtp:// or smtps:// with SMTP_FROM; a bad value is refused without echoing the URL (it holds a password)', () => {
    expect(loadConfig({}).smtp).toBeUndefined();
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example:465', SMTP_FROM: 'Gateway <no-reply@example.com>' }).smtp).toEqual({ url: 'smtps://u:p@mail.example:465', from: 'Gateway <no-reply@example.com>', timeoutMs: 15_000 });
    expect(loadConfig({ SMTP_URL: 'smtp://mail.example:587', SMTP_FROM: 'no-reply@example.com', SMTP_TIMEOUT_MS: '100' }).smtp?.timeoutMs).toBe(100);
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example:587', SMTP_FROM: 'no-reply@example.com', SMTP_TIMEOUT_MS: '99' })).toThrow(/SMTP_TIMEOUT_MS/);
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example:587' })).toThrow(/SMTP_FROM/);
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example:587', SMTP_FROM: 'no address' })).toThrow(/SMTP_FROM/);
    for (const bad of ['https://user:s3cr3t-pw@mail.example', 'smtp//user:s3cr3t-pw@mail.example', 'smtp://user:s3cr3t-pw@']) {
      let message = '';
      try {
        loadConfig({ SMTP_URL: bad, SMTP_FROM: 'no-reply@example.com' });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message, bad).toMatch(/SMTP_URL/);
      expect(message, bad).not.toContain('s3cr3t-pw');
    }
  });

  it('TRUST_PROXY: off by default, true, or a list of proxies', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1,10.0.0.2' }).trustProxy).toBe('10.0.0.1,10.0.0.2');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PLATFORM', 'mars'],
    ['WEBHOOK_RETRY_SCHEDULE', '0,5,x'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['QUOTE_TTL_SECONDS', '0'],
    ['PUBLIC_URL', 'not a url'],
  ])('refuses %s=%s with a clear message', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
