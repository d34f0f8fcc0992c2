import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';

const exec = promisify(execFile);
let databaseUrl: string;
let gw: TestGateway;

beforeAll(async () => {
  databaseUrl = await freshDatabase();
  gw = await startTestGateway({}, { databaseUrl, worker: false });
});
afterAll(async () => gw?.stop());

async function cli(...args: string[]) {
  try {
    const r = await exec(process.execPath, ['bin/gateway.mjs', '--json', ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', SANDBOX_CATALOGUE_SIZE: '0' },
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e: any) {
    return { code: e.code as number, out: e.stdout as string, err: e.stderr as string };
  }
}

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
  }, 60_000);

  it('rotate-key invalidates the old key; errors exit non-zero with the message', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'rot')).out);
    const r = JSON.parse((await cli('merchant', 'rotate-key', String(m.id))).out);
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(r.api_key, 'GET', '/balance')).status).toBe(200);
    const missing = await cli('merchant', 'show', '999999');
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('not found error');
  }, 60_000);

  it('ledger verify exits 1 when a balance disagrees with its entries', async () => {
    const m = JSON.parse((await cli('merchant', 'create', '--name', 'bad books')).out);
    await sql`update balances set hold = hold + 5 where merchant_id = ${m.id}`.execute(gw.ctx.db);
    const verify = await cli('ledger', 'verify', '--merchant', String(m.id));
    expect(verify.code).toBe(1);
    expect(JSON.parse(verify.out).mismatches[0].merchant_id).toBe(m.id);
  }, 60_000);
});
