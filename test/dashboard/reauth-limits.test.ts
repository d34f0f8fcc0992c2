// A signed-in form that asks for the password again (turning the authenticator off) is no password
// oracle for a stolen session: its failures count against the same per-account lock and per-address
// limit as sign-in (atomically, in the database), each one is audited, it needs a current code of
// the authenticator as well, and without an authenticator on it is a clear error whatever the
// password.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { WebClient, setUpTotp, text, userOf } from './web-client.js';
import { totp } from '../../src/modules/accounts/totp.js';
import { IP_FAILURE_LIMIT, LOCK_AFTER_FAILURES, RECHECK_FAILED } from '../../src/modules/accounts/accounts-service.js';

let gw: TestGateway;
let merchantId: number;
let seq = 0;
const PASSWORD = 'correct horse battery';
const WRONG = 'not the password at all';
const email = (p = 'u') => `${p}${++seq}@reauth.example`;
const DISABLE = '/dashboard/account/totp/disable';

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  merchantId = (await gw.createMerchant({ name: 'Reauth' })).id;
});
afterAll(async () => gw?.stop());
// Every test signs in and posts from 127.0.0.1: each starts with the address's count at zero.
beforeEach(async () => {
  await sql`delete from sign_in_address_attempts`.execute(gw.ctx.db);
});

async function auditOf(e: string, action: string) {
  const r = await sql<{ reason: string | null; form: string | null; ip: string | null }>`
    select detail->>'reason' as reason, detail->>'form' as form, ip from audit_log where action = ${action} and actor = ${e} order by id`.execute(gw.ctx.db);
  return r.rows;
}

/** A merchant user with an authenticator on; its set-up used the previous step, so the current code is free. */
async function withAuthenticator(e: string) {
  const c = await userOf(gw, merchantId, e);
  const secret = await setUpTotp(c);
  await c.get('/dashboard/account');
  return { c, secret };
}

describe('turning the authenticator off counts like sign-in', () => {
  it(`the ${LOCK_AFTER_FAILURES}th wrong password locks the account: then even the right password and code are refused (429), and sign-in is locked too; every failure is audited`, async () => {
    const e = email();
    const { c, secret } = await withAuthenticator(e);
    for (let i = 0; i < LOCK_AFTER_FAILURES; i++) {
      const r = await c.post(DISABLE, { password: WRONG, code: totp(secret, Date.now()) });
      expect(r.status).toBe(400);
      expect(text(r.body)).toContain(RECHECK_FAILED);
    }
    const locked = await c.post(DISABLE, { password: PASSWORD, code: totp(secret, Date.now()) });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(text(locked.body)).toContain('locked');
    // the authenticator is still on, and sign-in with the right password and code is refused while locked
    const row = (await sql<{ totp_enabled: boolean }>`select totp_enabled from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0];
    expect(row.totp_enabled).toBe(true);
    expect((await new WebClient(gw).signIn(e, PASSWORD, secret)).status).toBe(401);
    const failures = await auditOf(e, 'reauth_failed');
    expect(failures.map((f) => f.reason)).toEqual([...Array(LOCK_AFTER_FAILURES).fill('wrong password'), 'locked']);
    expect(failures.every((f) => f.form === 'totp_disable' && f.ip !== null)).toBe(true);
    expect(await auditOf(e, 'account_locked')).toHaveLength(1);
  });

  it('parallel wrong passwords: at most the lock-out count are evaluated, the rest are refused without a password check', async () => {
    const e = email();
    const { c, secret } = await withAuthenticator(e);
    const n = 12;
    const answers = await Promise.all(Array.from({ length: n }, () => c.post(DISABLE, { password: WRONG, code: totp(secret, Date.now()) })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(LOCK_AFTER_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(n - LOCK_AFTER_FAILURES);
    const reasons = (await auditOf(e, 'reauth_failed')).map((f) => f.reason);
    expect(reasons.filter((r) => r === 'wrong password')).toHaveLength(LOCK_AFTER_FAILURES);
    expect(reasons).toHaveLength(n);
  });

  it('failures count against the address as sign-in failures do: past the address limit the right password and code get 429', async () => {
    const e = email();
    const { c, secret } = await withAuthenticator(e);
    await sql`delete from sign_in_address_attempts`.execute(gw.ctx.db);
    // failed sign-ins of other addresses from the same address, then wrong passwords on the form
    const other = new WebClient(gw);
    for (let i = 0; i < IP_FAILURE_LIMIT - 2; i++) expect((await other.signIn(`nobody${i}@nowhere.example`, WRONG)).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await c.post(DISABLE, { password: WRONG, code: totp(secret, Date.now()) })).status).toBe(400);
    const over = await c.post(DISABLE, { password: PASSWORD, code: totp(secret, Date.now()) });
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await other.signIn(e, PASSWORD, secret)).status).toBe(429); // and sign-in from there too
    expect((await auditOf(e, 'reauth_failed')).map((f) => f.reason)).toEqual(['wrong password', 'wrong password', 'address over its limit']);
  });

  it('needs a current code as well as the password: without one, or with a wrong one, it is refused and audited; with both it works once', async () => {
    const e = email();
    const { c, secret } = await withAuthenticator(e);
    const now = Date.now();
    const wrongCode = totp(secret, now) === '000000' ? '111111' : '000000';
    for (const code of [undefined, wrongCode]) {
      const r = await c.post(DISABLE, { password: PASSWORD, ...(code ? { code } : {}) });
      expect(r.status).toBe(400);
      expect(text(r.body)).toContain(RECHECK_FAILED); // the same words as a wrong password: which one was wrong is not said
    }
    expect((await auditOf(e, 'reauth_failed')).map((f) => f.reason)).toEqual(['wrong or reused authentication code', 'wrong or reused authentication code']);
    const off = await c.post(DISABLE, { password: PASSWORD, code: totp(secret, now) });
    expect(off.status).toBe(200);
    expect(text(off.body)).toContain('The authenticator is off.');
    expect(await auditOf(e, 'totp_disabled')).toHaveLength(1);
    // a success resets the account's count, as a sign-in does
    const failed = (await sql<{ n: number }>`select failed_sign_ins as n from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0];
    expect(failed.n).toBe(0);
  });

  it('without an authenticator on, it is a clear error whatever the password: no oracle, nothing checked or counted', async () => {
    const e = email();
    const c = await userOf(gw, merchantId, e);
    await c.get('/dashboard/account');
    const answers = [];
    for (const password of [PASSWORD, WRONG]) {
      const r = await c.post(DISABLE, { password, code: '123456' });
      answers.push({ status: r.status, text: text(r.body) });
    }
    expect(answers[0].status).toBe(400);
    expect(answers[0].text).toContain('no authenticator is on');
    expect(answers[1]).toEqual(answers[0]);
    expect(await auditOf(e, 'totp_disabled')).toHaveLength(0);
    expect(await auditOf(e, 'reauth_failed')).toHaveLength(0);
  });

  it('the account page asks for the code next to the password', async () => {
    const { c } = await withAuthenticator(email());
    const page = await c.get('/dashboard/account');
    const form = /<form method="post" action="\/dashboard\/account\/totp\/disable"[\s\S]*?<\/form>/.exec(page.body)?.[0] ?? '';
    expect(form).toContain('name="password"');
    expect(form).toContain('name="code"');
  });
});
