// `gateway doctor` as the operator runs it: a process against the gateway's database. A sandbox
// configuration exits 1 and lists what blocks going live; a steam configuration with everything an
// offline machine can give it (a bot signed in on the stand-in platform, a stand-in Skinport over
// local HTTP, an https PUBLIC_URL behind a named proxy, SMTP) exits 1 only for what the test cluster
// trades away (fsync and synchronous_commit off), and a copy of the bots' key in DATA_DIR is named.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../../src/cli/doctor.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from '../cli-run.js';
import { freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import { BOT_KEY, startSteamMerchantWorld, type SteamWorld } from '../steam/steam-helpers.js';

const exec = promisify(execFile);

/** Settings of the test process that must not leak into the doctor's view. */
const CLEAN = { ADMIN_TOKEN: '', PUBLIC_URL: '', TRUST_PROXY: '', PRICE_BOOK: '', PRICE_SKINPORT: '', PRICE_CSFLOAT_API_KEY: '', PRICE_STEAM_MARKET_URL: '', SMTP_URL: '', BOT_SECRETS_KEY: '', PLATFORM: '' };

let tmp: string;
let server: http.Server;
let feed: string;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-doctor-'));
  // A stand-in Skinport: two CS2 items listed a minute ago.
  server = http.createServer((req, res) => {
    const at = Math.floor(Date.now() / 1000) - 60;
    const app = new URL(req.url!, 'http://x').searchParams.get('app_id');
    const items = app !== '730' ? [] : [
      { market_hash_name: 'AK-47 | Redline (Minimal Wear)', currency: 'USD', suggested_price: 41.07, quantity: 40, updated_at: at },
      { market_hash_name: 'AWP | Asiimov (Field-Tested)', currency: 'USD', suggested_price: 102.33, quantity: 25, updated_at: at },
    ];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(items));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  feed = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/items?app_id=730&currency=USD`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await fs.rm(tmp, { recursive: true, force: true });
});

const byItem = (items: { item: string; status: string; detail: string; fix?: string }[]) => Object.fromEntries(items.map((i) => [i.item, i]));

describe('gateway doctor, a sandbox configuration', () => {
  let databaseUrl: string;
  let gw: TestGateway;
  beforeAll(async () => {
    databaseUrl = await freshDatabase();
    gw = await startTestGateway({}, { databaseUrl, worker: false });
  });
  afterAll(async () => gw?.stop());

  it('exits 1 and lists what blocks going live, each with what to do', async () => {
    const dataDir = path.join(tmp, 'sandbox');
    await fs.mkdir(dataDir);
    const r = await runCli(databaseUrl, ['doctor'], { ...CLEAN, DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.ok).toBe(false);
    const items = byItem(report.items);
    expect(items['platform']).toMatchObject({ status: 'wrong', detail: 'PLATFORM=sandbox: the simulator, no real trades' });
    expect(items['admin token']).toMatchObject({ status: 'missing', fix: expect.stringContaining('ADMIN_TOKEN') });
    expect(items['public URL']!.status).toBe('missing');
    expect(items['price sources']).toMatchObject({ status: 'missing', fix: expect.stringMatching(/PRICE_BOOK.*PRICE_SKINPORT.*PRICE_CSFLOAT_API_KEY/) });
    expect(items['bots']).toMatchObject({ status: 'missing', fix: expect.stringContaining('gateway bot add') });
    expect(items['bot secrets key']!.status).toBe('missing');
    expect(items['database']!.status).toBe('ok');
    expect(items['backups']).toMatchObject({ status: 'warn', fix: expect.stringContaining('pg_basebackup/WAL archiving') });
    expect(report.blocking).toBe(report.items.filter((i: { status: string }) => i.status === 'missing' || i.status === 'wrong').length);
    // The sandbox's own book is no live price source: it is not probed.
    expect(items['price source book']).toBeUndefined();
  }, CLI_TEST_TIMEOUT_MS);

  it('prints one aligned line per item and the verdict without --json', async () => {
    let out = '';
    let code = 0;
    try {
      out = (await exec(process.execPath, ['bin/gateway.mjs', 'doctor'], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...CLEAN, DATA_DIR: tmp } })).stdout;
    } catch (e: any) {
      code = e.code;
      out = e.stdout;
    }
    expect(code).toBe(1);
    const lines = out.trimEnd().split('\n');
    expect(lines).toContain('wrong   platform             PLATFORM=sandbox: the simulator, no real trades → set PLATFORM=steam (with BOT_SECRETS_KEY and a price source)');
    expect(lines.find((l) => l.startsWith('ok      database '))).toBe('ok      database             DATABASE_URL');
    expect(lines.at(-1)).toMatch(/^\d+ items block going live$/);
  }, CLI_TEST_TIMEOUT_MS);
});

describe('gateway doctor, a steam configuration as complete as it gets offline', () => {
  let w: SteamWorld;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ w } = await startSteamMerchantWorld());
    const dataDir = path.join(tmp, 'steam');
    await fs.mkdir(dataDir);
    env = {
      ...CLEAN,
      ...w.fake.env,
      PLATFORM: 'steam',
      BOT_SECRETS_KEY: BOT_KEY,
      PRICE_SKINPORT: feed,
      ADMIN_TOKEN: 'k'.repeat(40),
      PUBLIC_URL: 'https://gateway.example',
      TRUST_PROXY: '127.0.0.1',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      SMTP_FROM: 'Gateway <no-reply@gateway.example>',
      DATA_DIR: dataDir,
    };
  });
  afterAll(async () => w?.stop());

  it('passes every item it can; the test cluster\'s durability is the one block; warnings are shown, not counted', async () => {
    const r = await runCli(w.gw.databaseUrl, ['doctor'], env);
    const report = JSON.parse(r.out);
    const items = byItem(report.items);
    for (const name of ['settings', 'platform', 'admin token', 'public URL', 'trust proxy', 'database', 'bot secrets key', 'e-mail']) expect(items[name], name).toMatchObject({ status: 'ok' });
    expect(items['price source skinport']).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^PRICE_SKINPORT: 2 fresh prices of 2 \(csgo\), newest 6\d s old$/) });
    expect(items['price sources']).toMatchObject({ status: 'warn', fix: expect.stringContaining('PRICE_MIN_SOURCES=2') });
    expect(items['steam guard']!.status).toBe('warn');
    const botLine = report.items.find((i: { item: string }) => i.item.startsWith('bot bot_'));
    expect(botLine).toMatchObject({ status: 'ok', detail: 'signed in, trade protection acknowledged' });
    expect(items['backups']!.status).toBe('warn');
    expect(['ok', 'warn']).toContain(items['clock']!.status); // agreeing clocks; the NTP state is the machine's
    expect(items['database durability']).toMatchObject({ status: 'wrong', detail: expect.stringContaining('fsync=off, synchronous_commit=off, full_page_writes=on') });
    expect(report.items.filter((i: { status: string }) => i.status === 'missing' || i.status === 'wrong').map((i: { item: string }) => i.item)).toEqual(['database durability']);
    expect(r.code).toBe(1);
  }, CLI_TEST_TIMEOUT_MS);

  it('the bots\' key written in a file under DATA_DIR is wrong, naming the file', async () => {
    const file = path.join(env.DATA_DIR!, 'gateway.env');
    await fs.writeFile(file, `ADMIN_TOKEN=x\nBOT_SECRETS_KEY=${BOT_KEY}\n`);
    const items = byItem(await doctor({ ...env, DATABASE_URL: w.gw.databaseUrl, LOG_LEVEL: 'silent' }));
    expect(items['bot secrets key']).toMatchObject({ status: 'wrong', detail: expect.stringContaining(file) });
  }, CLI_TEST_TIMEOUT_MS);

  it('a short ADMIN_TOKEN is wrong on its own line, and the other items are still checked', async () => {
    const items = byItem(await doctor({ ...env, DATABASE_URL: w.gw.databaseUrl, LOG_LEVEL: 'silent', ADMIN_TOKEN: 'short' }));
    expect(items['admin token']).toMatchObject({ status: 'wrong', detail: expect.stringContaining('5 characters') });
    expect(items['price source skinport']!.status).toBe('ok');
    expect(items['database']!.status).toBe('ok');
  }, CLI_TEST_TIMEOUT_MS);

  it('a price source that does not answer is wrong', async () => {
    const items = byItem(await doctor({ ...env, DATABASE_URL: w.gw.databaseUrl, LOG_LEVEL: 'silent', PRICE_SKINPORT: 'http://127.0.0.1:9/v1/items?app_id=730&currency=USD' }));
    expect(items['price source skinport']).toMatchObject({ status: 'wrong', detail: expect.stringMatching(/^PRICE_SKINPORT: no answer: /) });
  }, CLI_TEST_TIMEOUT_MS);
});
