// Dashboard accounts over real HTTP handling (app.inject) on a real database: invitations, password
// rules, sign-in failures, lock-out and the per-address limit, TOTP, cookies and sessions, CSRF.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { WebClient, userOf, text } from './web-client.js';
import { totp, timeStep, STEP_SECONDS, matchTotp, hotp, base32Decode } from '../../src/modules/accounts/totp.js';
import { IP_FAILURE_LIMIT, LOCK_AFTER_FAILURES, SIGN_IN_FAILED } from '../../src/modules/accounts/accounts-service.js';

let gw: TestGateway;
let merchantId: number;
let seq = 0;
const email = (p = 'u') => `${p}${++seq}@shop.example`;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  merchantId = (await gw.createMerchant({ name: 'Shop A' })).id;
});
afterAll(async () => gw?.stop());

async function invite(e: string, role = 'owner', mid = merchantId) {
  const res = await gw.admin('POST', `/merchants/${mid}/invitations`, { email: e, role });
  return res;
}

async function auditActions(action: string) {
  return sql<{ actor: string; ip: string; detail: any; user_id: number | null }>`select actor, ip, detail, user_id from audit_log where action = ${action} order by id`.execute(gw.ctx.db).then((r) => r.rows);
}

describe('TOTP (RFC 6238)', () => {
  it('matches the RFC 6238 SHA-1 test vectors (8 digits → last 6)', () => {
    // RFC 6238 appendix B, seed "12345678901234567890" (SHA-1)
    const key = Buffer.from('12345678901234567890');
    const vectors: [number, string][] = [[59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'], [1234567890, '89005924'], [2000000000, '69279037']];
    for (const [t, code] of vectors) expect(hotp(key, Math.floor(t / 30), 8)).toBe(code);
  });

  it('accepts the current step and one either side, refuses two steps away and a step already used', () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    expect(base32Decode(secret).toString('hex')).toBe('48656c6c6f21deadbeef'); // "Hello!" + DEADBEEF
    const now = 1_800_000_000_000;
    const step = timeStep(now);
    expect(matchTotp(secret, totp(secret, now), now, 0)).toBe(step);
    expect(matchTotp(secret, totp(secret, now - STEP_SECONDS * 1000), now, 0)).toBe(step - 1);
    expect(matchTotp(secret, totp(secret, now + STEP_SECONDS * 1000), now, 0)).toBe(step + 1);
    expect(matchTotp(secret, totp(secret, now - 2 * STEP_SECONDS * 1000), now, 0)).toBeUndefined();
    expect(matchTotp(secret, totp(secret, now), now, step)).toBeUndefined(); // replay
    expect(matchTotp(secret, '12345', now, 0)).toBeUndefined();
  });
});

describe('invitations', () => {
  it('the admin API answers a one-time link; the password is set once through it', async () => {
    const e = email();
    const res = await invite(e, 'developer');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email: e, role: 'developer', merchant_id: merchantId });
    expect(res.body.data.url).toMatch(new RegExp(`^${gw.url}/dashboard/invite/inv_[\\w-]{43}$`));
    const path = new URL(res.body.data.url).pathname;

    const c = new WebClient(gw);
    const form = await c.get(path);
    expect(form.status).toBe(200);
    expect(text(form.body)).toContain(e);
    expect((await c.post(path, { password: PASSWORD, password2: PASSWORD })).status).toBe(200);
    // the second use of the link is refused
    const again = await c.post(path, { password: 'another password 1', password2: 'another password 1' });
    expect(again.status).toBe(404);
    expect(text(again.body)).toContain('this invitation link is not valid');
    expect((await c.get(path)).status).toBe(404);
    expect((await c.signIn(e, PASSWORD)).status).toBe(303);
    expect((await auditActions('user_invited')).some((a) => a.detail.email === e && a.actor === 'admin-token')).toBe(true);
  });

  it('refuses a bad address, a bad role and an unknown merchant in the envelope', async () => {
    const bad = await invite('not-an-address');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, message: 'validation error' });
    expect(bad.body.data[0]).toMatchObject({ field: 'email', code: 'email' });
    const role = await invite(email(), 'admin');
    expect(role.status).toBe(400);
    expect(role.body.success).toBe(false);
    const unknown = await invite(email(), 'owner', 999_999);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, message: 'not found error' });
  });

  it('an address with an account is not invited again; a pending one gets a fresh link', async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const again = await invite(e);
    expect(again.status).toBe(400);
    expect(again.body.data[0]).toMatchObject({ field: 'email', code: 'exist' });
    const other = await gw.createMerchant({ name: 'Shop B' });
    expect((await invite(e.toUpperCase(), 'owner', other.id)).status).toBe(400); // case-insensitive
    const pending = email();
    const first = await invite(pending);
    const second = await invite(pending);
    expect(second.status).toBe(201);
    expect(second.body.data.url).not.toBe(first.body.data.url);
    // the new link replaces the old one
    const c = new WebClient(gw);
    expect((await c.get(new URL(first.body.data.url).pathname)).status).toBe(404);
    expect((await c.get(new URL(second.body.data.url).pathname)).status).toBe(200);
  });

  it('an expired link is refused', async () => {
    const e = email();
    const res = await invite(e);
    await sql`update dashboard_invitations set expires_at = now() - interval '1 second' where user_id = ${res.body.data.user_id}`.execute(gw.ctx.db);
    const c = new WebClient(gw);
    const path = new URL(res.body.data.url).pathname;
    expect((await c.get(path)).status).toBe(404);
  });

  it('password rules: 9 characters and two different entries are refused, 10 are accepted', async () => {
    const e = email();
    const path = new URL((await invite(e)).body.data.url).pathname;
    const c = new WebClient(gw);
    await c.get(path);
    const short = await c.post(path, { password: '123456789', password2: '123456789' });
    expect(short.status).toBe(400);
    expect(text(short.body)).toContain('at least 10 characters');
    const differ = await c.post(path, { password: '1234567890', password2: '1234567890x' });
    expect(differ.status).toBe(400);
    expect(text(differ.body)).toContain('the two passwords differ');
    expect((await c.post(path, { password: '1234567890', password2: '1234567890' })).status).toBe(200);
    const row = await sql<{ password_hash: string }>`select password_hash from dashboard_users where email = ${e}`.execute(gw.ctx.db);
    expect(row.rows[0].password_hash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  });
});

describe('sign-in', () => {
  it('a wrong password reads like an unknown address, is audited with the address, and lands no cookie', async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const c = new WebClient(gw);
    const wrong = await c.signIn(e, 'wrong password!!');
    const unknown = await c.signIn(email('nobody'), 'wrong password!!');
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(text(r.body)).toContain(SIGN_IN_FAILED);
    }
    expect(c.cookies.has('sgw_session')).toBe(false);
    const failed = await auditActions('sign_in_failed');
    expect(failed.find((a) => a.actor === e)).toMatchObject({ ip: '127.0.0.1' });
  });

  it(`locks the account at the ${LOCK_AFTER_FAILURES}th consecutive failure, even for the right password, until the lock ends`, async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const c = new WebClient(gw);
    for (let i = 1; i < LOCK_AFTER_FAILURES; i++) expect((await c.signIn(e, `wrong ${i} password`)).status).toBe(401);
    expect((await c.signIn(e, PASSWORD)).status).toBe(303); // 4 failures: not locked, and the count resets
    for (let i = 1; i <= LOCK_AFTER_FAILURES; i++) expect((await c.signIn(e, `wrong ${i} password`)).status).toBe(401);
    expect((await c.signIn(e, PASSWORD)).status).toBe(401); // locked
    expect((await auditActions('account_locked')).some((a) => a.actor === e)).toBe(true);
    await sql`update dashboard_users set locked_until = now() - interval '1 second' where email = ${e}`.execute(gw.ctx.db);
    expect((await c.signIn(e, PASSWORD)).status).toBe(303);
  });

  it(`answers 429 to an address after ${IP_FAILURE_LIMIT} failures within the window`, async () => {
    const other = await startTestGateway({}, { worker: false }); // a database of its own: the count is per address
    try {
      const c = new WebClient(other);
      for (let i = 0; i < IP_FAILURE_LIMIT; i++) expect((await c.signIn(`x${i}@nowhere.example`, 'wrong password!')).status).toBe(401);
      const limited = await c.signIn('x@nowhere.example', 'wrong password!');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(900);
      expect(text(limited.body)).toContain('too many failed sign-ins');
    } finally {
      await other.stop();
    }
  });

  it('TOTP: set up, then sign-in needs the current code, and a code works once', async () => {
    const e = email();
    const c = await userOf(gw, merchantId, e);
    await c.get('/dashboard/account');
    const started = await c.post('/dashboard/account/totp/start');
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(started.body)![1];
    expect(started.body).toContain(`otpauth://totp/`);
    const bad = await c.post('/dashboard/account/totp/confirm', { code: '000000' === totp(secret, Date.now()) ? '111111' : '000000' });
    expect(bad.status).toBe(400);
    const now = Date.now();
    expect((await c.post('/dashboard/account/totp/confirm', { code: totp(secret, now) })).status).toBe(200);

    const d = new WebClient(gw);
    expect((await d.signIn(e, PASSWORD)).status).toBe(401); // no code
    // the code used for confirming is spent: the next step's code works, then not again
    const next = now + STEP_SECONDS * 1000;
    expect((await d.signIn(e, PASSWORD, secret, next)).status).toBe(303);
    const replay = new WebClient(gw);
    expect((await replay.signIn(e, PASSWORD, secret, next)).status).toBe(401);
  });
});

describe('TOTP cannot be dropped without the password and a code', () => {
  it('with an authenticator on, starting a new set-up is refused and sign-in still needs the code; turning it off asks for the password and a code and is audited', async () => {
    const e = email();
    const c = await userOf(gw, merchantId, e);
    await c.get('/dashboard/account');
    const started = await c.post('/dashboard/account/totp/start');
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(started.body)![1];
    const now = Date.now();
    // confirmed with the previous step's code: sign-in takes the current one, turning it off the next
    expect((await c.post('/dashboard/account/totp/confirm', { code: totp(secret, now - STEP_SECONDS * 1000) })).status).toBe(200);
    await c.get('/dashboard/account');
    const again = await c.post('/dashboard/account/totp/start');
    expect(again.status).toBe(400);
    expect(text(again.body)).toContain('an authenticator is already on');
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(401); // still needs the code
    expect((await new WebClient(gw).signIn(e, PASSWORD, secret, now)).status).toBe(303); // the old secret still works
    await c.get('/dashboard/account');
    const next = totp(secret, now + STEP_SECONDS * 1000);
    expect((await c.post('/dashboard/account/totp/disable', { password: 'not the password', code: next })).status).toBe(400);
    expect((await c.post('/dashboard/account/totp/disable', { password: PASSWORD })).status).toBe(400); // no code
    expect((await c.post('/dashboard/account/totp/disable', { password: PASSWORD, code: next })).status).toBe(200);
    expect((await auditActions('totp_disabled')).filter((a) => a.actor === e)).toHaveLength(1);
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(303);
  });
});

describe('sessions and cookies', () => {
  it('the session cookie is HttpOnly, SameSite=Strict, Path=/ (Secure only behind HTTPS); a planted cookie is replaced at sign-in', async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const c = new WebClient(gw);
    c.cookies.set('sgw_session', 'planted-by-attacker-0123456789');
    const r = await c.signIn(e, PASSWORD);
    expect(r.status).toBe(303);
    expect(r.location).toBe('/dashboard');
    const cookie = ([] as string[]).concat(r.headers['set-cookie']).find((x) => x.startsWith('sgw_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    expect(c.cookies.get('sgw_session')).not.toBe('planted-by-attacker-0123456789');
    expect(c.cookies.get('sgw_session')).toMatch(/^[\w-]{43}$/);
    // the planted value is no session
    const attacker = new WebClient(gw);
    attacker.cookies.set('sgw_session', 'planted-by-attacker-0123456789');
    expect((await attacker.get('/dashboard')).status).toBe(303);

    const secure = await startTestGateway({ PUBLIC_URL: 'https://gateway.example' }, { worker: false });
    try {
      await secure.admin('POST', '/operators/invitations', { email: 'op@secure.example' }).then(async (res) => {
        const s = new WebClient(secure, 'https://gateway.example');
        const path = new URL(res.body.data.url).pathname;
        await s.get(path);
        await s.post(path, { password: PASSWORD, password2: PASSWORD });
        const signed = await s.signIn('op@secure.example', PASSWORD);
        expect(signed.location).toBe('/console');
        expect(([] as string[]).concat(signed.headers['set-cookie']).find((x) => x.startsWith('sgw_session='))).toMatch(/; Secure/);
      });
    } finally {
      await secure.stop();
    }
  });

  it('sign-out ends the session; sign-out everywhere ends the other browsers too', async () => {
    const e = email();
    const a = await userOf(gw, merchantId, e);
    const b = new WebClient(gw);
    expect((await b.signIn(e, PASSWORD)).status).toBe(303);
    const oldA = a.cookies.get('sgw_session')!;
    await a.get('/dashboard');
    expect((await a.post('/dashboard/sign-out')).location).toBe('/dashboard/sign-in?done=signed_out');
    const replayA = new WebClient(gw);
    replayA.cookies.set('sgw_session', oldA);
    expect((await replayA.get('/dashboard')).status).toBe(303);
    expect((await b.get('/dashboard')).status).toBe(200);

    const c2 = new WebClient(gw);
    await c2.signIn(e, PASSWORD);
    await b.get('/dashboard/account');
    expect((await b.post('/dashboard/account/sign-out-everywhere')).status).toBe(303);
    expect((await c2.get('/dashboard')).status).toBe(303);
    expect((await auditActions('signed_out_everywhere')).some((x) => x.actor === e)).toBe(true);
  });

  it('an unknown session goes to sign-in with the page to come back to', async () => {
    const r = await new WebClient(gw).get('/dashboard/deposits?status=completed');
    expect(r.status).toBe(303);
    expect(r.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fdeposits%3Fstatus%3Dcompleted');
  });

  it('a disabled user loses their sessions at once', async () => {
    const owner = await userOf(gw, merchantId, email());
    const e = email();
    const viewer = await userOf(gw, merchantId, e, 'viewer');
    const id = (await sql<{ id: number }>`select id from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0].id;
    await owner.get('/dashboard/team');
    expect((await owner.post(`/dashboard/team/${id}/disable`)).status).toBe(303);
    expect((await viewer.get('/dashboard')).status).toBe(303);
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(401);
  });
});

describe('CSRF and origin', () => {
  it('a signed-in form post without the token, with another session\'s token, or from another origin is refused', async () => {
    const a = await userOf(gw, merchantId, email());
    const b = await userOf(gw, merchantId, email());
    await a.get('/dashboard/withdrawals');
    await b.get('/dashboard/withdrawals');
    const none = await a.post('/dashboard/withdrawals', { amount: '1', _csrf: '' });
    expect(none.status).toBe(403);
    expect(text(none.body)).toContain('CSRF token missing or wrong');
    expect((await a.post('/dashboard/withdrawals', { amount: '1', _csrf: b.lastCsrf })).status).toBe(403);
    await a.get('/dashboard/withdrawals');
    const cross = await a.post('/dashboard/withdrawals', { amount: '1' }, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(text(cross.body)).toContain('cross-origin request refused');
    expect((await gw.ctx.db.selectFrom('withdrawals').select('id').where('merchant_id', '=', merchantId).execute()).length).toBe(0);
  });

  it('a JSON body with non-string fields is a clear error, not a crash', async () => {
    const c = await userOf(gw, merchantId, email());
    await c.get('/dashboard/withdrawals');
    const res = await gw.app.inject({
      method: 'POST',
      url: '/dashboard/withdrawals',
      headers: { 'content-type': 'application/json', cookie: `sgw_session=${c.cookies.get('sgw_session')}`, 'x-csrf-token': c.lastCsrf },
      payload: JSON.stringify({ amount: 5, reference: { x: 1 } }),
    });
    expect(res.statusCode).toBe(400);
    expect(text(res.body)).toContain('amount must be a positive number');
  });

  it('the sign-in form needs its double-submit token (login CSRF)', async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const c = new WebClient(gw);
    const r = await c.post('/dashboard/sign-in', { email: e, password: PASSWORD, _csrf: 'x'.repeat(43) });
    expect(r.status).toBe(403);
    await c.get('/dashboard/sign-in');
    expect((await c.post('/dashboard/sign-in', { email: e, password: PASSWORD, _csrf: 'y'.repeat(43) })).status).toBe(403);
    expect((await c.post('/dashboard/sign-in', { email: e, password: PASSWORD })).status).toBe(303);
  });

  it('pages carry a strict CSP, nosniff, frame denial and no-store', async () => {
    const r = await new WebClient(gw).get('/dashboard/sign-in');
    expect(r.headers['content-security-policy']).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body).not.toMatch(/<script>|style="/);
  });
});
