import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { enqueueWebhook } from '../../src/modules/webhooks/outbox.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import { CLI_TEST_TIMEOUT_MS, runCli } from '../cli-run.js';

let databaseUrl: string;
let gw: TestGateway;

beforeAll(async () => {
  databaseUrl = await freshDatabase();
  gw = await startTestGateway({}, { databaseUrl, worker: false });
});
afterAll(async () => gw?.stop());

const cli = (...args: string[]) => runCli(databaseUrl, args);

describe('gateway CLI', () => {
  it('creates a merchant whose key works against the API, tops up, withdraws and verifies', async () => {
    const created = await cli('merchant', 'create', '--name', 'CLI shop', '--max-items', '7');
    expect(created.code).toBe(0);
    const m = JSON.parse(created.out);
    expect(m.max_items).toBe(7);
    expect(m.api_key).toMatch(/^sk_/);
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(200);

    expect((await cli('top-up', String(m.id), '12.5', '--reference', 'r1')).code).toBe(0);
    const w = JSON.parse((await cli('withdrawal', 'create', String(m.id), '2.5')).out);
    expect(w.status).toBe('pending');
    expect(JSON.parse((await cli('withdrawal', 'cancel', String(w.id))).out).status).toBe('canceled');
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available).toBe(12.5);

    const verify = await cli('ledger', 'verify');
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.out).ok).toBe(true);
  }, CLI_TEST_TIMEOUT_MS);

  it('rotate-key invalidates the old key; errors exit non-zero with the message', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'rot')).out);
    const r = JSON.parse((await cli('merchant', 'rotate-key', String(m.id))).out);
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(r.api_key, 'GET', '/balance')).status).toBe(200);
    const missing = await cli('merchant', 'show', '999999');
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('not found error');
  }, CLI_TEST_TIMEOUT_MS);

  it('ledger verify exits 1 when a balance disagrees with its entries', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'bad books')).out);
    await sql`update balances set hold = hold + 5 where merchant_id = ${m.id}`.execute(gw.ctx.db);
    const verify = await cli('ledger', 'verify', '--merchant', String(m.id));
    expect(verify.code).toBe(1);
    expect(JSON.parse(verify.out).mismatches[0].merchant_id).toBe(m.id);
  }, CLI_TEST_TIMEOUT_MS);

  it('merchant update and list, ledger list', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'upd')).out);
    const updated = JSON.parse((await cli('merchant', 'update', String(m.id), '--enabled', 'off', '--max-items', '3', '--purchase-markup', '1.1', '--frame-ancestor', 'https://shop.example', '--rate-limit', '1200')).out);
    expect(updated).toMatchObject({ enabled: false, max_items: 3, purchase_markup: 1.1, frame_ancestors: ['https://shop.example'], rate_limit_per_minute: 1200 });
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(403);
    const list = JSON.parse((await cli('merchant', 'list', '--limit', '500')).out);
    expect(list.some((x: any) => x.id === m.id && x.enabled === false)).toBe(true);
    await cli('top-up', String(m.id), '3');
    const entries = JSON.parse((await cli('ledger', 'list', String(m.id))).out);
    expect(entries[0]).toMatchObject({ kind: 'top_up', available_delta: 3 });
    expect(JSON.parse((await cli('merchant', 'update', String(m.id), '--rate-limit', 'default')).out).rate_limit_per_minute).toBeNull();
    const bad = await cli('merchant', 'update', String(m.id), '--enabled', 'perhaps');
    expect(bad.code).not.toBe(0);
  }, CLI_TEST_TIMEOUT_MS);

  it('webhook deliveries and redeliver', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'hooks', '--webhook-url', 'http://127.0.0.1:9/hook')).out);
    const eventId = await gw.ctx.db.transaction().execute((trx) =>
      enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId: 77, status: 'completed', payload: { status: 'completed', trade_id: 77, amount: 1 } }),
    );
    const deliveries = JSON.parse((await cli('webhook', 'deliveries', String(m.id))).out);
    expect(deliveries.map((d: any) => d.id)).toContain(eventId);
    const redelivered = await cli('webhook', 'redeliver', String(eventId));
    expect(redelivered.code).toBe(0);
    expect(JSON.parse(redelivered.out).id).toBe(eventId);
  }, CLI_TEST_TIMEOUT_MS);

  it('retention prune deletes what the retention job and the webhook prune would, delivered webhook events included', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'old hooks', '--webhook-url', 'http://127.0.0.1:9/hook')).out);
    const eventId = await gw.ctx.db.transaction().execute((trx) =>
      enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId: 78, status: 'completed', payload: { status: 'completed', trade_id: 78, amount: 1 } }),
    );
    await sql`update webhook_events set state = 'delivered', attempts = 1, delivered_at = now() - interval '31 days' where id = ${eventId}`.execute(gw.ctx.db);
    const pruned = await cli('retention', 'prune');
    expect(pruned.code).toBe(0);
    const run = JSON.parse(pruned.out);
    expect(run.deleted.webhook_delivered).toBe(1);
    expect((await sql`select 1 from webhook_events where id = ${eventId}`.execute(gw.ctx.db)).rows).toEqual([]);
  }, CLI_TEST_TIMEOUT_MS);

  it('catalogue import loads a listing file with progress on stderr and reports bad rows', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-import-'));
    const file = path.join(dir, 'listings.jsonl');
    const rows = Array.from({ length: 300 }, (_, i) => JSON.stringify({ id: (0xc0000000 + i).toString(16), game: 'rust', name: `CLI Imported ${i % 7}`, price: 1.5 }));
    rows.push(JSON.stringify({ id: 'Not-Hex', game: 'rust', name: 'bad', price: 1 }));
    await fs.writeFile(file, rows.join('\n'));
    const r = await cli('catalogue', 'import', file);
    expect(r.code).toBe(1); // one bad row
    const result = JSON.parse(r.out);
    expect(result).toMatchObject({ rows: 301, written: 300, skipped: 1 });
    expect(result.errors[0].line).toBe(301);
    expect(r.err).toContain('importing');
    const n = await gw.ctx.db.selectFrom('listings').select((eb) => eb.fn.countAll<number>().as('n')).where('name', 'like', 'CLI Imported%').executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(300);
    await fs.rm(dir, { recursive: true, force: true });
  }, CLI_TEST_TIMEOUT_MS);
});
