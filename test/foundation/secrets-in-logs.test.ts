// No credential reaches the log: a flow through every kind of secret the gateway hands out or
// accepts (admin token, API keys old and new, webhook secrets, hosted page token, invitation token,
// password, session id, CSRF tokens), with every log line captured at the most verbose level.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, WebClient } from '../dashboard/web-client.js';
import { SMTP_PASS, startSmtpReceiver, type SmtpReceiver } from '../dashboard/smtp-receiver.js';
import { eventually } from '../helpers.js';

let gw: TestGateway | undefined;
let mailGw: TestGateway | undefined;
let rx: SmtpReceiver | undefined;
afterAll(async () => {
  await Promise.all([gw?.stop(), mailGw?.stop()]);
  await rx?.close();
});

/** Every log line at the most verbose level, kept as text (`captured.log`). */
function captureLog() {
  const captured = { log: '', logger: undefined as unknown as pino.Logger };
  captured.logger = pino({ level: 'trace' }, new Writable({
    write(chunk, _enc, cb) {
      captured.log += String(chunk);
      cb();
    },
  }));
  return captured;
}

describe('secrets in logs', () => {
  it('no secret, key, password, session id, CSRF, invitation or hosted token appears in any log line', async () => {
    const captured = captureLog();
    gw = await startTestGateway({ LOG_REQUESTS: 'all' }, { logger: captured.logger, worker: false });
    const secrets: Record<string, string> = { 'admin token': ADMIN_TOKEN };

    const m = await gw.createMerchant({ name: 'Secret shop' });
    secrets['API key'] = m.api_key;
    secrets['webhook secret'] = m.webhook_secret;
    const rotated = await gw.admin('POST', `/merchants/${m.id}/rotate-key`);
    secrets['rotated API key'] = rotated.body.data.api_key;
    const newSecret = await gw.admin('POST', `/merchants/${m.id}/rotate-webhook-secret`);
    secrets['rotated webhook secret'] = newSecret.body.data.webhook_secret;
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(secrets['rotated API key']!, 'GET', '/balance')).status).toBe(200);
    // A careless client puts the key in the query string too.
    await gw.app.inject({ method: 'GET', url: `/api/v1/merchant/balance?api_key=${secrets['rotated API key']}` });
    await gw.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

    const intent = await gw.merchant(secrets['rotated API key']!, 'POST', '/create-intent', { merchant_tx_id: 'secret-intent-1' });
    expect(intent.status).toBe(200);
    const hosted = new URL(intent.body.data.url).pathname.split('/').pop()!;
    secrets['hosted token'] = hosted;
    expect((await gw.app.inject({ method: 'GET', url: `/deposit/${hosted}` })).statusCode).toBe(200);
    await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${hosted}/status` });

    const invite = await gw.admin('POST', `/merchants/${m.id}/invitations`, { email: 'owner@secret.example', role: 'owner' });
    expect(invite.status).toBe(201);
    const invitePath = new URL(invite.body.data.url).pathname;
    secrets['invitation token'] = invitePath.split('/').pop()!;
    const password = 'Sup3r-secret-passphrase';
    secrets.password = password;
    const web = new WebClient(gw);
    await web.get(invitePath);
    secrets['invitation CSRF token'] = web.lastCsrf;
    expect((await web.post(invitePath, { password, password2: password })).status).toBe(200);
    const wrong = new WebClient(gw);
    secrets['wrong password'] = 'Not-the-passphrase-42';
    expect((await wrong.signIn('owner@secret.example', secrets['wrong password'])).status).not.toBe(303);
    expect((await web.signIn('owner@secret.example', password)).status).toBe(303);
    secrets['session id'] = web.cookies.get('sgw_session')!;
    const overview = await web.get('/dashboard');
    expect(overview.status).toBe(200);
    secrets['session CSRF token'] = web.lastCsrf;

    await new Promise((r) => setImmediate(r)); // the access lines of the last turn
    // The flow was logged (one line per answer), with the credentials in its URLs masked.
    expect(captured.log).toContain('"url":"/dashboard/invite/***"');
    expect(captured.log).toContain('"url":"/api/v1/hosted/***/status"');
    expect(captured.log).toContain('"url":"/api/v1/merchant/balance?api_key=***"');
    for (const [what, value] of Object.entries(secrets)) {
      expect(value, what).toBeTruthy();
      expect(value.length, what).toBeGreaterThanOrEqual(8);
      expect(captured.log.includes(value), `${what} is in the log`).toBe(false);
    }
  });

  it('the mail path (SMTP configured): the SMTP password, e-mailed reset and invitation links and the new password appear in no log line, a failed send included', async () => {
    const captured = captureLog();
    rx = await startSmtpReceiver(0, 1); // the first login is refused: the failure path is logged too
    mailGw = await startTestGateway({ LOG_REQUESTS: 'all', SMTP_URL: rx.url, SMTP_FROM: 'no-reply@secret.example' }, { logger: captured.logger });
    const g = mailGw;
    const secrets: Record<string, string> = { 'SMTP password': SMTP_PASS };
    const m = await g.createMerchant({ name: 'Mail secrets' });
    const owner = await userOf(g, m.id, 'owner@mail-secret.example');
    const mailTo = (to: string) => eventually(async () => rx!.mails.find((x) => x.to.includes(to)), 30_000);

    await owner.get('/dashboard/team');
    expect((await owner.post('/dashboard/team/invite', { email: 'dev@mail-secret.example', role: 'developer' })).status).toBe(200);
    const invitation = await mailTo('dev@mail-secret.example');
    secrets['e-mailed invitation token'] = new URL(invitation.link!).pathname.split('/').pop()!;
    expect((await new WebClient(g).get(new URL(invitation.link!).pathname)).status).toBe(200);
    // then the owner forgets the password (the reset ends the owner's sessions)
    const web = new WebClient(g);
    await web.get('/dashboard/forgot');
    expect((await web.post('/dashboard/forgot', { email: 'owner@mail-secret.example' })).status).toBe(200);
    const reset = await mailTo('owner@mail-secret.example');
    const resetPath = new URL(reset.link!).pathname;
    secrets['e-mailed reset token'] = resetPath.split('/').pop()!;
    const password = 'Mailed-new-passphrase-77';
    secrets['new password'] = password;
    await web.get(resetPath);
    expect((await web.post(resetPath, { password, password2: password })).status).toBe(200);

    await new Promise((r) => setImmediate(r));
    expect(captured.log).toContain('"url":"/dashboard/reset/***"');
    expect(captured.log).toContain('mail: sent');
    expect(captured.log).toMatch(/SMTP send failed \(EAUTH/); // the refused first login was logged, without its credentials
    for (const [what, value] of Object.entries(secrets)) {
      expect(value.length, what).toBeGreaterThanOrEqual(8);
      expect(captured.log.includes(value), `${what} is in the log`).toBe(false);
    }
  }, 90_000);
});
