// The steps both SDK install tests (Python, TypeScript) share: a scratch folder, a sandbox gateway
// and a webhook receiver for the file; the README's one code block; the checks on the README
// example's first run (the deposit it made, every digit of its 64-bit id, the catalogue's 304); and
// a real completed-deposit delivery written to the example's folder for its webhook handler.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

export interface InstallSandbox {
  /** A scratch folder, removed after the file's tests. */
  tmp: string;
  gw: TestGateway;
  rx: Receiver;
}

/** Registers the file's beforeAll/afterAll: a scratch folder named `${prefix}…`, a receiver, a sandbox gateway. */
export function useInstallSandbox(prefix: string): InstallSandbox {
  const s = {} as InstallSandbox;
  beforeAll(async () => {
    s.tmp = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
    s.rx = await startReceiver();
    s.gw = await startTestGateway();
  });
  afterAll(async () => {
    await s.gw?.stop();
    await s.rx?.close();
    if (s.tmp) await fs.rm(s.tmp, { recursive: true, force: true });
  });
  return s;
}

/** The README's one ```lang block, as written. */
export async function readmeExample(sdkDir: string, lang: string): Promise<string> {
  const readme = await fs.readFile(path.join(sdkDir, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

/**
 * The README example's first run printed `deposit <id> <bot_platform_id>` for the deposit it made
 * (merchant_tx_id order-1) and `catalogue <fresh> <count>` with the second read of page 1 a 304
 * (`notFresh`: the language's false). Returns the deposit's id.
 */
export async function expectFirstRun(gw: TestGateway, m: { id: number; api_key: string }, first: { stdout: string; stderr: string }, notFresh: string): Promise<number> {
  const dep = /^deposit (\d+) (\d+)$/m.exec(first.stdout);
  expect(dep, first.stdout + first.stderr).not.toBeNull();
  const row = await gw.ctx.db.selectFrom('deposits').select(['id', 'merchant_tx_id']).where('merchant_id', '=', m.id).executeTakeFirstOrThrow();
  expect({ id: Number(row.id), tx: row.merchant_tx_id }).toEqual({ id: Number(dep![1]), tx: 'order-1' });
  const raw = await (await fetch(`${gw.url}/api/v1/merchant/deposit/status?id=${dep![1]}`, { headers: { 'x-api-key': m.api_key } })).text();
  expect(dep![2]).toBe(/"bot_platform_id":(\d+)/.exec(raw)![1]); // every digit of the 64-bit id
  const cat = /^catalogue (\w+) (\d+)$/m.exec(first.stdout);
  expect(cat![1]).toBe(notFresh); // the second read of page 1 was a 304
  expect(Number(cat![2])).toBeGreaterThan(0);
  return Number(dep![1]);
}

/** The sandbox completes deposit `depositId`; its webhook delivery (raw body, headers) is written to `<app>/delivery.json`. */
export async function writeCompletedDelivery(s: InstallSandbox, apiKey: string, depositId: number, app: string): Promise<void> {
  const accepted = await s.gw.merchant(apiKey, 'POST', `/sandbox/deposit/${depositId}/accept`, { hold: false });
  expect(accepted.status).toBe(200);
  const delivered = await eventually(async () => s.rx.received.find((r) => r.body?.trade_id === depositId && r.body?.status === 'completed'), 30_000);
  await fs.writeFile(path.join(app, 'delivery.json'), JSON.stringify({ raw: delivered.raw, headers: delivered.headers }));
}
