// The Python SDK (sdk/python, standard library only) against a live gateway: its operation table
// is what the served /openapi.json generates, its unit tests pass (python3 -m unittest), and
// tests/live_flow.py runs the full sandbox flow over real HTTP with its own webhook receiver.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { freePort } from '../webhooks/receiver.js';
import { generatePython, PYTHON_FILE } from '../../sdk/typescript/scripts/generate.js';

const run = promisify(execFile);
const SDK = path.resolve('sdk/python');

let gw: TestGateway;
let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
let port: number;

beforeAll(async () => {
  gw = await startTestGateway();
  port = await freePort();
  m = await gw.createMerchant({ name: 'Python SDK merchant', webhook_url: `http://127.0.0.1:${port}/hook` });
  await gw.topUp(m.id, 10_000);
});
afterAll(async () => gw?.stop());

describe('the Python SDK', () => {
  it('its operations.py is what the served /openapi.json generates (SDK_WRITE=1 rewrites it)', async () => {
    const doc = await (await fetch(`${gw.url}/openapi.json`)).json();
    const fresh = generatePython(doc);
    if (process.env.SDK_WRITE === '1') await fs.writeFile(PYTHON_FILE, fresh);
    expect(await fs.readFile(PYTHON_FILE, 'utf8')).toBe(fresh);
  });

  it('python3 -m unittest passes (no gateway needed)', async () => {
    // No __pycache__ left in the SDK's folder (test/sdk/python-sdk-install.test.ts compares its file list).
    const r = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], { cwd: SDK, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    expect(r.stderr).toMatch(/\nOK\s*$/);
    expect(r.stderr).toMatch(/Ran \d+ tests/);
  }, 120_000);

  it('runs the full sandbox flow against the live gateway', async () => {
    const r = await run('python3', [path.join(SDK, 'tests', 'live_flow.py')], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', GATEWAY_URL: gw.url, API_KEY: m.api_key, WEBHOOK_SECRET: m.webhook_secret, RECEIVER_PORT: String(port) },
      timeout: 240_000,
    });
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    // the bot id exactly as the gateway wrote it
    const raw = await (await fetch(`${gw.url}/api/v1/merchant/deposit/status?id=${out.deposit_id}`, { headers: { 'x-api-key': m.api_key } })).text();
    expect(out.bot_platform_id).toBe(/"bot_platform_id":(\d+)/.exec(raw)![1]);
    expect(out.conflict.status).toBe(409);
    expect(out.validation).toMatchObject({ status: 400, code: 'trade_link_invalid' });
    expect(out.validation.errors[0]).toMatchObject({ field: expect.any(String), code: 'trade_link_invalid', message: expect.any(String) });
    expect(out.webhook_id).toMatch(/^evt_\d+$/);
    expect(out.catalogue_items).toBeGreaterThan(0);
    const d = await gw.ctx.db.selectFrom('deposits').select(['status']).where('id', '=', out.hash_name_deposit_id).executeTakeFirstOrThrow();
    expect(d.status).toBe('active');
    // the retried purchase exists once
    const rows = await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', m.id).where('merchant_tx_id', '=', out.retried_purchase.merchant_tx_id).execute();
    expect(rows.map((x) => Number(x.id))).toEqual([out.retried_purchase.id]);
  }, 300_000);
});
