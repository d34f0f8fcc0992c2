// Sign-in limits under parallel attempts (issue 21): the per-address limit and the per-account
// lock-out reserve each attempt in the database before the password is looked at, so however many
// attempts run at once, at most the limit are evaluated — at the limit, one past it, and far past.
// Also: a known and an unknown address cost the same statements, and the pre-sign-in token pair
// must be one the gateway issued.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { statementLog } from '../statement-log.js';
import { WebClient, userOf } from './web-client.js';
import { IP_FAILURE_LIMIT, LOCK_AFTER_FAILURES } from '../../src/modules/accounts/accounts-service.js';
import { checkPreCsrf, PRE_TOKEN_TTL_SECONDS } from '../../src/modules/web/sign-in/web-session.js';

let gw: TestGateway;
let merchantId: number;
let seq = 0;
const PASSWORD = 'correct horse battery';
const email = (p = 'u') => `${p}${++seq}@limits.example`;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  merchantId = (await gw.createMerchant({ name: 'Limits' })).id;
});
afterAll(async () => gw?.stop());
beforeEach(async () => {
  await sql`delete from sign_in_address_attempts`.execute(gw.ctx.db);
});

/** Clients that each loaded the sign-in page (so they hold a valid form token), then post at once. */
async function parallelSignIns(n: number, attempt: (i: number) => { email: string; password: string; ip: string }) {
  const clients = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const c = new WebClient(gw, undefined, attempt(i).ip);
      await c.get('/dashboard/sign-in');
      return c;
    }),
  );
  const answers = await Promise.all(clients.map((c, i) => c.post('/dashboard/sign-in', { email: attempt(i).email, password: attempt(i).password })));
  return answers.map((a) => a.status);
}

const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;

async function failureReasons(actor: string) {
  const r = await sql<{ reason: string }>`select detail->>'reason' as reason from audit_log where action = 'sign_in_failed' and actor = ${actor}`.execute(gw.ctx.db);
  return r.rows.map((x) => x.reason);
}

describe('per-address limit, parallel attempts', () => {
  for (const n of [IP_FAILURE_LIMIT, IP_FAILURE_LIMIT + 1, 40, 60]) {
    it(`${n} parallel wrong sign-ins from one address: ${Math.min(n, IP_FAILURE_LIMIT)} evaluated, the rest 429 without evaluation`, async () => {
      const ip = `10.1.0.${n}`;
      const before = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'sign_in_failed' and ip = ${ip}`.execute(gw.ctx.db);
      const statuses = await parallelSignIns(n, (i) => ({ email: `nobody${i}@nowhere.example`, password: 'wrong password!', ip }));
      expect(count(statuses, 401)).toBe(Math.min(n, IP_FAILURE_LIMIT));
      expect(count(statuses, 429)).toBe(Math.max(0, n - IP_FAILURE_LIMIT));
      const after = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'sign_in_failed' and ip = ${ip}`.execute(gw.ctx.db);
      expect(after.rows[0].n - before.rows[0].n).toBe(Math.min(n, IP_FAILURE_LIMIT)); // only evaluated attempts reach the audit
    });
  }

  it('a success gives its place back (only failures count); the 429 says when the window ends', async () => {
    const ip = '10.2.0.1';
    const e = email();
    await userOf(gw, merchantId, e);
    await sql`delete from sign_in_address_attempts`.execute(gw.ctx.db); // userOf signed in from 127.0.0.1 only, but start clean
    const c = new WebClient(gw, undefined, ip);
    for (let i = 0; i < IP_FAILURE_LIMIT - 1; i++) expect((await c.signIn(`nobody${i}@nowhere.example`, 'wrong password!')).status).toBe(401);
    expect((await c.signIn(e, PASSWORD)).status).toBe(303);
    expect((await c.signIn('last@nowhere.example', 'wrong password!')).status).toBe(401); // the limit-th failure
    const limited = await c.signIn('over@nowhere.example', 'wrong password!');
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
  });

  it('the window ends: an address over its limit may try again once its window has passed', async () => {
    const ip = '10.2.0.2';
    const statuses = await parallelSignIns(IP_FAILURE_LIMIT + 1, (i) => ({ email: `nobody${i}@nowhere.example`, password: 'wrong password!', ip }));
    expect(count(statuses, 429)).toBe(1);
    await sql`update sign_in_address_attempts set window_started_at = now() - interval '15 minutes' where ip = ${ip}`.execute(gw.ctx.db);
    expect((await new WebClient(gw, undefined, ip).signIn('again@nowhere.example', 'wrong password!')).status).toBe(401);
  });
});

describe('per-account lock-out, parallel attempts', () => {
  for (const n of [LOCK_AFTER_FAILURES, LOCK_AFTER_FAILURES + 1, 60]) {
    it(`${n} parallel wrong passwords on one account: ${Math.min(n, LOCK_AFTER_FAILURES)} evaluated, then locked`, async () => {
      const e = email();
      await userOf(gw, merchantId, e);
      const statuses = await parallelSignIns(n, (i) => ({ email: e, password: `wrong password ${i}`, ip: `10.3.${n}.${i + 1}` }));
      expect(count(statuses, 401)).toBe(n);
      const reasons = await failureReasons(e);
      expect(count(reasons.map((r) => (r === 'wrong password' ? 1 : 0)), 1)).toBe(Math.min(n, LOCK_AFTER_FAILURES));
      expect(count(reasons.map((r) => (r === 'locked' ? 1 : 0)), 1)).toBe(Math.max(0, n - LOCK_AFTER_FAILURES));
      const locked = await sql<{ n: number }>`select count(*)::int as n from audit_log where action = 'account_locked' and actor = ${e}`.execute(gw.ctx.db);
      expect(locked.rows[0].n).toBe(1);
      // locked: even the right password is refused
      expect((await new WebClient(gw, undefined, '10.4.0.1').signIn(e, PASSWORD)).status).toBe(401);
    });
  }

  it(`${LOCK_AFTER_FAILURES - 1} failures leave the account open, and a success resets the count`, async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const statuses = await parallelSignIns(LOCK_AFTER_FAILURES - 1, (i) => ({ email: e, password: `wrong password ${i}`, ip: `10.5.0.${i + 1}` }));
    expect(count(statuses, 401)).toBe(LOCK_AFTER_FAILURES - 1);
    expect((await new WebClient(gw, undefined, '10.5.1.1').signIn(e, PASSWORD)).status).toBe(303);
    const again = await parallelSignIns(LOCK_AFTER_FAILURES - 1, (i) => ({ email: e, password: `wrong password ${i}`, ip: `10.5.2.${i + 1}` }));
    expect(count(again, 401)).toBe(LOCK_AFTER_FAILURES - 1);
    expect((await new WebClient(gw, undefined, '10.5.3.1').signIn(e, PASSWORD)).status).toBe(303);
  });
});

describe('same work for a known and an unknown address', () => {
  it('a wrong password on a known account and any password on an unknown address run the same statements', async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const log = statementLog(gw.ctx.pool);
    const shapes = async (address: string) => {
      const c = new WebClient(gw, undefined, '10.6.0.1');
      await c.get('/dashboard/sign-in');
      const { statements } = await log.during(() => c.post('/dashboard/sign-in', { email: address, password: 'wrong password!' }));
      return statements;
    };
    const known = await shapes(e);
    const unknown = await shapes(email('nobody'));
    expect(known.length).toBeGreaterThan(0);
    expect(unknown).toEqual(known);
  });
});

describe('pre-sign-in form token', () => {
  it('a planted cookie with a matching form field is refused; the gateway replaces the cookie; another browser\'s token does not fit', async () => {
    const e = email();
    await userOf(gw, merchantId, e);
    const c = new WebClient(gw, undefined, '10.7.0.1');
    c.cookies.set('sgw_pre', 'z'.repeat(43));
    expect((await c.post('/dashboard/sign-in', { email: e, password: PASSWORD, _csrf: 'z'.repeat(43) })).status).toBe(403);
    await c.get('/dashboard/sign-in');
    expect(c.cookies.get('sgw_pre')).not.toBe('z'.repeat(43)); // not one of ours: replaced
    const other = new WebClient(gw, undefined, '10.7.0.2');
    await other.get('/dashboard/sign-in');
    expect((await c.post('/dashboard/sign-in', { email: e, password: PASSWORD, _csrf: other.lastCsrf })).status).toBe(403);
    await c.get('/dashboard/sign-in');
    expect((await c.post('/dashboard/sign-in', { email: e, password: PASSWORD })).status).toBe(303);
  });

  it(`a form token expires after ${PRE_TOKEN_TTL_SECONDS} s`, async () => {
    const c = new WebClient(gw, undefined, '10.7.0.3');
    await c.get('/dashboard/sign-in');
    const key = await sql<{ key: Buffer }>`select key from web_keys where name = 'pre_sign_in'`.execute(gw.ctx.db).then((r) => r.rows[0].key);
    const issuedMs = Number(c.lastCsrf.split('.')[0]) * 1000;
    const req = { headers: { cookie: `sgw_pre=${c.cookies.get('sgw_pre')}` }, form: { _csrf: c.lastCsrf } } as never;
    expect(() => checkPreCsrf(req, key, issuedMs + PRE_TOKEN_TTL_SECONDS * 1000)).not.toThrow();
    expect(() => checkPreCsrf(req, key, issuedMs + (PRE_TOKEN_TTL_SECONDS + 1) * 1000)).toThrow(/CSRF/);
    expect(() => checkPreCsrf(req, key, issuedMs - 1000)).toThrow(/CSRF/);
  });
});
