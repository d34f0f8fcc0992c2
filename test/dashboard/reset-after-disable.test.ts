// Disabling a user ends, for good, every link and session issued before: a password reset link, an
// invitation link, a session, and a mail job asked for before the disable give nothing once the user
// is enabled again; links issued after the enable work. Link tokens are compared as the exact text
// presented: padded, case-folded, blank or empty tokens are never valid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { WebClient, text, userOf } from './web-client.js';
import { letterFor } from '../../src/modules/mail/letters.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';
let seq = 0;
const email = (p = 'u') => `${p}${++seq}@disable.example`;

let gw: TestGateway;
let merchantId: number;
let owner: WebClient;

const userId = async (e: string) => Number((await sql<{ id: number }>`select id from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0].id);
const linkOf = (body: string) => /id="secret-value">([^<]+)</.exec(body)?.[1] ?? '';

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  merchantId = (await gw.createMerchant({ name: 'Disable Shop' })).id;
  owner = await userOf(gw, merchantId, email('owner'));
}, 60_000);
afterAll(async () => gw?.stop());

async function ownerPost(path: string, form: Record<string, string> = {}) {
  await owner.get('/dashboard/team');
  return owner.post(path, form);
}

async function disableAndEnable(id: number) {
  expect((await ownerPost(`/dashboard/team/${id}/disable`)).status).toBe(303);
  expect((await ownerPost(`/dashboard/team/${id}/enable`)).status).toBe(303);
}

/** Opens a link in a fresh browser and sets the password through it: the page's status, then the post's. */
async function useLink(url: string) {
  const path = new URL(url).pathname;
  const c = new WebClient(gw);
  const page = await c.get(path);
  if (page.status !== 200) return [page.status];
  const done = await c.post(path, { password: NEW_PASSWORD, password2: NEW_PASSWORD });
  return [page.status, done.status];
}

describe('a disable ends what was issued before, for good', () => {
  it('a password reset link issued before a disable does not work after the user is enabled; one issued after does', async () => {
    const e = email('dev');
    await userOf(gw, merchantId, e, 'developer');
    const id = await userId(e);
    const before = linkOf((await ownerPost(`/dashboard/team/${id}/password-reset`)).body);
    expect(before).toMatch(/\/dashboard\/reset\/pwr_/);
    await disableAndEnable(id);
    expect(await useLink(before)).toEqual([404]);
    // the old password still works: nothing was changed through the old link
    expect((await new WebClient(gw).signIn(e, PASSWORD)).status).toBe(303);
    const after = linkOf((await ownerPost(`/dashboard/team/${id}/password-reset`)).body);
    expect(await useLink(after)).toEqual([200, 200]);
    expect((await new WebClient(gw).signIn(e, NEW_PASSWORD)).status).toBe(303);
  });

  it('an invitation link issued before a disable does not work after the user is enabled; a new invitation does', async () => {
    const e = email('invitee');
    const invited = await ownerPost('/dashboard/team/invite', { email: e, role: 'viewer' });
    const before = linkOf(invited.body);
    expect(before).toMatch(/\/dashboard\/invite\/inv_/);
    await disableAndEnable(await userId(e));
    expect(await useLink(before)).toEqual([404]);
    expect((await sql<{ set: boolean }>`select password_hash is not null as set from dashboard_users where email = ${e}`.execute(gw.ctx.db)).rows[0].set).toBe(false);
    const after = linkOf((await ownerPost('/dashboard/team/invite', { email: e, role: 'viewer' })).body);
    expect(await useLink(after)).toEqual([200, 200]);
  });

  it('a disabled user cannot be invited again until enabled (the clear error, no link)', async () => {
    const e = email('pending');
    await ownerPost('/dashboard/team/invite', { email: e, role: 'viewer' });
    expect((await ownerPost(`/dashboard/team/${await userId(e)}/disable`)).status).toBe(303);
    const again = await ownerPost('/dashboard/team/invite', { email: e, role: 'viewer' });
    expect(again.status).toBe(400);
    expect(text(again.body)).toContain('this account is disabled');
    expect(linkOf(again.body)).toBe('');
  });

  it('a session from before a disable stays ended after the user is enabled', async () => {
    const e = email('session');
    const c = await userOf(gw, merchantId, e, 'viewer');
    expect((await c.get('/dashboard')).status).toBe(200);
    await disableAndEnable(await userId(e));
    const r = await c.get('/dashboard');
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/dashboard\/sign-in/);
  });

  it('a mail job asked for before a disable mints no link after the user is enabled; one asked for after does', async () => {
    const e = email('mailed');
    await userOf(gw, merchantId, e, 'developer');
    const id = await userId(e);
    const asked = Date.now() - 1000;
    await disableAndEnable(id);
    const deps = { db: gw.ctx.db, config: { publicUrl: gw.ctx.config.publicUrl }, merchants: gw.ctx.merchants };
    const links = async () => (await sql<{ n: number }>`select count(*)::int as n from dashboard_password_resets where user_id = ${id}`.execute(gw.ctx.db)).rows[0].n;
    const n = await links();
    expect(await letterFor(deps, { kind: 'password_reset', user_id: id, by: 'owner', at: asked })).toBeUndefined();
    expect(await letterFor(deps, { kind: 'forgot_password', email: e, ip: null, at: asked })).toBeUndefined();
    expect(await links()).toBe(n); // no link minted
    const later = await letterFor(deps, { kind: 'password_reset', user_id: id, by: 'owner', at: Date.now() + 1000 });
    expect(later?.text).toContain('/dashboard/reset/pwr_');
  });
});

describe('link tokens are the exact text presented', () => {
  it('a reset or invitation token padded with a space or tab, in other case, cut short, blank or empty is not valid; the exact one is', async () => {
    const e = email('exact');
    await userOf(gw, merchantId, e, 'developer');
    const reset = new URL(linkOf((await ownerPost(`/dashboard/team/${await userId(e)}/password-reset`)).body)).pathname;
    const invite = new URL(linkOf((await ownerPost('/dashboard/team/invite', { email: email('exact-invitee'), role: 'viewer' })).body)).pathname;
    for (const path of [reset, invite]) {
      const base = path.slice(0, path.lastIndexOf('/') + 1);
      const token = path.slice(base.length);
      const variants = [`${token}%20`, `%20${token}`, `${token}%09`, token.toUpperCase(), token.slice(0, -1), '%20', '%20%20', ''];
      for (const v of variants) {
        const c = new WebClient(gw);
        const r = await c.get(`${base}${v}`);
        expect(r.status, `${base}${v}`).toBe(404);
      }
      expect((await new WebClient(gw).get(path)).status).toBe(200);
    }
  });
});
