// Password reset links (issue 24): an owner or an operator issues a one-time link; only its hash is
// stored; it works once, ends with a newer link or its time, is never logged; merchant isolation.
// The second factor: operators always sign in with an authenticator (one without is sent to set it
// up); an owner may require one of the team.
import { Writable } from 'node:stream';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { setUpTotp, text, userOf, WebClient } from './web-client.js';
import { sha256Hex } from '../../src/domain/secrets.js';
import { maskTokens } from '../../src/http/access-log.js';

let gw: TestGateway;
let log = '';
let a: Awaited<ReturnType<TestGateway['createMerchant']>>;
let b: Awaited<ReturnType<TestGateway['createMerchant']>>;
let owner: WebClient;
let ownerB: WebClient;
let operator: WebClient;
let seq = 0;
const email = (p = 'u') => `${p}${++seq}@reset.example`;
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

const userId = async (e: string) => Number((await sql<{ id: number }>`select id from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0].id);
const linkOf = (body: string) => /id="secret-value">([^<]+)</.exec(body)?.[1] ?? '';
const audit = async (action: string) => (await sql<{ actor: string; detail: Record<string, unknown> }>`select actor, detail from audit_log where action = ${action} order by id`.execute(gw.ctx.db)).rows;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      log += String(chunk);
      cb();
    },
  });
  gw = await startTestGateway({ LOG_REQUESTS: 'all' }, { logger: pino({ level: 'trace' }, sink), worker: false });
  a = await gw.createMerchant({ name: 'Reset A' });
  b = await gw.createMerchant({ name: 'Reset B' });
  [owner, ownerB, operator] = await Promise.all([userOf(gw, a.id, email('owner')), userOf(gw, b.id, email('ownerb')), userOf(gw, null, email('op'))]);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

/** Opens a reset link in a fresh browser and sets the password. */
async function useLink(url: string, password = NEW_PASSWORD) {
  const path = new URL(url).pathname;
  const c = new WebClient(gw);
  const page = await c.get(path);
  if (page.status !== 200) return page;
  return c.post(path, { password, password2: password });
}

describe('password reset links', () => {
  it('an owner issues one for a team member: shown once, stored hashed, works once, ends the sessions, never logged', async () => {
    const e = email('dev');
    const dev = await userOf(gw, a.id, e, 'developer');
    await owner.get('/dashboard/team');
    const issued = await owner.post(`/dashboard/team/${await userId(e)}/password-reset`);
    expect(issued.status).toBe(200);
    expect(text(issued.body)).toContain(`Password reset link for ${e}`);
    const url = linkOf(issued.body);
    expect(url).toMatch(/\/dashboard\/reset\/pwr_/);
    const token = new URL(url).pathname.split('/').pop()!;
    const rows = (await sql<{ token_hash: string }>`select token_hash from dashboard_password_resets`.execute(gw.ctx.db)).rows;
    expect(rows.map((r) => r.token_hash)).toContain(sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);

    const done = await useLink(url);
    expect(done.status).toBe(200);
    expect(text(done.body)).toContain('Your new password is set');
    // the developer's old session ended; the new password works, the old one does not
    expect((await dev.get('/dashboard')).status).toBe(303);
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(401);
    expect((await new WebClient(gw).signIn(e, NEW_PASSWORD)).status).toBe(303);
    // once only
    const again = await useLink(url, 'yet another passphrase');
    expect(again.status).toBe(404);
    expect(text(again.body)).toContain('password reset link is not valid');

    expect((await audit('password_reset_issued')).at(-1)).toMatchObject({ detail: { email: e } });
    expect((await audit('password_reset_completed')).at(-1)).toMatchObject({ actor: e });
    expect(JSON.stringify(await audit('password_reset_issued'))).not.toContain(token);
    expect(log).toContain('/dashboard/reset/***');
    expect(log).not.toContain(token);
    expect(log).not.toContain(NEW_PASSWORD);
    expect(maskTokens(`/dashboard/reset/${token}`)).toBe('/dashboard/reset/***');
  });

  it('a newer link ends the older one; an expired link does not work; a bad password is a clear 400', async () => {
    const e = email('viewer');
    await userOf(gw, a.id, e, 'viewer');
    const id = await userId(e);
    await owner.get('/dashboard/team');
    const first = linkOf((await owner.post(`/dashboard/team/${id}/password-reset`)).body);
    await owner.get('/dashboard/team');
    const second = linkOf((await owner.post(`/dashboard/team/${id}/password-reset`)).body);
    expect((await useLink(first)).status).toBe(404);
    const short = await useLink(second, 'short');
    expect(short.status).toBe(400);
    const mismatch = new WebClient(gw);
    await mismatch.get(new URL(second).pathname);
    expect((await mismatch.post(new URL(second).pathname, { password: NEW_PASSWORD, password2: 'something else entirely' })).status).toBe(400);
    await sql`update dashboard_password_resets set expires_at = now() - interval '1 second' where user_id = ${id}`.execute(gw.ctx.db);
    expect((await useLink(second)).status).toBe(404);
    expect((await new WebClient(gw).get('/dashboard/reset/nonsense')).status).toBe(404);
    expect((await new WebClient(gw).get(`/dashboard/reset/${'x'.repeat(500)}`)).status).toBe(404);
  });

  it('another merchant’s user is a 404; a developer may not issue; an invited user gets a clear 400; CSRF is required', async () => {
    const e = email('dev');
    const dev = await userOf(gw, a.id, e, 'developer');
    const id = await userId(e);
    await ownerB.get('/dashboard/team');
    expect((await ownerB.post(`/dashboard/team/${id}/password-reset`)).status).toBe(404);
    await dev.get('/dashboard/team');
    const ownerId = Number((await sql<{ id: number }>`select id from dashboard_users where merchant_id = ${a.id} and role = 'owner' order by id limit 1`.execute(gw.ctx.db)).rows[0].id);
    expect((await dev.post(`/dashboard/team/${ownerId}/password-reset`)).status).toBe(403);
    const invited = email('inv');
    await gw.admin('POST', `/merchants/${a.id}/invitations`, { email: invited, role: 'viewer' });
    await owner.get('/dashboard/team');
    const r = await owner.post(`/dashboard/team/${await userId(invited)}/password-reset`);
    expect(r.status).toBe(400);
    expect(text(r.body)).toContain('has not accepted the invitation');
    expect((await owner.post(`/dashboard/team/${id}/password-reset`, { _csrf: 'wrong' })).status).toBe(403);
    expect((await owner.post('/dashboard/team/abc/password-reset')).status).toBe(404);
  });

  it('an operator issues one for a merchant user and for an operator (whose authenticator stays)', async () => {
    const e = email('dev');
    await userOf(gw, a.id, e, 'developer');
    await operator.get(`/console/merchants/${a.id}`);
    const r = await operator.post(`/console/merchants/${a.id}/users/${await userId(e)}/password-reset`);
    expect(r.status).toBe(200);
    expect((await useLink(linkOf(r.body))).status).toBe(200);
    // the merchant id must be the user's
    await operator.get(`/console/merchants/${b.id}`);
    expect((await operator.post(`/console/merchants/${b.id}/users/${await userId(e)}/password-reset`)).status).toBe(404);

    const opEmail = email('op');
    const op2 = await userOf(gw, null, opEmail);
    await operator.get('/console/operators');
    const o = await operator.post(`/console/operators/${await userId(opEmail)}/password-reset`);
    expect(o.status).toBe(200);
    expect((await useLink(linkOf(o.body))).status).toBe(200);
    const c = new WebClient(gw);
    expect((await c.signIn(opEmail, NEW_PASSWORD)).status).toBe(401); // the code is still asked for
    expect((await c.signIn(opEmail, NEW_PASSWORD, op2.totpSecret)).status).toBe(303);
  });
});

describe('the second factor', () => {
  it('an operator without an authenticator is sent to set one up before anything else, and cannot turn it off', async () => {
    const e = email('newop');
    const inv = await gw.admin('POST', '/operators/invitations', { email: e });
    const c = new WebClient(gw);
    const path = new URL(inv.body.data.url).pathname;
    await c.get(path);
    await c.post(path, { password: PASSWORD, password2: PASSWORD });
    expect((await c.signIn(e, PASSWORD)).location).toBe('/console');
    const console_ = await c.get('/console');
    expect(console_.status).toBe(303);
    expect(console_.location).toBe('/dashboard/account');
    const account = await c.get('/dashboard/account');
    expect(text(account.body)).toContain('Operators sign in with an authenticator');
    expect((await c.post('/console/merchants', { name: 'Sneaky' })).status).toBe(403);
    await setUpTotp(c);
    expect((await c.get('/console')).status).toBe(200);
    await c.get('/dashboard/account');
    const off = await c.post('/dashboard/account/totp/disable', { password: PASSWORD });
    expect(off.status).toBe(400);
    expect(text(off.body)).toContain('operators always sign in with an authenticator');
  });

  it('an owner requires one of the team (after setting up their own); a member without one is sent to set it up', async () => {
    const o = await userOf(gw, (await gw.createMerchant({ name: 'Strict' })).id, email('strict'));
    const merchantId = Number((await sql<{ merchant_id: number }>`select merchant_id from dashboard_users where id = (select max(id) from dashboard_users where role = 'owner')`.execute(gw.ctx.db)).rows[0].merchant_id);
    const e = email('member');
    const member = await userOf(gw, merchantId, e, 'viewer');
    await o.get('/dashboard/team');
    const early = await o.post('/dashboard/team/require-totp', { required: 'true' });
    expect(early.status).toBe(400);
    expect(text(early.body)).toContain('set up your own authenticator first');
    await setUpTotp(o);
    await o.get('/dashboard/team');
    const on = await o.post('/dashboard/team/require-totp', { required: 'true' });
    expect(on.status).toBe(200);
    expect(text(on.body)).toContain('An authenticator is now required of everyone on the team.');
    expect((await member.get('/dashboard/deposits')).location).toBe('/dashboard/account');
    expect(text((await member.get('/dashboard/account')).body)).toContain('Your team requires an authenticator');
    await setUpTotp(member);
    expect((await member.get('/dashboard/deposits')).status).toBe(200);
    expect((await audit('team_totp_required')).length).toBeGreaterThan(0);
    // another merchant's team is not affected
    expect((await ownerB.get('/dashboard/deposits')).status).toBe(200);
    await o.get('/dashboard/team');
    expect((await o.post('/dashboard/team/require-totp', { required: 'false' })).status).toBe(200);
    expect((await audit('team_totp_optional')).length).toBeGreaterThan(0);
  });

  it('an operator sets a team’s rule from the console (audited, as the operator); owners still can; CSRF, roles and bad input refused', async () => {
    const m = await gw.createMerchant({ name: 'Console Strict' });
    const e = email('member');
    const member = await userOf(gw, m.id, e, 'viewer');
    const page = await operator.get(`/console/merchants/${m.id}`);
    expect(text(page.body)).toContain('Optional: each user decides');
    const on = await operator.post(`/console/merchants/${m.id}/require-totp`, { required: 'true' });
    expect(on.status).toBe(303);
    expect(on.location).toBe(`/console/merchants/${m.id}?done=team_totp_required`);
    const after = await operator.get(on.location!);
    expect(text(after.body)).toContain('An authenticator is now required of everyone on the team.');
    expect(text(after.body)).toContain('Required: every user of this merchant signs in with an authenticator.');
    expect((await member.get('/dashboard/deposits')).location).toBe('/dashboard/account');
    const row = (await sql<{ actor: string; merchant_id: number; detail: Record<string, unknown> }>`select actor, merchant_id, detail from audit_log where action = 'team_totp_required' order by id desc limit 1`.execute(gw.ctx.db)).rows[0];
    expect(row).toMatchObject({ actor: expect.stringMatching(/^op\d+@reset\.example$/), detail: { by_operator: true } });
    expect(Number(row.merchant_id)).toBe(m.id);
    // another merchant is not affected
    expect((await ownerB.get('/dashboard/deposits')).status).toBe(200);
    // refused: a wrong CSRF token, an owner at the console door, a bad value, an unknown merchant
    expect((await operator.post(`/console/merchants/${m.id}/require-totp`, { required: 'false', _csrf: 'wrong' })).status).toBe(403);
    await owner.get('/dashboard/team');
    expect((await owner.post(`/console/merchants/${m.id}/require-totp`, { required: 'false' })).status).toBe(403);
    await operator.get(`/console/merchants/${m.id}`);
    expect((await operator.post(`/console/merchants/${m.id}/require-totp`, { required: 'maybe' })).status).toBe(400);
    expect((await operator.post('/console/merchants/999999/require-totp', { required: 'true' })).status).toBe(404);
    const off = await operator.post(`/console/merchants/${m.id}/require-totp`, { required: 'false' });
    expect(off.location).toBe(`/console/merchants/${m.id}?done=team_totp_optional`);
    expect((await member.get('/dashboard/deposits')).status).toBe(200);
    expect((await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'team_totp_optional' and merchant_id = ${m.id}`.execute(gw.ctx.db)).rows[0].n).toBe(1);
  });
});

describe('without SMTP (the default)', () => {
  it('"forgot password" says whom to ask, sends nothing and queues nothing; issued links are shown to the issuer', async () => {
    const c = new WebClient(gw);
    const page = await c.get('/dashboard/forgot');
    expect(page.status).toBe(200);
    expect(text(page.body)).toContain('This gateway sends no e-mail');
    expect(page.body).not.toContain('name="email"');
    // there is no form, so no token: a post is refused; with a token (from the sign-in page) it changes nothing
    expect((await c.post('/dashboard/forgot', { email: 'someone@reset.example' })).status).toBe(403);
    await c.get('/dashboard/sign-in');
    const posted = await c.post('/dashboard/forgot', { email: 'someone@reset.example' });
    expect(posted.status).toBe(200);
    expect(text(posted.body)).toContain('This gateway sends no e-mail');
    await gw.flushJobs();
    const queued = await sql<{ n: number }>`select (select count(*) from job_outbox where task = 'mail_send') + (select count(*) from graphile_worker.jobs where task_identifier = 'mail_send') as n`.execute(gw.ctx.db);
    expect(Number(queued.rows[0].n)).toBe(0);
    expect((await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'password_reset_requested'`.execute(gw.ctx.db)).rows[0].n).toBe(0);
  });
});
