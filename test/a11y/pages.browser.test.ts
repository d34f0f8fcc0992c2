// Every page of the merchant dashboard and the operator console, the sign-in, invitation and
// password reset pages, and the hosted deposit page in each of its states, in a real browser at
// 1280 and 375 px: 0 axe-core violations (WCAG 2.x A/AA), nothing wider than the screen, no console
// error. At 375 px the section menu opens from its button, and screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { chromiumAvailable, collectErrors, launchPageBrowser, outputPath, type PageBrowser } from '../hosted/browser.js';
import { axeViolations } from './axe.js';
import { userOf, type WebClient } from '../dashboard/web-client.js';
import { activeDeposit } from '../deposits/deposit-helpers.js';
import { startSmtpReceiver, type SmtpReceiver } from '../dashboard/smtp-receiver.js';

const run = chromiumAvailable();
const WIDTHS = [1280, 375];
const within = { timeout: 60_000 }; // a deadline for a status that never comes, not a speed bound
// Pages checked at once, each in its own browser context (its own cookies): axe in chromium and the
// gateway's rendering overlap; one page at a time left a core idle while the other waited.
const TABS = 3;

/** fn over items, `n` at a time; after a failure no new item starts, and the first error is thrown. */
async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length && errors.length === 0) {
      const item = items[next++];
      await fn(item).catch((e) => errors.push(e));
    }
  }));
  if (errors.length) throw errors[0];
}

describe.skipIf(!run)('accessibility of every page in chromium', () => {
  let gw: TestGateway;
  let browser: PageBrowser;
  let owner: WebClient;
  let operator: WebClient;
  let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
  let depositId: number;
  let purchaseId: number;
  let rx: SmtpReceiver;
  const pages: { who: 'owner' | 'operator' | 'anonymous'; path: string; status?: number }[] = [];

  beforeAll(async () => {
    // With SMTP (a receiver in the test): the "forgot password" form is shown, reset links are e-mailed.
    rx = await startSmtpReceiver();
    [gw, browser] = await Promise.all([startTestGateway({ SMTP_URL: rx.url, SMTP_FROM: 'no-reply@a11y.example' }), launchPageBrowser()]);
    m = await gw.createMerchant({ name: 'Accessible Shop', max_items: 4 });
    await gw.topUp(m.id, 1001.243);
    const d = await activeDeposit(gw, m.api_key);
    depositId = d.id;
    await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: true });
    const p = await sql<{ id: number }>`insert into purchases (merchant_id, merchant_tx_id, status, game, partner, token, platform_id, amount, item_name, item_asset_id, trade_offer_id)
      values (${m.id}, 'a11y-buy-1', 'failed', 'csgo', 12345678, 'abcdefgh', '76561198000000000', 2500, 'AWP | Asiimov (Field-Tested)', '32000000001', '6200000001') returning id`.execute(gw.ctx.db);
    purchaseId = Number(p.rows[0].id);
    // one merchant_tx_id on a deposit and a purchase: the console's lookup lists both
    await sql`update deposits set merchant_tx_id = 'a11y-shared' where id = ${depositId}`.execute(gw.ctx.db);
    await sql`update purchases set merchant_tx_id = 'a11y-shared' where id = ${purchaseId}`.execute(gw.ctx.db);
    [owner, operator] = await Promise.all([userOf(gw, m.id, 'owner@a11y.example'), userOf(gw, null, 'ops@a11y.example')]);
    await owner.get('/dashboard/withdrawals');
    await owner.post('/dashboard/withdrawals', { amount: '12.5', reference: 'payout-a11y' });
    await userOf(gw, m.id, 'dev@a11y.example', 'developer');
    await gw.merchant(m.api_key, 'GET', '/balance'); // a request for the request log

    const invite = await gw.admin('POST', `/merchants/${m.id}/invitations`, { email: 'new@a11y.example', role: 'viewer' });
    const devId = Number((await sql<{ id: number }>`select id from dashboard_users where email = 'dev@a11y.example'`.execute(gw.ctx.db)).rows[0].id);
    await owner.get('/dashboard/team');
    await owner.post(`/dashboard/team/${devId}/password-reset`);
    const reset = (await eventually(async () => rx.mails.find((x) => x.to.includes('dev@a11y.example')), 30_000)).link!;

    for (const path of ['/dashboard', '/dashboard/deposits', `/dashboard/deposits/${depositId}`, '/dashboard/purchases', `/dashboard/purchases/${purchaseId}`, '/dashboard/ledger',
      '/dashboard/withdrawals', '/dashboard/webhooks', '/dashboard/developers', '/dashboard/requests', '/dashboard/team', '/dashboard/audit', '/dashboard/account']) pages.push({ who: 'owner', path });
    for (const path of ['/console', '/console/find', '/console/find?q=a11y-shared', `/console/merchants/${m.id}`, `/console/deposits/${depositId}`, `/console/purchases/${purchaseId}`,
      '/console/system', '/console/bots', '/console/reconciliation', '/console/operators', '/console/audit', '/console?done=withdrawal_completed', '/dashboard/account']) pages.push({ who: 'operator', path });
    pages.push({ who: 'operator', path: '/console/find?q=nothing-has-this', status: 404 });
    pages.push({ who: 'anonymous', path: '/dashboard/sign-in' });
    pages.push({ who: 'anonymous', path: '/dashboard/forgot' });
    pages.push({ who: 'anonymous', path: new URL(invite.body.data.url).pathname });
    pages.push({ who: 'anonymous', path: new URL(reset).pathname });
    pages.push({ who: 'anonymous', path: '/dashboard/no-such-page', status: 404 });
  }, 300_000); // a hang detector: at load 40 this set-up took over 120 s
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
    await rx?.close();
  });

  async function open(who: 'owner' | 'operator' | 'anonymous', width: number): Promise<Page> {
    // a fresh context per page: only this user's session cookie, as a clean browser would have
    const c = who === 'owner' ? owner : who === 'operator' ? operator : undefined;
    return browser.newPage({ width, height: 900 }, c ? [{ name: 'sgw_session', value: c.cookies.get('sgw_session')!, url: gw.url }] : []);
  }

  async function check(page: Page, label: string, width: number) {
    expect(await axeViolations(page), label).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${label}: wider than the screen`).toBeLessThanOrEqual(width);
  }

  for (const width of WIDTHS) {
    it(`every dashboard, console and account page at ${width}px: 0 axe violations, nothing wider than the screen`, async () => {
      const shots: string[] = [];
      await inParallel(pages, TABS, async (p) => {
        const page = await open(p.who, width);
        const errors = collectErrors(page);
        const res = await page.goto(`${gw.url}${p.path}`);
        expect(res?.status(), `${p.who} ${p.path}`).toBe(p.status ?? 200);
        await page.waitForLoadState('load');
        await check(page, `${p.who} ${p.path} at ${width}px`, width);
        expect(errors.filter((e) => !(p.status === 404 && /HTTP 404/.test(e) || /status of 404/.test(e))), p.path).toEqual([]);
        if (width === 375 && p.who !== 'anonymous') {
          const name = `a11y-375-${p.who}-${p.path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.png`;
          await page.screenshot({ path: outputPath(name), fullPage: true });
          shots.push(name);
        }
        await page.close();
      });
      if (shots.length) console.log(`phone screenshots (375 px) in test-output/: ${shots.join(', ')}`);
    }, 600_000);
  }

  it('on a phone the section menu is behind a button that opens and closes it', async () => {
    const page = await open('owner', 375);
    await page.goto(`${gw.url}/dashboard/deposits`);
    const button = page.getByRole('button', { name: 'Menu' });
    await expect.poll(() => button.isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Ledger' }).isVisible()).toBe(false);
    await button.click();
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByRole('link', { name: 'Ledger' }).isVisible()).toBe(true);
    await check(page, 'open menu at 375px', 375);
    await page.screenshot({ path: outputPath('a11y-375-menu-open.png') });
    await page.getByRole('link', { name: 'Ledger' }).click();
    await page.waitForURL(`${gw.url}/dashboard/ledger`);
    // at 1280 px the list is always shown and there is no button
    const wide = await open('owner', 1280);
    await wide.goto(`${gw.url}/dashboard/deposits`);
    expect(await wide.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    expect(await wide.getByRole('link', { name: 'Ledger' }).isVisible()).toBe(true);
    await page.close();
    await wide.close();
  }, 120_000);

  it('money has one format (three decimals) and amounts are aligned right in tables', async () => {
    const page = await open('owner', 1280);
    await page.goto(`${gw.url}/dashboard/ledger`);
    const cells = await page.locator('td.num').allTextContents();
    expect(cells.length).toBeGreaterThan(0);
    for (const c of cells) expect(c).toMatch(/^-?\$\d{1,3}(,\d{3})*\.\d{3}$/);
    expect(cells).toContain('$1,001.243');
    expect(await page.locator('td.num').first().evaluate((e) => getComputedStyle(e).textAlign)).toBe('right');
    await page.close();
  }, 60_000);

  describe('the hosted deposit page in its states', () => {
    let seq = 0;
    const intent = async () => {
      const r = await gw.merchant(m.api_key, 'POST', '/create-intent', { merchant_tx_id: `a11y-intent-${++seq}` });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data as { id: number; url: string };
    };

    for (const width of WIDTHS) {
      it(`at ${width}px: trade-link form, item list (one selected), offer sent, completed, not valid — 0 axe violations each`, async () => {
        const page = await open('anonymous', width);
        const i = await intent();
        await page.goto(i.url);
        await page.locator('#trade-link').waitFor();
        await check(page, `hosted trade-link form at ${width}px`, width);
        await page.locator('#trade-link').fill('https://steamcommunity.com/tradeoffer/new/?partner=41234568&token=AbCd1234');
        await page.locator('#game').selectOption('csgo');
        await page.locator('#link-submit').click();
        const cards = page.locator('.card');
        await cards.first().waitFor();
        await cards.first().click();
        await check(page, `hosted item list at ${width}px`, width);
        await page.screenshot({ path: outputPath(`a11y-${width}-hosted-items.png`) });
        await page.locator('#deposit').click();
        await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('active');
        await check(page, `hosted offer sent at ${width}px`, width);
        await page.screenshot({ path: outputPath(`a11y-${width}-hosted-offer.png`) });
        await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${i.id}/accept`, { hold: false });
        await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('completed');
        await check(page, `hosted completed at ${width}px`, width);
        await page.goto(`${gw.url}/deposit/${'Z'.repeat(43)}`);
        await page.locator('#view-gone').waitFor();
        await check(page, `hosted not valid at ${width}px`, width);
        await page.close();
      }, 180_000);
    }
  });
});
