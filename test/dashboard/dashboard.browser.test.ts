// The dashboard and the console in a real browser (Debian's chromium through playwright-core):
// invitation → password → TOTP → sign-in with the code → key rotation (old key refused at once)
// → withdrawal (balance drops) → the operator completes it; isolation between merchants; CSRF from
// another site and session fixation fail; screenshots on desktop and phone under test-output/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { chromiumAvailable, collectErrors, launchBrowser, outputPath, startSite, type Browser } from '../hosted/browser.js';
import { activeDeposit } from '../deposits/deposit-helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { totp, STEP_SECONDS } from '../../src/modules/accounts/totp.js';

const run = chromiumAvailable();
const PASSWORD = 'a very good password';
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

describe.skipIf(!run)('merchant dashboard and operator console in chromium', () => {
  let gw: TestGateway;
  let merchantBrowser: Browser;
  let operatorBrowser: Browser;
  let receiver: Receiver;
  let a: Awaited<ReturnType<TestGateway['createMerchant']>>;
  let b: Awaited<ReturnType<TestGateway['createMerchant']>>;
  let page: Page;
  let errors: string[];
  let apiKey: string;
  let totpSecret: string;

  beforeAll(async () => {
    [gw, merchantBrowser, operatorBrowser, receiver] = await Promise.all([startTestGateway(), launchBrowser(), launchBrowser(), startReceiver()]);
    a = await gw.createMerchant({ name: 'Skin Shop' });
    b = await gw.createMerchant({ name: 'Other Shop' });
    await gw.topUp(a.id, 100);
    apiKey = a.api_key;
    page = await merchantBrowser.newPage();
    page.on('dialog', (d) => void d.accept()); // the confirm() before a rotation
    errors = collectErrors(page);
  }, 60_000);
  afterAll(async () => {
    await merchantBrowser?.close();
    await operatorBrowser?.close();
    await receiver?.close();
    await gw?.stop();
  });

  const signIn = async (p: Page, email: string, code?: string) => {
    await p.goto(`${gw.url}/dashboard/sign-in`);
    await p.getByLabel('E-mail').fill(email);
    await p.getByLabel('Password').fill(PASSWORD);
    if (code) await p.getByLabel(/Authentication code/).fill(code);
    await p.locator('#sign-in').click();
  };

  it('invitation → set password → TOTP → sign in with the code (a planted session cookie is replaced)', async () => {
    const inv = await gw.admin('POST', `/merchants/${a.id}/invitations`, { email: 'owner@skinshop.example', role: 'owner' });
    await page.goto(inv.body.data.url);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Set your password');
    await page.getByLabel(/New password/).fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.locator('#set-password').click();
    await expect.poll(() => page.locator('.flash').textContent()).toContain('Your password is set');

    await signIn(page, 'owner@skinshop.example');
    await page.waitForURL(`${gw.url}/dashboard`);
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByRole('button', { name: 'Set up an authenticator' }).click();
    totpSecret = (await page.locator('#totp-secret').textContent())!;
    const confirmedAt = Date.now();
    await page.getByLabel('Code from the app').fill(totp(totpSecret, confirmedAt));
    await page.locator('#totp-confirm').click();
    await expect.poll(() => page.locator('.flash').textContent()).toContain('The authenticator is on');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/dashboard\/sign-in\?done=signed_out$/);
    expect(await page.locator('.flash').textContent()).toBe('You are signed out.');

    // session fixation: a cookie planted before sign-in never becomes the session
    const url = new URL(gw.url);
    await merchantBrowser.context.addCookies([{ name: 'sgw_session', value: 'planted0123456789planted0123456789planted012', domain: url.hostname, path: '/' }]);
    await signIn(page, 'owner@skinshop.example'); // no code
    await expect.poll(() => page.locator('.flash').textContent()).toContain('invalid e-mail, password or authentication code');
    await signIn(page, 'owner@skinshop.example', totp(totpSecret, confirmedAt + STEP_SECONDS * 1000));
    await page.waitForURL(`${gw.url}/dashboard`);
    const session = (await merchantBrowser.context.cookies()).find((c) => c.name === 'sgw_session')!;
    expect(session.value).not.toContain('planted');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('overview with the chart; deposit detail and webhook log; screenshots on desktop and phone', async () => {
    errors.length = 0; // the refused sign-in above answered 401 on purpose
    await page.goto(`${gw.url}/dashboard/webhooks`);
    await page.getByLabel(/Webhook URL/).fill(receiver.url('/hooks'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.flash').textContent()).toContain('Webhook URL saved');
    const d = await activeDeposit(gw, apiKey);
    await page.goto(`${gw.url}/dashboard/deposits/${d.id}`);
    await page.getByRole('button', { name: 'Accept with hold' }).click();
    await page.waitForURL(`${gw.url}/dashboard/deposits/${d.id}?done=sandbox_done`);
    expect(await page.locator('.flash').textContent()).toContain('The sandbox action was applied');
    await page.getByRole('button', { name: 'Release' }).click();
    await eventually(async () => receiver.on('/hooks').filter((r) => r.body.trade_id === d.id).length >= 2);

    for (const [name, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      await page.setViewportSize(size);
      await page.goto(`${gw.url}/dashboard`);
      await expect.poll(() => page.locator('#volume-chart').getAttribute('data-ready')).toBe('true');
      expect(await page.locator('#volume-chart canvas').count()).toBe(1);
      expect(await page.locator('#balance-total').textContent()).toMatch(/^\$\d/);
      await page.screenshot({ path: outputPath(`dashboard-overview-${name}.png`), fullPage: true });
      // readable at 360 px: nothing wider than the screen but the scrollable tables
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);

      await page.goto(`${gw.url}/dashboard/deposits/${d.id}`);
      await eventually(async () => {
        await page.reload();
        return (await page.locator('#timeline li').count()) >= 4 && (await page.locator('.event .state-delivered').count()) >= 2;
      });
      expect(await page.locator('#timeline').textContent()).toMatch(/hold → completed/);
      await page.screenshot({ path: outputPath(`dashboard-deposit-${name}.png`), fullPage: true });

      await page.goto(`${gw.url}/dashboard/webhooks`);
      await page.locator('details.event summary').first().click();
      await page.screenshot({ path: outputPath(`dashboard-webhooks-${name}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);
    // every part of the page loads under the strict CSP (chart library included), no errors
    expect(errors).toEqual([]);
  }, 60_000);

  it('rotating the API key shows the new key once; the old key is refused by the merchant API at once', async () => {
    await page.goto(`${gw.url}/dashboard/developers`);
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    const key = (await page.locator('#secret-value').textContent())!;
    expect(key).toMatch(/^sk_/);
    expect((await gw.merchant(apiKey, 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(key, 'GET', '/balance')).status).toBe(200);
    apiKey = key;
  });

  it('a withdrawal drops the available balance at once; the operator completes it in the console', async () => {
    const before = (await gw.merchant(apiKey, 'GET', '/balance')).body.data.available as number;
    await page.goto(`${gw.url}/dashboard/withdrawals`);
    await page.getByLabel('Amount (USD)').fill('30');
    await page.getByLabel(/Reference/).fill('payout-1');
    await page.locator('#request-withdrawal').click();
    await expect.poll(() => page.locator('.flash').textContent()).toContain('requested');
    const after = (await gw.merchant(apiKey, 'GET', '/balance')).body.data.available as number;
    expect(Math.round((before - after) * 1000)).toBe(30_000);
    const shown = (await page.locator('#withdraw-available').textContent())!;
    expect(shown).toMatch(/^\$\d{1,3}(,\d{3})*\.\d{2,3}$/);
    expect(Number(shown.replace(/[$,]/g, ''))).toBe(after);

    const op = await operatorBrowser.newPage();
    const opErrors = collectErrors(op);
    const inv = await gw.admin('POST', '/operators/invitations', { email: 'ops@gateway.example' });
    await op.goto(inv.body.data.url);
    await op.getByLabel(/New password/).fill(PASSWORD);
    await op.getByLabel('Repeat the password').fill(PASSWORD);
    await op.locator('#set-password').click();
    await op.getByLabel('Password').fill(PASSWORD);
    await op.locator('#sign-in').click();
    // operators always sign in with an authenticator: one without is sent to set it up first
    await op.waitForURL(`${gw.url}/dashboard/account`);
    expect(await op.locator('#totp-required').textContent()).toContain('Operators sign in with an authenticator');
    await op.getByRole('button', { name: 'Set up an authenticator' }).click();
    const opSecret = (await op.locator('#totp-secret').textContent())!;
    await op.getByLabel('Code from the app').fill(totp(opSecret, Date.now()));
    await op.locator('#totp-confirm').click();
    await expect.poll(() => op.locator('.flash').textContent()).toContain('The authenticator is on');
    await op.goto(`${gw.url}/console`);
    const row = op.locator('tr', { hasText: 'payout-1' });
    await row.getByRole('button', { name: 'Complete' }).click();
    await op.waitForURL(`${gw.url}/console?done=withdrawal_completed`);
    expect(await op.locator('.flash').textContent()).toContain('The withdrawal is completed.');
    expect(await op.locator('tr', { hasText: 'payout-1' }).count()).toBe(0);
    await op.goto(`${gw.url}/console/system`);
    expect(await op.locator('#ledger-verify').textContent()).toContain('Every balance equals');
    expect(opErrors).toEqual([]);

    await page.goto(`${gw.url}/dashboard/withdrawals`);
    expect(await page.locator('tr', { hasText: 'payout-1' }).textContent()).toContain('completed');
  }, 60_000);

  it("another merchant's records are not found through any page, and its forms refuse", async () => {
    const other = await activeDeposit(gw, b.api_key);
    const res = await page.goto(`${gw.url}/dashboard/deposits/${other.id}`);
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    // a form post forged in the page with this user's own valid token still cannot touch B's deposit
    await page.goto(`${gw.url}/dashboard/withdrawals`);
    const status = await page.evaluate(async (id) => {
      const csrf = (document.querySelector('input[name="_csrf"]') as HTMLInputElement).value;
      const r = await fetch(`/dashboard/deposits/${id}/sandbox/decline`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(csrf)}` });
      return r.status;
    }, other.id);
    expect(status).toBe(404);
    expect((await gw.merchant(b.api_key, 'GET', `/deposit/status?id=${other.id}`)).body.data.status).toBe('active');
    expect(await (await page.goto(`${gw.url}/console`))!.status()).toBe(403);
  });

  it('a form posted from another site does nothing (SameSite cookie, origin check, CSRF token)', async () => {
    const count = async () => (await gw.ctx.db.selectFrom('withdrawals').select('id').where('merchant_id', '=', a.id).execute()).length;
    const before = await count();
    const site = await startSite({
      '/evil': () => `<!doctype html><html><body><form id="f" method="post" action="${gw.url}/dashboard/withdrawals">
<input name="amount" value="5"><input name="_csrf" value="guess"></form><button id="go" onclick="document.getElementById('f').submit()">go</button></body></html>`,
    });
    try {
      const evil = await merchantBrowser.newPage();
      await evil.goto(`${site.origin}/evil`);
      const [response] = await Promise.all([evil.waitForNavigation(), evil.locator('#go').click()]);
      // without the Strict cookie the post is anonymous: refused before any handler runs
      expect([303, 403]).toContain(response!.request().redirectedFrom() ? 303 : response!.status());
      expect(await count()).toBe(before);
      // the signed-in tab is still signed in (nothing was revoked or changed)
      await page.goto(`${gw.url}/dashboard/withdrawals`);
      expect(await page.locator('h1').textContent()).toBe('Withdrawals');
    } finally {
      await site.close();
    }
  });
});
