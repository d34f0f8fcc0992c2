// No credential reaches the log: a flow through every kind of secret the gateway hands out or
// accepts (admin token, API keys old and new, webhook secrets, hosted page token, invitation token,
// password, session id, CSRF tokens), with every log line captured at the most verbose level.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';
import { WebClient } from '../dashboard/web-client.js';

let gw: TestGateway | undefined;
afterAll(async () => gw?.stop());

describe('secrets in logs', () => {
  it('no secret, key, password, session id, CSRF, invitation or hosted token appears in any log line', async () => {
    let log = '';
    const sink = new Writable({
      write(chunk, _enc, cb) {
        log += String(chunk);
        cb();
      },
    });
    gw = await startTestGateway({ LOG_REQUESTS: 'all' }, { logger: pino({ level: 'trace' }, sink), worker: false });
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
    expect(log).toContain('"url":"/dashboard/invite/***"');
    expect(log).toContain('"url":"/api/v1/hosted/***/status"');
    expect(log).toContain('"url":"/api/v1/merchant/balance?api_key=***"');
    for (const [what, value] of Object.entries(secrets)) {
      expect(value, what).toBeTruthy();
      expect(value.length, what).toBeGreaterThanOrEqual(8);
      expect(log.includes(value), `${what} is in the log`).toBe(false);
    }
  });
});
