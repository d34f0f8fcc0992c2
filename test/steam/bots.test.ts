// Operator-managed bots: admin API and CLI, secrets encrypted at rest, leases between instances.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { createSecretBox, parseSecretsKey, secretsAad, SecretKeyError } from '../../src/platform/steam/secret-box.js';
import { acquireLeases, holdsLease, releaseLeases } from '../../src/platform/steam/bot-repo.js';

const exec = promisify(execFile);
const KEY = crypto.randomBytes(32).toString('base64');
const secret20 = () => crypto.randomBytes(20).toString('base64');
let gw: TestGateway;
let n = 0;
const newBot = (over: Record<string, unknown> = {}) => ({
  account_name: `bot_acct_${++n}`, password: 'hunter2-very-secret', shared_secret: secret20(), identity_secret: secret20(),
  platform_id: `765611980000000${String(n).padStart(2, '0')}`, ...over,
});

beforeAll(async () => {
  gw = await startTestGateway({ BOT_SECRETS_KEY: KEY, SANDBOX_CATALOGUE_SIZE: '0' }, { worker: false });
});
afterAll(async () => gw?.stop());

describe('secret box (AES-256-GCM)', () => {
  it('seals and opens, refuses another account, a tampered value and another key', () => {
    const box = createSecretBox(parseSecretsKey(KEY));
    const sealed = box.seal('s3cret', 'bot:a');
    expect(sealed.includes(Buffer.from('s3cret'))).toBe(false);
    expect(box.open(sealed, 'bot:a')).toBe('s3cret');
    expect(() => box.open(sealed, 'bot:b')).toThrow(SecretKeyError);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.open(tampered, 'bot:a')).toThrow(/does not decrypt/);
    expect(() => createSecretBox(crypto.randomBytes(32)).open(sealed, 'bot:a')).toThrow(SecretKeyError);
  });

  it('accepts 32 bytes as hex or base64 only', () => {
    expect(parseSecretsKey('ab'.repeat(32)).length).toBe(32);
    expect(parseSecretsKey(KEY).length).toBe(32);
    expect(() => parseSecretsKey('ab'.repeat(31))).toThrow(/32 bytes/);
    expect(() => parseSecretsKey(crypto.randomBytes(31).toString('base64'))).toThrow(/32 bytes/);
    expect(() => parseSecretsKey('not a key at all')).toThrow(/32 bytes/);
  });
});

describe('admin API /bots', () => {
  it('adds a bot: secrets encrypted in the row, never in a view', async () => {
    const input = newBot({ games: ['csgo', 'rust'], inventory_capacity: 900 });
    const res = await gw.admin('POST', '/bots', input);
    expect(res.status).toBe(201);
    const bot = res.body.data;
    expect(bot).toMatchObject({ account_name: input.account_name, platform_id: input.platform_id, status: 'active', games: ['csgo', 'rust'], inventory_capacity: 900, signed_in: false, lease_owner: null });
    expect(JSON.stringify(bot)).not.toMatch(/hunter2|secret"/);
    const row = await gw.ctx.db.selectFrom('bots').select(['secrets']).where('id', '=', bot.id).executeTakeFirstOrThrow();
    expect(row.secrets!.includes(Buffer.from('hunter2'))).toBe(false);
    const opened = JSON.parse(createSecretBox(parseSecretsKey(KEY)).open(row.secrets!, secretsAad(input.account_name)));
    expect(opened).toEqual({ password: input.password, shared_secret: input.shared_secret, identity_secret: input.identity_secret });
    const listed = await gw.admin('GET', '/bots');
    expect(listed.body.data.map((b: any) => b.id)).toContain(bot.id);
    expect(listed.body.data.every((b: any) => b.account_name)).toBe(true); // the sandbox's seeded bots are not operator bots
  });

  it('refuses bad fields one by one, and a duplicate account', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ shared_secret: 'x'.repeat(28) }, 'shared_secret'],
      [{ identity_secret: 'y'.repeat(28) }, 'identity_secret'],
      [{ platform_id: '12345678901234567' }, 'platform_id'],
      [{ account_name: 'bad name!' }, 'account_name'],
      [{ games: ['chess'] }, 'games'],
      [{ inventory_capacity: 0 }, 'inventory_capacity'],
      [{ inventory_capacity: 100_001 }, 'inventory_capacity'],
    ];
    for (const [over, field] of cases) {
      const res = await gw.admin('POST', '/bots', newBot(over));
      expect(res.status, field).toBe(400);
      expect(res.body.success).toBe(false);
      expect(JSON.stringify(res.body.data), field).toContain(field);
    }
    const ok = await gw.admin('POST', '/bots', newBot({ inventory_capacity: 100_000 }));
    expect(ok.status).toBe(201);
    const dup = await gw.admin('POST', '/bots', newBot({ account_name: ok.body.data.account_name.toUpperCase() }));
    expect(dup.status).toBe(400);
    expect(dup.body.data[0]).toMatchObject({ field: 'account_name', code: 'exist' });
  });

  it('disables, enables (clearing cannot_trade), removes (wiping secrets); unknown ids are 404', async () => {
    const id = (await gw.admin('POST', '/bots', newBot())).body.data.id;
    expect((await gw.admin('POST', `/bots/${id}/disable`)).body.data.status).toBe('disabled');
    await gw.ctx.db.updateTable('bots').set({ trade_state: 'cannot_trade', trade_state_reason: 'NewDevice' }).where('id', '=', id).execute();
    const enabled = await gw.admin('PATCH', `/bots/${id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ status: 'active', trade_state: 'ok', trade_state_reason: null });
    const removed = await gw.admin('DELETE', `/bots/${id}`);
    expect(removed.body.data.status).toBe('removed');
    const row = await gw.ctx.db.selectFrom('bots').select(['secrets', 'refresh_token', 'enabled']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ secrets: null, refresh_token: null, enabled: false });
    expect((await gw.admin('PATCH', `/bots/${id}`, { enabled: true })).status).toBe(404);
    expect((await gw.admin('GET', '/bots/999999')).status).toBe(404);
    expect((await gw.admin('GET', '/bots/1')).status).toBe(404); // a sandbox-seeded bot is not an operator bot
  });

  it('check needs a real platform', async () => {
    const id = (await gw.admin('POST', '/bots', newBot())).body.data.id;
    const res = await gw.admin('POST', `/bots/${id}/check`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/sandbox platform has no real bots/);
  });
});

describe('bot leases', () => {
  it('one instance per bot; the other takes over once the lease expires', async () => {
    const id = (await gw.admin('POST', '/bots', newBot())).body.data.id;
    const a = await acquireLeases(gw.ctx.db, 'instance-a', 2);
    expect(a).toContain(id);
    const b = await acquireLeases(gw.ctx.db, 'instance-b', 2);
    expect(b).not.toContain(id);
    expect(await holdsLease(gw.ctx.db, 'instance-a', id)).toBe(true);
    expect(await holdsLease(gw.ctx.db, 'instance-b', id)).toBe(false);
    // Instance A dies (no renewal): after the lease runs out B takes the bot.
    await new Promise((r) => setTimeout(r, 2100));
    expect(await holdsLease(gw.ctx.db, 'instance-a', id)).toBe(false);
    expect(await acquireLeases(gw.ctx.db, 'instance-b', 2)).toContain(id);
    expect(await acquireLeases(gw.ctx.db, 'instance-a', 2)).not.toContain(id);
    await releaseLeases(gw.ctx.db, 'instance-b');
    expect(await acquireLeases(gw.ctx.db, 'instance-a', 2)).toContain(id);
    await releaseLeases(gw.ctx.db, 'instance-a');
  });

  it('50 concurrent acquisitions by 2 instances never give one bot to both', async () => {
    await gw.admin('POST', '/bots', newBot());
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => acquireLeases(gw.ctx.db, `inst-${i % 2}`, 30).then((ids) => ({ owner: `inst-${i % 2}`, ids }))));
    const owners = new Map<number, Set<string>>();
    for (const r of results) for (const id of r.ids) owners.set(id, (owners.get(id) ?? new Set()).add(r.owner));
    expect(owners.size).toBeGreaterThan(0);
    for (const set of owners.values()) expect(set.size).toBe(1);
    await releaseLeases(gw.ctx.db, 'inst-0');
    await releaseLeases(gw.ctx.db, 'inst-1');
  });
});

describe('gateway bot CLI', () => {
  it('adds from a maFile and a password file, lists, disables and removes', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bot-cli-'));
    // As Steam Guard writes it: SteamID a bare number beyond 2^53 (JSON.parse would round it).
    const ma = `{"shared_secret":"${secret20()}","account_name":"cli_bot_one","identity_secret":"${secret20()}","Session":{"SteamID":76561198000000999}}`;
    await fs.writeFile(path.join(dir, 'bot.maFile'), ma);
    await fs.writeFile(path.join(dir, 'pw'), 'cli-password\n');
    const cli = async (...args: string[]) => {
      try {
        const r = await exec(process.execPath, ['bin/gateway.mjs', '--json', ...args], { env: { ...process.env, DATABASE_URL: gw.databaseUrl, LOG_LEVEL: 'silent', BOT_SECRETS_KEY: KEY, SANDBOX_CATALOGUE_SIZE: '0' } });
        return { code: 0, out: r.stdout, err: r.stderr };
      } catch (e: any) {
        return { code: e.code as number, out: e.stdout as string, err: e.stderr as string };
      }
    };
    const added = await cli('bot', 'add', '--mafile', path.join(dir, 'bot.maFile'), '--password-file', path.join(dir, 'pw'), '--game', 'csgo');
    expect(added.code, added.err).toBe(0);
    const bot = JSON.parse(added.out);
    expect(bot).toMatchObject({ account_name: 'cli_bot_one', platform_id: '76561198000000999', games: ['csgo'], status: 'active' });
    const row = await gw.ctx.db.selectFrom('bots').select('secrets').where('id', '=', bot.id).executeTakeFirstOrThrow();
    expect(JSON.parse(createSecretBox(parseSecretsKey(KEY)).open(row.secrets!, secretsAad('cli_bot_one'))).password).toBe('cli-password');
    expect(JSON.parse((await cli('bot', 'disable', String(bot.id))).out).status).toBe('disabled');
    expect((await gw.admin('GET', `/bots/${bot.id}`)).body.data.status).toBe('disabled');
    const missing = await cli('bot', 'show', '999999');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/not found/);
  }, 180_000);
});
