// The web forms follow the admin API's rules with clear 400s, never a 500 (issue 21): e-mail length
// on every invitation form, merchant names on the console, decimals decided on the text as typed;
// and a merchant's owner cannot learn which addresses have accounts elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, text, WebClient } from './web-client.js';

let gw: TestGateway;
let merchantId: number;
let operator: WebClient;
let owner: WebClient;
let seq = 0;
const email = (p = 'u') => `${p}${++seq}@forms.example`;
/** An address of exactly n characters. */
const longEmail = (n: number) => `${'a'.repeat(64)}@${'b'.repeat(n - 64 - 1 - 4)}.com`;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  merchantId = (await gw.createMerchant({ name: 'Forms' })).id;
  operator = await userOf(gw, null, email('ops'));
  owner = await userOf(gw, merchantId, email('owner'), 'owner');
});
afterAll(async () => gw?.stop());

describe('e-mail length on every invitation form (the admin API\'s limit: 254)', () => {
  it('team, console merchant and console operator invitations: 255 characters is a 400 form error, 254 works', async () => {
    expect(longEmail(254)).toHaveLength(254);
    const forms: [WebClient, string, string, Record<string, string>][] = [
      [owner, '/dashboard/team', '/dashboard/team/invite', { role: 'viewer' }],
      [operator, `/console/merchants/${merchantId}`, `/console/merchants/${merchantId}/invite`, { role: 'viewer' }],
      [operator, '/console/operators', '/console/operators/invite', {}],
    ];
    for (const [client, pagePath, action, extra] of forms) {
      await client.get(pagePath);
      const tooLong = await client.post(action, { email: longEmail(255), ...extra });
      expect(tooLong.status, action).toBe(400);
      expect(text(tooLong.body)).toContain('email may have at most 254 characters');
      await sql`delete from dashboard_invitations where user_id in (select id from dashboard_users where length(email) = 254)`.execute(gw.ctx.db);
      await sql`delete from dashboard_users where length(email) = 254`.execute(gw.ctx.db);
      await client.get(pagePath);
      expect((await client.post(action, { email: longEmail(254), ...extra })).status, action).toBe(200);
    }
    const api = await gw.admin('POST', `/merchants/${merchantId}/invitations`, { email: longEmail(255), role: 'viewer' });
    expect(api.status).toBe(400);
  });
});

describe('merchant names on the console (1 to 200 characters, not blank)', () => {
  it('create: blank, missing and 201 characters are 400 form errors; 200 works', async () => {
    for (const form of [{ name: '   ' }, {}, { name: 'x'.repeat(201) }] as Record<string, string>[]) {
      await operator.get('/console');
      const r = await operator.post('/console/merchants', form);
      expect(r.status, JSON.stringify(form)).toBe(400);
      expect(text(r.body)).toContain('name must have 1 to 200 characters');
    }
    await operator.get('/console');
    expect((await operator.post('/console/merchants', { name: 'y'.repeat(200) })).status).toBe(200);
  });

  it('settings: a name over 200 characters and a rate with more digits than a number keeps are 400s', async () => {
    const settings = (over: Record<string, string>) => ({ name: 'Forms', webhook_url: '', max_items: '50', deposit_multiplier: '1', purchase_markup: '1', enabled: 'on', ...over });
    await operator.get(`/console/merchants/${merchantId}`);
    expect((await operator.post(`/console/merchants/${merchantId}/settings`, settings({ name: 'z'.repeat(201) }))).status).toBe(400);
    await operator.get(`/console/merchants/${merchantId}`);
    const inexact = await operator.post(`/console/merchants/${merchantId}/settings`, settings({ purchase_markup: '1.0000000000000001' }));
    expect(inexact.status).toBe(400);
    expect(text(inexact.body)).toContain('purchase_markup must be a number');
    await operator.get(`/console/merchants/${merchantId}`);
    expect((await operator.post(`/console/merchants/${merchantId}/settings`, settings({ name: 'z'.repeat(200) }))).status).toBe(200);
  });
});

describe('amounts typed in forms are decided on their text', () => {
  it('console top-up and dashboard withdrawal: 1.0000000000000001 is refused, 1.5 works', async () => {
    await operator.get(`/console/merchants/${merchantId}`);
    const bad = await operator.post(`/console/merchants/${merchantId}/top-up`, { amount: '1.0000000000000001' });
    expect(bad.status).toBe(400);
    expect(text(bad.body)).toContain('more than 3 decimals');
    await operator.get(`/console/merchants/${merchantId}`);
    expect((await operator.post(`/console/merchants/${merchantId}/top-up`, { amount: '1.5' })).status).toBe(200);
    await owner.get('/dashboard/withdrawals');
    expect((await owner.post('/dashboard/withdrawals', { amount: '0.0009999999999999999999' })).status).toBe(400);
    await owner.get('/dashboard/withdrawals');
    expect((await owner.post('/dashboard/withdrawals', { amount: '0' })).status).toBe(400);
    await owner.get('/dashboard/withdrawals');
    expect((await owner.post('/dashboard/withdrawals', { amount: '1.5' })).status).toBe(200);
  });
});

describe('no e-mail enumeration through the team page', () => {
  it('an address with an account at another merchant gets the same answer as a new one; its link does not work; operators see the refusal', async () => {
    const elsewhere = email('elsewhere');
    const other = (await gw.createMerchant({ name: 'Other' })).id;
    await userOf(gw, other, elsewhere, 'viewer');
    const answer = async (address: string) => {
      await owner.get('/dashboard/team');
      const r = await owner.post('/dashboard/team/invite', { email: address, role: 'viewer' });
      const link = /(http[^"<\s]*\/dashboard\/invite\/[\w-]+)/.exec(r.body)?.[1];
      return { status: r.status, link, page: text(r.body).replace(/inv_[\w-]+/g, 'inv_…').replace(/valid until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/, 'valid until …').replace(new RegExp(address.replace(/[.@]/g, '\\$&'), 'g'), 'ADDRESS').replace(/fresh\d+/g, '') };
    };
    const fresh = await answer(email('fresh'));
    const taken = await answer(elsewhere);
    expect(taken.status).toBe(200);
    expect(fresh.status).toBe(200);
    expect(taken.link).toBeDefined();
    const onPage = (p: string) => p.slice(p.indexOf('Invitation link'), p.indexOf('Invitation link') + 120);
    expect(onPage(taken.page)).toBe(onPage(fresh.page));
    const opened = await new WebClient(gw).get(new URL(taken.link!).pathname);
    expect(opened.status).toBe(404);
    const refused = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'user_invite_refused' and merchant_id is null and detail->>'email' = ${elsewhere}`.execute(gw.ctx.db);
    expect(refused.rows[0].n).toBe(1);
    // operators still get the clear answer
    await operator.get(`/console/merchants/${merchantId}`);
    const clear = await operator.post(`/console/merchants/${merchantId}/invite`, { email: elsewhere, role: 'viewer' });
    expect(clear.status).toBe(400);
    expect(text(clear.body)).toContain('already has an account');
  });
});

describe('ledger CSV', () => {
  it('debits are numbers, not guarded text', async () => {
    await gw.topUp(merchantId, 10);
    expect((await gw.admin('POST', `/merchants/${merchantId}/withdrawals`, { amount: 2.513 })).status).toBe(201);
    const res = await owner.get('/dashboard/ledger.csv');
    expect(res.status).toBe(200);
    const debit = res.body.split('\r\n').find((l) => l.includes('"withdrawal"'))!;
    expect(debit).toContain(',-2.513,0,');
    expect(res.body).not.toContain("'-");
  });
});
