// An owner learns from no page whether an address has an account outside the team: inviting another
// merchant's user, an operator and a new address gives the same answers, the team page lists all
// three as invited in the same way, the owner's audit log reads the same, and what an owner can do
// with a pending user (disable, enable, a reset link, invite again) answers the same. The invitation
// of an address with an account elsewhere is recorded and can never be accepted; that account is
// untouched (docs/decisions/invitation-of-an-address-elsewhere.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { WebClient, text, userOf } from './web-client.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

const PASSWORD = 'correct horse battery';
let seq = 0;
const email = (p: string) => `${p}${++seq}@privacy.example`;

const idOf = async (gw: TestGateway, merchantId: number, e: string) =>
  Number((await sql<{ id: number }>`select id from dashboard_users where merchant_id = ${merchantId} and email = ${e}`.execute(gw.ctx.db)).rows[0]?.id ?? 0); // 0: not on the team

/** The team table's row of an address, with the address and the user id taken out. */
function teamRow(body: string, address: string, id: number): string {
  const rows = body.match(/<tr>[\s\S]*?<\/tr>/g) ?? [];
  const row = rows.find((r) => r.includes(`>${address}<`));
  if (!row) return '(not listed)';
  return row.split(address).join('ADDRESS').split(`/dashboard/team/${id}/`).join('/dashboard/team/ID/');
}

/** A page's text with the address and the one-time parts taken out. */
const same = (body: string, address: string) =>
  text(body).split(address).join('ADDRESS').replace(/inv_[\w-]+/g, 'inv_…').replace(/valid until [^—]*? UTC/g, 'valid until …');

describe('without e-mail (links shown to the owner)', () => {
  let gw: TestGateway;
  let a: number;
  let owner: WebClient;
  let dev1: string;
  let ops: string;

  beforeAll(async () => {
    gw = await startTestGateway({}, { worker: false });
    a = (await gw.createMerchant({ name: 'Team A' })).id;
    const b = (await gw.createMerchant({ name: 'Team B' })).id;
    owner = await userOf(gw, a, email('owner'));
    dev1 = email('dev1');
    ops = email('ops');
    await userOf(gw, b, dev1, 'developer');
    await userOf(gw, null, ops);
  }, 60_000);
  afterAll(async () => gw?.stop());

  it('another merchant\'s user, an operator and a new address: the same answer, all three listed as invited in the same way, the same audit entries', async () => {
    const fresh = email('new');
    const addresses = [dev1, ops, fresh];
    const answers: string[] = [];
    for (const address of addresses) {
      await owner.get('/dashboard/team');
      const r = await owner.post('/dashboard/team/invite', { email: address, role: 'viewer' });
      expect(r.status).toBe(200);
      answers.push(same(r.body.slice(0, r.body.indexOf('<table')), address));
    }
    expect(answers[0]).toBe(answers[2]);
    expect(answers[1]).toBe(answers[2]);

    const team = await owner.get('/dashboard/team');
    const rows = await Promise.all(addresses.map(async (x) => teamRow(team.body, x, await idOf(gw, a, x))));
    expect(rows[2]).toContain('invited');
    expect(rows[0]).toBe(rows[2]);
    expect(rows[1]).toBe(rows[2]);

    const audit = await owner.get('/dashboard/audit');
    const entries = addresses.map((x) => (audit.body.match(/<tr>[\s\S]*?<\/tr>/g) ?? []).filter((r) => r.includes(x)).map((r) => same(r, x).replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?( UTC)?/g, 'WHEN')));
    expect(entries[2].length).toBeGreaterThan(0);
    expect(entries[0]).toEqual(entries[2]);
    expect(entries[1]).toEqual(entries[2]);
  });

  it('what an owner can do with them answers the same: a reset link, disable, enable, invite again', async () => {
    const fresh = email('new');
    const addresses = [dev1, ops, fresh];
    for (const address of addresses) {
      await owner.get('/dashboard/team');
      expect((await owner.post('/dashboard/team/invite', { email: address, role: 'developer' })).status).toBe(200);
    }
    const outcomes: string[][] = [];
    for (const address of addresses) {
      const id = await idOf(gw, a, address);
      const seen: string[] = [];
      await owner.get('/dashboard/team');
      const reset = await owner.post(`/dashboard/team/${id}/password-reset`);
      seen.push(`${reset.status} ${same(reset.body, address)}`);
      for (const action of ['disable', 'enable']) {
        await owner.get('/dashboard/team');
        const r = await owner.post(`/dashboard/team/${id}/${action}`);
        seen.push(`${r.status} ${r.location}`);
      }
      await owner.get('/dashboard/team');
      const again = await owner.post('/dashboard/team/invite', { email: address, role: 'developer' });
      seen.push(`${again.status} ${same(again.body.slice(0, again.body.indexOf('<table')), address)}`);
      outcomes.push(seen);
    }
    expect(outcomes[2][0]).toMatch(/^400 /);
    expect(outcomes[0]).toEqual(outcomes[2]);
    expect(outcomes[1]).toEqual(outcomes[2]);
    // invited again: still one row each
    const n = await sql<{ email: string; n: number }>`select lower(email) as email, count(*)::int as n from dashboard_users where merchant_id = ${a} group by 1`.execute(gw.ctx.db);
    for (const address of addresses) expect(n.rows.find((r) => r.email === address)?.n).toBe(1);
  });

  it('the accounts elsewhere are untouched: they sign in as before; the invitation cannot be accepted; operators see why', async () => {
    expect((await new WebClient(gw).signIn(dev1, PASSWORD)).status).toBe(303);
    const opSecret = (await sql<{ totp_secret: string }>`select totp_secret from dashboard_users where email = ${ops} and not account_elsewhere`.execute(gw.ctx.db)).rows[0].totp_secret;
    expect((await new WebClient(gw).signIn(ops, PASSWORD, opSecret)).status).toBe(303);
    await owner.get('/dashboard/team');
    const r = await owner.post('/dashboard/team/invite', { email: dev1, role: 'viewer' });
    const link = /(http[^"<\s]*\/dashboard\/invite\/[\w-]+)/.exec(r.body)?.[1];
    expect(link).toBeDefined();
    const c = new WebClient(gw);
    expect((await c.get(new URL(link!).pathname)).status).toBe(404);
    const refused = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'user_invite_refused' and merchant_id is null and detail->>'email' = ${dev1}`.execute(gw.ctx.db);
    expect(refused.rows[0].n).toBeGreaterThan(0);
    // dev1's own account at B keeps its role and password
    const own = (await sql<{ role: string; merchant_id: number; active: boolean }>`select role, merchant_id, password_hash is not null as active from dashboard_users where email = ${dev1} and not account_elsewhere`.execute(gw.ctx.db)).rows;
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ role: 'developer', active: true });
    expect(Number(own[0].merchant_id)).not.toBe(a);
  });
});

describe('with e-mail', () => {
  let gw: TestGateway;
  let rx: SmtpReceiver;
  let a: number;
  let owner: WebClient;
  let dev1: string;

  beforeAll(async () => {
    rx = await startSmtpReceiver();
    gw = await startTestGateway({ SMTP_URL: rx.url, SMTP_FROM: 'no-reply@gateway.example' });
    a = (await gw.createMerchant({ name: 'Mail A' })).id;
    const b = (await gw.createMerchant({ name: 'Mail B' })).id;
    owner = await userOf(gw, a, email('owner'));
    dev1 = email('dev1');
    await userOf(gw, b, dev1, 'developer');
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await rx?.close();
  });

  it('the same "sent to" answer; the address with an account elsewhere is told so by e-mail, with no link; the new one gets its link', async () => {
    const fresh = email('new');
    const answers: string[] = [];
    for (const address of [dev1, fresh]) {
      await owner.get('/dashboard/team');
      const r = await owner.post('/dashboard/team/invite', { email: address, role: 'viewer' });
      expect(r.status).toBe(200);
      answers.push(same(r.body.slice(0, r.body.indexOf('<table')), address));
    }
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toContain('An invitation was sent to ADDRESS');
    const mailOf = (to: string) => eventually(async () => rx.mails.find((m) => m.to.includes(to)), 30_000);
    const [elsewhere, invited] = await Promise.all([mailOf(dev1), mailOf(fresh)]);
    expect(invited.link).toMatch(/\/dashboard\/invite\/inv_/);
    expect(elsewhere.link).toBeUndefined();
    expect(elsewhere.text).toContain('already has an account');
    expect(elsewhere.subject).toBe(invited.subject);
    // the owner's audit log: a mail_sent entry for each, alike
    await eventually(async () => {
      const r = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'mail_sent' and merchant_id = ${a} and detail->>'kind' = 'invitation' and detail->>'email' in (${dev1}, ${fresh})`.execute(gw.ctx.db);
      return r.rows[0].n === 2;
    }, 30_000);
  });
});
