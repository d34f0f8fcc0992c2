// E-mail when SMTP is configured (issue 24): reset links and invitations go through the mail job to
// a real SMTP receiver over TCP; pages say "sent to" and never show the link; "forgot password"
// answers the same whatever the address; a mail server that refuses connections costs a page
// nothing and the job is retried until it delivers; no link ever reaches a log line.
import { Writable } from 'node:stream';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { text, userOf, WebClient } from './web-client.js';
import { freePort, SMTP_PASS, startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';
import { FORGOT_COOLDOWN_SECONDS } from '../../src/modules/mail/letters.js';
import { mailJobKey } from '../../src/modules/accounts/account-mail-jobs.js';

const FROM = 'no-reply@gateway.example';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';
const SENT = 'If an account has this address, a link to choose a new password is on its way to it.';
/** A one-time link token anywhere in a text. */
const LINK_TOKEN = /(pwr|inv)_[\w-]{20,}/;

let seq = 0;
const email = (p = 'u') => `${p}${++seq}@mail.example`;

function capture() {
  const out = { log: '' };
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out.log += String(chunk);
      cb();
    },
  });
  return { out, logger: pino({ level: 'trace' }, sink) };
}

const userId = async (gw: TestGateway, e: string) => Number((await sql<{ id: number }>`select id from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0].id);
const mailTo = (rx: SmtpReceiver, to: string, n = 1) => eventually(async () => {
  const got = rx.mails.filter((m) => m.to.includes(to));
  return got.length >= n ? got[n - 1] : undefined;
}, 30_000);
/** The mail jobs of a key are done (none waiting, running or failed). */
const jobsDone = (gw: TestGateway, key: string) => eventually(async () => {
  await gw.flushJobs();
  const r = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where key = ${key}`.execute(gw.ctx.db);
  return r.rows[0].n === 0;
}, 30_000);

async function useLink(gw: TestGateway, url: string, password = NEW_PASSWORD) {
  const path = new URL(url).pathname;
  const c = new WebClient(gw);
  const page = await c.get(path);
  if (page.status !== 200) return page;
  return c.post(path, { password, password2: password });
}

async function forgot(gw: TestGateway, address: string, remoteAddress?: string) {
  const c = new WebClient(gw, undefined, remoteAddress);
  const form = await c.get('/dashboard/forgot');
  expect(form.status).toBe(200);
  return c.post('/dashboard/forgot', { email: address });
}

describe('e-mail through a real SMTP server', () => {
  let gw: TestGateway;
  let rx: SmtpReceiver;
  let owner: WebClient;
  let merchantId: number;
  const { out, logger } = capture();

  beforeAll(async () => {
    rx = await startSmtpReceiver();
    gw = await startTestGateway({ SMTP_URL: rx.url, SMTP_FROM: `Gateway <${FROM}>`, LOG_REQUESTS: 'all' }, { logger });
    merchantId = (await gw.createMerchant({ name: 'Mail Shop' })).id;
    owner = await userOf(gw, merchantId, email('owner'));
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await rx?.close();
  });

  it('forgot password: request → e-mail → link → the new password works → the link is dead; nothing secret logged', async () => {
    const e = email('dev');
    const dev = await userOf(gw, merchantId, e, 'developer');
    const signIn = await new WebClient(gw).get('/dashboard/sign-in');
    expect(signIn.body).toContain('href="/dashboard/forgot"');
    const asked = await forgot(gw, e);
    expect(asked.status).toBe(200);
    expect(text(asked.body)).toContain(SENT);
    const mail = await mailTo(rx, e);
    expect(mail.from).toBe(FROM);
    expect(mail.subject).toContain('Choose a new password');
    expect(mail.link).toMatch(new RegExp(`^${gw.ctx.config.publicUrl}/dashboard/reset/pwr_[\\w-]{43}$`));
    expect(mail.text.match(/https?:\/\//g)).toHaveLength(2); // the site and the link: nothing else
    const done = await useLink(gw, mail.link!);
    expect(done.status).toBe(200);
    expect(text(done.body)).toContain('Your new password is set');
    expect((await dev.get('/dashboard')).status).toBe(303); // its sessions ended
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(401);
    expect((await new WebClient(gw).signIn(e, NEW_PASSWORD)).status).toBe(303);
    expect((await useLink(gw, mail.link!, 'yet another passphrase')).status).toBe(404);
    const audit = (await sql<{ action: string; detail: Record<string, unknown> }>`select action, detail from audit_log where action in ('password_reset_requested', 'mail_sent') order by id`.execute(gw.ctx.db)).rows;
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['password_reset_requested', 'mail_sent']));
    await new Promise((r) => setImmediate(r));
    expect(out.log).toContain('mail: sent');
    expect(out.log).not.toMatch(LINK_TOKEN);
    expect(out.log).not.toContain(SMTP_PASS);
    expect(out.log).not.toContain(NEW_PASSWORD);
  });

  it('no enumeration: unknown, invited-only and disabled addresses get the same answer and no e-mail; one link a minute per account', async () => {
    const known = email('known');
    await userOf(gw, merchantId, known, 'viewer');
    const invited = email('invited');
    await gw.admin('POST', `/merchants/${merchantId}/invitations`, { email: invited, role: 'viewer' });
    const disabled = email('disabled');
    await userOf(gw, merchantId, disabled, 'viewer');
    await owner.get('/dashboard/team');
    expect((await owner.post(`/dashboard/team/${await userId(gw, disabled)}/disable`)).status).toBe(303);
    const unknown = email('nobody');
    const answers = [];
    for (const address of [known, unknown, invited, disabled]) {
      const r = await forgot(gw, address);
      answers.push({ status: r.status, text: text(r.body) });
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0].status).toBe(200);
    for (const address of [known, unknown, invited, disabled]) await jobsDone(gw, mailJobKey({ kind: 'forgot_password', email: address, ip: null }));
    expect(rx.mails.filter((m) => m.to.includes(known))).toHaveLength(1);
    for (const address of [unknown, invited, disabled]) expect(rx.mails.filter((m) => m.to.includes(address)), address).toHaveLength(0);
    // again within the cool-down: the same answer, no second e-mail; just past it: a second one
    expect(text((await forgot(gw, known)).body)).toBe(answers[0].text);
    await jobsDone(gw, mailJobKey({ kind: 'forgot_password', email: known, ip: null }));
    expect(rx.mails.filter((m) => m.to.includes(known))).toHaveLength(1);
    await sql`update dashboard_password_resets set created_at = now() - make_interval(secs => ${FORGOT_COOLDOWN_SECONDS + 1}) where user_id = ${await userId(gw, known)}`.execute(gw.ctx.db);
    await forgot(gw, known);
    const second = await mailTo(rx, known, 2);
    expect(second.link).not.toBe(rx.mails.find((m) => m.to.includes(known))!.link);
    // a malformed address is a clear 400
    const bad = await forgot(gw, 'not an address');
    expect(bad.status).toBe(400);
  });

  it('forgot password counts against the address’s sign-in limit: past it, 429 with Retry-After', async () => {
    const address = email('flood');
    let last = { status: 0, headers: {} as Record<string, any> };
    for (let i = 0; i < 20; i++) last = await forgot(gw, address, '203.0.113.77');
    expect(last.status).toBe(200);
    const refused = await forgot(gw, address, '203.0.113.77');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await forgot(gw, address, '203.0.113.78')).status).toBe(200); // another address is not affected
  });

  it('an owner issues a reset link: the page says where it was sent and never shows it; the e-mailed link works', async () => {
    const e = email('member');
    await userOf(gw, merchantId, e, 'developer');
    await owner.get('/dashboard/team');
    const issued = await owner.post(`/dashboard/team/${await userId(gw, e)}/password-reset`);
    expect(issued.status).toBe(200);
    expect(text(issued.body)).toContain(`A password reset link was sent to ${e}`);
    expect(issued.body).not.toContain('secret-value');
    expect(issued.body).not.toMatch(LINK_TOKEN);
    const mail = await mailTo(rx, e);
    expect((await useLink(gw, mail.link!)).status).toBe(200);
    expect((await new WebClient(gw).signIn(e, NEW_PASSWORD)).status).toBe(303);
  });

  it('invitations by e-mail: from the team page and the console (merchant user and operator); the link activates the account', async () => {
    const e = email('invitee');
    await owner.get('/dashboard/team');
    const inv = await owner.post('/dashboard/team/invite', { email: e, role: 'viewer' });
    expect(inv.status).toBe(200);
    expect(text(inv.body)).toContain(`An invitation was sent to ${e} (viewer)`);
    expect(inv.body).not.toMatch(LINK_TOKEN);
    const mail = await mailTo(rx, e);
    expect(mail.subject).toContain('Mail Shop');
    expect(mail.link).toMatch(/\/dashboard\/invite\/inv_/);
    expect((await useLink(gw, mail.link!, PASSWORD)).status).toBe(200);
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(303);

    const operator = await userOf(gw, null, email('op'));
    const m2 = email('console');
    await operator.get(`/console/merchants/${merchantId}`);
    const viaConsole = await operator.post(`/console/merchants/${merchantId}/invite`, { email: m2, role: 'owner' });
    expect(text(viaConsole.body)).toContain(`An invitation was sent to ${m2} (owner)`);
    expect((await mailTo(rx, m2)).link).toMatch(/\/dashboard\/invite\/inv_/);
    const op2 = email('op');
    await operator.get('/console/operators');
    const opInv = await operator.post('/console/operators/invite', { email: op2 });
    expect(text(opInv.body)).toContain(`An invitation was sent to ${op2}`);
    expect((await mailTo(rx, op2)).subject).toContain('operator');
    // the admin API (break-glass) still answers the link itself
    const api = await gw.admin('POST', `/merchants/${merchantId}/invitations`, { email: email('api'), role: 'viewer' });
    expect(api.body.data.url).toMatch(/\/dashboard\/invite\/inv_/);
    await new Promise((r) => setImmediate(r));
    expect(out.log.replace(api.body.data.url, '')).not.toMatch(LINK_TOKEN);
  });
});

describe('a mail server that refuses connections', () => {
  let gw: TestGateway;
  let rx: SmtpReceiver | undefined;
  const { out, logger } = capture();
  afterAll(async () => {
    await gw?.stop();
    await rx?.close();
  });

  it('the page answers at once, the job fails and is retried, the link minted for the failed attempt is dead, and the retry delivers', async () => {
    const port = await freePort();
    gw = await startTestGateway({ SMTP_URL: `smtp://gateway-mailer:${SMTP_PASS}@127.0.0.1:${port}`, SMTP_FROM: FROM, SMTP_TIMEOUT_MS: '2000' }, { logger });
    const m = await gw.createMerchant({ name: 'Down Shop' });
    const owner = await userOf(gw, m.id, email('owner'));
    const e = email('dev');
    await userOf(gw, m.id, e, 'developer');
    const id = await userId(gw, e);
    // "forgot password" for another user: two live mails for one user would race (each attempt mints
    // a link and ends the user's earlier one, so the first mail received may carry a dead link)
    const e2 = email('dev');
    await userOf(gw, m.id, e2, 'developer');
    await owner.get('/dashboard/team');
    const issued = await owner.post(`/dashboard/team/${id}/password-reset`);
    expect(issued.status).toBe(200);
    expect(text(issued.body)).toContain(`A password reset link was sent to ${e}`);
    expect((await forgot(gw, e2)).status).toBe(200);
    const key = mailJobKey({ kind: 'password_reset', user_id: id, by: '' });
    const failed = await eventually(async () => {
      await gw.flushJobs();
      const r = await sql<{ attempts: number; last_error: string | null }>`select attempts, last_error from graphile_worker.jobs where key = ${key}`.execute(gw.ctx.db);
      return r.rows[0]?.attempts >= 1 && r.rows[0].last_error ? r.rows[0] : undefined;
    }, 30_000);
    expect(failed.last_error).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
    expect(failed.last_error).not.toMatch(LINK_TOKEN);
    // no link of a failed send works
    const live = await sql<{ n: number }>`select count(*)::int as n from dashboard_password_resets where user_id = ${id} and used_at is null`.execute(gw.ctx.db);
    expect(live.rows[0].n).toBe(0);
    expect((await owner.get('/dashboard/team')).status).toBe(200);

    rx = await startSmtpReceiver(port);
    const mail = await mailTo(rx, e);
    expect((await useLink(gw, mail.link!)).status).toBe(200);
    const mail2 = await mailTo(rx, e2);
    expect((await useLink(gw, mail2.link!)).status).toBe(200);
    await new Promise((r) => setImmediate(r));
    expect(out.log).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
    expect(out.log).not.toMatch(LINK_TOKEN);
    expect(out.log).not.toContain(SMTP_PASS);
  }, 90_000);
});
