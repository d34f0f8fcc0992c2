// The console's reconciliation page (issue 20, point 7): the latest run with each discrepancy and
// what to do, "Run now" CSRF-protected and audited, and operators only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, type WebClient } from './web-client.js';

let gw: TestGateway;
let operator: WebClient;
let owner: WebClient;

beforeAll(async () => {
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0' }, { worker: false });
  const m = await gw.createMerchant({ name: 'Reconcile page shop' });
  [operator, owner] = await Promise.all([userOf(gw, null, 'op@reconcile.example'), userOf(gw, m.id, 'owner@reconcile.example')]);
});
afterAll(async () => gw?.stop());

describe('console reconciliation page', () => {
  it('before any run it says so; "Run now" runs one (audited) and the page lists each discrepancy with what to do', async () => {
    const first = await operator.get('/console/reconciliation');
    expect(first.status).toBe(200);
    expect(first.body).toContain('No reconciliation has run yet');
    expect(first.body).toContain('href="/console/reconciliation"');
    const bot = Number((await gw.ctx.db.selectFrom('bots').select('id').orderBy('id').executeTakeFirstOrThrow()).id);
    await sql`insert into sandbox_trades (trade_offer_id, offer_kind, record_id, bot_id) values ('page-1', 'deposit', 424242, ${bot})`.execute(gw.ctx.db);
    const forged = await operator.post('/console/reconciliation/run', { _csrf: 'forged' });
    expect(forged.status).toBe(403);
    await operator.get('/console/reconciliation');
    const ran = await operator.post('/console/reconciliation/run');
    expect(ran.status).toBe(303);
    const page = (await operator.get('/console/reconciliation')).body;
    expect(page).toContain('trade_without_record');
    expect(page).toContain('deposit 424242');
    expect(page).toContain('Check the account');
    const audit = await gw.ctx.db.selectFrom('audit_log' as any).select(['action' as any]).where('action' as any, '=', 'reconciliation_run').execute();
    expect(audit.length).toBe(1);
  });

  it('merchant users cannot reach it', async () => {
    const r = await owner.get('/console/reconciliation');
    expect([403, 404]).toContain(r.status);
  });
});
