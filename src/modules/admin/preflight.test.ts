import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { adminTokenItem, backupItem, blocks, botItems, clockItem, durabilityItem, exitCodeOf, formatPreflight, preflight, priceItems, publicUrlItem, trustProxyItem, type BotFact, type PreflightFacts } from './preflight.js';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const LIVE = { PLATFORM: 'steam', BOT_SECRETS_KEY: 'ab'.repeat(32), PRICE_SKINPORT: 'https://api.skinport.com/v1/items?app_id=730&currency=USD' };
const facts = (env: Record<string, string>, more: Partial<PreflightFacts> = {}): PreflightFacts => ({ now: NOW, env, config: loadConfig(env, { priceSources: false }), ...more });
const bot = (over: Partial<BotFact> = {}): BotFact => ({
  id: 1, name: 'bot_1', enabled: true, status: 'active', signed_in: true, last_authenticated_at: '2026-12-06T11:59:00.000Z',
  session_error: null, trade_state_reason: null, trade_protection_acknowledged_at: '2026-12-01T00:00:00.000Z', ...over,
});

describe('preflight rules', () => {
  it('operator token: unset is missing, under 32 characters wrong, 32 ok', () => {
    expect(adminTokenItem(undefined).status).toBe('missing');
    expect(adminTokenItem('x'.repeat(31))).toMatchObject({ status: 'wrong', detail: expect.stringContaining('31 characters') });
    expect(adminTokenItem('x'.repeat(32)).status).toBe('ok');
  });

  it('PUBLIC_URL must be https; TRUST_PROXY is required behind the https proxy, a warning when it trusts everyone', () => {
    expect(publicUrlItem(undefined).status).toBe('missing');
    expect(publicUrlItem('http://gw.example').status).toBe('wrong');
    expect(publicUrlItem('https://gw.example').status).toBe('ok');
    expect(trustProxyItem(undefined, 'https://gw.example').status).toBe('missing');
    expect(trustProxyItem('false', 'https://gw.example').status).toBe('missing');
    expect(trustProxyItem(undefined, 'http://127.0.0.1:8080').status).toBe('warn');
    expect(trustProxyItem('true', 'https://gw.example').status).toBe('warn');
    expect(trustProxyItem('10.0.0.0/8', 'https://gw.example')).toMatchObject({ status: 'ok', detail: 'TRUST_PROXY=10.0.0.0/8' });
  });

  it('price sources: none, failing, stale and answering; the guard failing only warns; one source warns', () => {
    const probe = { id: 'skinport', setting: 'PRICE_SKINPORT', role: 'market' as const, readings: 10, fresh: 10, newestAsOf: NOW - 60_000, games: ['csgo'] };
    const byItem = (f: PreflightFacts) => Object.fromEntries(priceItems(f).map((i) => [i.item, i]));
    const none = byItem(facts({ PLATFORM: 'steam', BOT_SECRETS_KEY: 'ab'.repeat(32) }, { pricingProblem: 'PLATFORM=steam needs a price source and none is set: set one or more of PRICE_BOOK', prices: [] }));
    expect(none['price sources']).toMatchObject({ status: 'missing', detail: 'PLATFORM=steam needs a price source and none is set' });
    const one = byItem(facts(LIVE, { prices: [probe] }));
    expect(one['price sources']!.status).toBe('warn');
    expect(one['price source skinport']).toMatchObject({ status: 'ok', detail: 'PRICE_SKINPORT: 10 fresh prices of 10 (csgo), newest 60 s old' });
    expect(one['steam guard']!.status).toBe('warn');
    expect(byItem(facts(LIVE, { prices: [{ ...probe, error: 'HTTP 503' }] }))['price source skinport']).toMatchObject({ status: 'wrong', detail: 'PRICE_SKINPORT: no answer: HTTP 503' });
    expect(byItem(facts(LIVE, { prices: [{ ...probe, fresh: 0, newestAsOf: NOW - 3 * 86_400_000 }] }))['price source skinport']).toMatchObject({ status: 'wrong', detail: expect.stringContaining('none fresh (newest 3 days old') });
    expect(byItem(facts(LIVE, { prices: [{ ...probe, readings: 0, fresh: 0, newestAsOf: undefined }] }))['price source skinport']!.status).toBe('wrong');
    const guarded = { ...LIVE, PRICE_STEAM_MARKET_URL: 'https://steamcommunity.com/market/priceoverview/' };
    expect(byItem(facts(guarded, { prices: [probe, { ...probe, id: 'steam', setting: 'PRICE_STEAM_MARKET_URL', role: 'guard', error: 'HTTP 429' }] }))['price source steam']!.status).toBe('warn');
    expect(byItem(facts(LIVE, { prices: [probe], priceBookIsSandboxCopy: true }))['price sources']!.status).toBe('wrong');
  });

  it('bots: none is missing; not acknowledged, never signed in or unable to trade is wrong; no live session now only warns', () => {
    expect(botItems([])[0]).toMatchObject({ item: 'bots', status: 'missing' });
    expect(botItems([bot({ status: 'removed' })])[0]!.status).toBe('missing');
    expect(botItems([bot()])[0]).toMatchObject({ item: 'bot bot_1 (#1)', status: 'ok' });
    expect(botItems([bot({ trade_protection_acknowledged_at: null })])[0]).toMatchObject({ status: 'wrong', fix: expect.stringContaining('gateway bot check 1') });
    expect(botItems([bot({ signed_in: false, last_authenticated_at: null })])[0]).toMatchObject({ status: 'wrong', detail: 'never signed in' });
    expect(botItems([bot({ signed_in: false, session_error: 'InvalidPassword' })])[0]).toMatchObject({ status: 'wrong', detail: 'not signed in: InvalidPassword' });
    expect(botItems([bot({ status: 'cannot_trade', trade_state_reason: 'NewDevice' })])[0]!.status).toBe('wrong');
    expect(botItems([bot({ signed_in: false })])[0]!.status).toBe('warn');
    expect(botItems([bot({ enabled: false, status: 'disabled' })]).map((i) => i.status)).toEqual(['missing', 'warn']);
  });

  it('backups: an external database only warns; none recorded is missing; old, gone or cut short is wrong', () => {
    const last = { at: new Date(NOW - 3 * 3_600_000).toISOString(), path: '/backups/gw-1.dump', bytes: 1234 };
    expect(backupItem(facts({ ...LIVE, DATABASE_URL: 'postgres://db/gw' }))).toMatchObject({ status: 'warn', fix: expect.stringContaining('pg_basebackup/WAL archiving') });
    expect(backupItem(facts(LIVE, { backup: {} }))!.status).toBe('missing');
    expect(backupItem(facts(LIVE, { backup: { last, fileBytes: 1234 } }))).toMatchObject({ status: 'ok', detail: 'last backup 3 h ago: /backups/gw-1.dump (1234 bytes)' });
    expect(backupItem(facts(LIVE, { backup: { last: { ...last, at: new Date(NOW - 27 * 3_600_000).toISOString() }, fileBytes: 1234 } }))!.status).toBe('wrong');
    expect(backupItem(facts(LIVE, { backup: { last, fileBytes: null } }))!.status).toBe('wrong');
    expect(backupItem(facts(LIVE, { backup: { last, fileBytes: 1000 } }))!.status).toBe('wrong');
    expect(backupItem(facts(LIVE, { backup: { unreadable: 'Unexpected token' } }))!.status).toBe('wrong');
  });

  it('durability: any of fsync, synchronous_commit, full_page_writes off is wrong; synchronous_commit local or remote_apply is fine', () => {
    expect(durabilityItem({ fsync: 'on', synchronous_commit: 'remote_apply', full_page_writes: 'on' })!.status).toBe('ok');
    expect(durabilityItem({ fsync: 'on', synchronous_commit: 'local', full_page_writes: 'on' })!.status).toBe('ok');
    expect(durabilityItem({ fsync: 'off', synchronous_commit: 'on', full_page_writes: 'on' })).toMatchObject({ status: 'wrong', fix: "set fsync=on on the gateway's PostgreSQL" });
    expect(durabilityItem({ fsync: 'on', synchronous_commit: 'off', full_page_writes: 'off' })!.fix).toBe("set synchronous_commit=on, full_page_writes=on on the gateway's PostgreSQL");
  });

  it('clock: beyond a second (plus half the round trip) is wrong; NTP not synchronised warns; no timedatectl is no failure', () => {
    expect(clockItem({ offsetMs: 5000, rttMs: 2 }, true)).toMatchObject({ status: 'wrong', detail: expect.stringContaining('5.0 s ahead of') });
    expect(clockItem({ offsetMs: -1500, rttMs: 2 }, undefined)!.detail).toContain('behind');
    expect(clockItem({ offsetMs: 1500, rttMs: 2000 }, true)!.status).toBe('ok');
    expect(clockItem({ offsetMs: 3, rttMs: 1 }, false)!.status).toBe('warn');
    expect(clockItem({ offsetMs: 3, rttMs: 1 }, undefined)).toMatchObject({ status: 'ok', detail: expect.stringContaining('NTP state unknown') });
  });

  it('a configuration that does not load is one wrong item; warnings alone exit 0; the lines are aligned with a verdict', () => {
    const broken = preflight({ now: NOW, env: { PORT: 'x' }, settingsError: 'PORT must be an integer, got "x"' });
    expect(broken[0]).toMatchObject({ item: 'settings', status: 'wrong' });
    expect(exitCodeOf(broken)).toBe(1);
    const warnings = [{ item: 'e-mail', status: 'warn' as const, detail: 'd', fix: 'f' }, { item: 'admin token', status: 'ok' as const, detail: 'set' }];
    expect(warnings.some(blocks)).toBe(false);
    expect(exitCodeOf(warnings)).toBe(0);
    expect(formatPreflight(warnings).split('\n')).toEqual(['warn    e-mail       d → f', 'ok      admin token  set', 'nothing blocks going live (1 warning)']);
  });
});
