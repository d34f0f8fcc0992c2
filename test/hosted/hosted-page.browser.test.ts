// The hosted deposit page in a real browser (Debian's chromium through playwright-core): the whole
// redirect flow from create-intent to a completed deposit, the trade-link form, a platform refusal,
// a phone-sized screen, and embedding in a merchant's page on another origin (postMessage events).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { chromiumAvailable, collectErrors, launchBrowser, outputPath, startSite, type Browser } from './browser.js';

const run = chromiumAvailable();

describe.skipIf(!run)('hosted deposit page in chromium', () => {
  let gw: TestGateway;
  let browser: Browser;
  let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
  let seq = 0;
  const txId = () => `page-${Date.now()}-${++seq}`;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startTestGateway(), launchBrowser()]);
    m = await gw.createMerchant({ name: 'Skin Shop', max_items: 4 });
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  async function createIntent(body: Record<string, unknown> = {}, key = m.api_key) {
    const res = await gw.merchant(key, 'POST', '/create-intent', { merchant_tx_id: txId(), ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { id: number; merchant_tx_id: string; url: string };
  }

  /** The page polls every 1.5 s: status changes need more than expect.poll's default second. */
  const within = { timeout: 60_000 }; // a deadline for a status that never comes, not a speed bound
  const usd = (s: string) => Math.round(Number(s.replace(/[^0-9.]/g, '')) * 1000);

  async function pasteLink(page: Page, link: string, game?: string) {
    await page.locator('#trade-link').fill(link);
    if (game) await page.locator('#game').selectOption(game);
    await page.locator('#link-submit').click();
  }

  it('full flow: create-intent → trade link → pick items → deposit → accept → completed', async () => {
    const intent = await createIntent();
    const page = await browser.newPage();
    const errors = collectErrors(page);
    await page.goto(intent.url);
    await expect.poll(() => page.locator('#subtitle').textContent(), within).toContain(intent.merchant_tx_id);
    expect(await page.locator('#subtitle').textContent()).toContain('Skin Shop');

    // no trade link and no game on the intent: the form asks for both
    expect(await page.locator('#trade-link').isVisible()).toBe(true);
    expect(await page.locator('#game').isVisible()).toBe(true);
    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=41234567&token=AbCd1234', 'csgo');

    const cards = page.locator('.card');
    await cards.first().waitFor();
    const count = await cards.count();
    expect(count).toBeGreaterThan(4);
    // every card shows an image, a name and a price; rarity colours are applied
    const first = cards.first();
    expect(await first.locator('img, .ph').count()).toBe(1);
    expect((await first.locator('.card-name').textContent())?.length).toBeGreaterThan(2);
    expect(await first.locator('.card-price').textContent()).toMatch(/^\$\d/);
    const rarityColours = await cards.evaluateAll((els) => els.map((e) => (e as HTMLElement).style.getPropertyValue('--rarity')).filter(Boolean));
    expect(rarityColours.length).toBeGreaterThan(0);
    await page.evaluate(() => Promise.all([...document.images].map((i) => (i.complete ? null : new Promise((r) => i.addEventListener('load', r, { once: true }))))));

    const shot = outputPath('hosted-inventory.png');
    await page.screenshot({ path: shot, fullPage: false });
    console.log(`hosted page screenshot (inventory grid): ${shot}`);

    // select three, the running total follows; the fifth selection is over the limit (max_items 4)
    let expected = 0;
    for (let i = 0; i < 3; i++) {
      await cards.nth(i).click();
      expected += usd((await cards.nth(i).locator('.card-price').textContent())!);
      expect(await cards.nth(i).getAttribute('aria-pressed')).toBe('true');
    }
    expect(usd((await page.locator('#total').textContent())!)).toBe(expected);
    expect(await page.locator('#count').textContent()).toBe('3 of max 4 selected');
    await cards.nth(3).click();
    await cards.nth(4).click();
    expect(await cards.nth(4).getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => page.locator('#alert').textContent(), within).toContain('up to 4 items');
    await cards.nth(3).click(); // unselect again
    expect(usd((await page.locator('#total').textContent())!)).toBe(expected);

    await page.locator('#deposit').click();
    await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('active');
    const bot = await page.locator('#offer-bot').textContent();
    const offerId = await page.locator('#offer-id').textContent();
    expect(bot).toMatch(/Bot/);
    expect(offerId).toMatch(/^\d+$/);
    await expect.poll(() => page.locator('#offer-expiry').textContent(), within).toMatch(/^\d+:\d{2}$/);
    expect(usd((await page.locator('#offer-amount').textContent())!)).toBe(expected);
    await page.screenshot({ path: outputPath('hosted-offer.png') });

    const status = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${intent.id}`);
    expect(status.body.data).toMatchObject({ status: 'active', bot_name: bot, trade_offer_id: offerId });

    const accept = await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${intent.id}/accept`, { hold: false });
    expect(accept.status, JSON.stringify(accept.body)).toBe(200);
    await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('completed');
    expect(await page.locator('#offer-heading').textContent()).toBe('Deposit completed');
    expect(await page.locator('#status-pill').textContent()).toBe('Completed');

    const done = await gw.merchant(m.api_key, 'GET', `/deposit/status?merchant_tx_id=${intent.merchant_tx_id}`);
    expect(done.body.data).toMatchObject({ id: intent.id, status: 'completed', amount: expected / 1000 });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('trade-link form: a clear message for what is not a trade link; a good link loads the grid', async () => {
    const intent = await createIntent({ game: 'rust' });
    const page = await browser.newPage();
    await page.goto(intent.url);
    await page.locator('#trade-link').waitFor();
    expect(await page.locator('#game').isVisible()).toBe(false); // the intent fixed the game

    await pasteLink(page, 'https://steamcommunity.com/id/someone/inventory');
    const err = page.locator('#trade-link-error');
    await err.waitFor();
    expect(await err.textContent()).toMatch(/not a Steam trade link/);
    expect(await page.locator('#trade-link').getAttribute('aria-invalid')).toBe('true');

    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=41234567');
    expect(await err.textContent()).toMatch(/no token/);

    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=41234567&token=abc');
    expect(await err.textContent()).toMatch(/8 letters or digits/);

    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=41234567&token=AbCd1234');
    await page.locator('.card').first().waitFor();
    expect(await page.locator('#items-heading').textContent()).toContain('Rust');
    expect(await page.locator('#items-summary').textContent()).toMatch(/up to 4 per deposit/);
    // the user can go back and change the link
    expect(await page.locator('#change-link').isVisible()).toBe(true);
    await page.close();
  });

  it('a magic partner gets a human sentence (90000003 → trade ban), and can retry with another link', async () => {
    const intent = await createIntent({ game: 'csgo' });
    const page = await browser.newPage();
    await page.goto(intent.url);
    await page.locator('#trade-link').waitFor();
    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=90000003&token=AbCd1234');
    const alert = page.locator('#alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Your Steam account has a trade ban, so it cannot trade items right now.');
    expect(await page.locator('#trade-link').isVisible()).toBe(true);

    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=90000004&token=AbCd1234');
    await expect.poll(() => alert.textContent(), within).toMatch(/profile is private/);

    await pasteLink(page, 'https://steamcommunity.com/tradeoffer/new/?partner=90000009&token=AbCd1234');
    await expect.poll(() => page.locator('#items-empty').textContent(), within).toMatch(/None of the items/);
    expect(await page.locator('#deposit').isDisabled()).toBe(true);
    await page.close();
  });

  it('an unknown link shows a clear page', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${gw.url}/deposit/${'Z'.repeat(43)}`);
    expect(res?.status()).toBe(404);
    await page.locator('#view-gone').waitFor();
    expect(await page.locator('#view-gone h2').textContent()).toBe('This deposit link is not valid');
    await page.close();
  });

  it('an expired link says so: opened after INTENT_TTL_SECONDS, or submitted after it from a page loaded before', async () => {
    const intent = await createIntent({ game: 'csgo', partner: 61234567, token: 'AbCd1234' });
    const page = await browser.newPage();
    const errors = collectErrors(page);
    await page.goto(intent.url);
    const cards = page.locator('.card');
    await cards.first().waitFor();
    await cards.first().click();
    // The link runs out while the user is choosing (the row as INTENT_TTL_SECONDS would leave it).
    await gw.ctx.db.updateTable('deposits').set({ hosted_expires_at: new Date(Date.now() - 1000) }).where('id', '=', intent.id).execute();
    await page.locator('#deposit').click();
    await page.locator('#view-expired').waitFor();
    expect(await page.locator('#view-expired h2').textContent()).toBe('This deposit link has expired');
    expect(await page.locator('#view-items').isVisible()).toBe(false);
    expect(await page.title()).toBe('Deposit link expired');
    // Opened afresh: the expired view at once, no trade-link form, no grid.
    const again = await browser.newPage();
    await again.goto(intent.url);
    await again.locator('#view-expired').waitFor();
    expect(await again.locator('#view-link').isVisible()).toBe(false);
    expect(await again.locator('.card').count()).toBe(0);
    const st = await gw.merchant(m.api_key, 'GET', `/deposit/status?id=${intent.id}`);
    expect(st.body.data.status).toBe('new');
    // only the refused deposit (and the console line of its 400) went wrong
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([`HTTP 400 ${gw.url}/api/v1/hosted/${intent.url.split("/").pop()}/deposit`]);
    await page.close();
    await again.close();
  });

  it('works on a phone-sized screen: two columns, no sideways scrolling, the total bar stays in view', async () => {
    const intent = await createIntent({ game: 'dota2', partner: 51234567, token: 'AbCd1234' });
    const page = await browser.newPage({ width: 375, height: 740 });
    await page.goto(intent.url);
    const cards = page.locator('.card');
    await cards.first().waitFor(); // trade link and game on the intent: straight to the grid
    const columns = await page.locator('#grid').evaluate((g) => getComputedStyle(g).gridTemplateColumns.split(' ').length);
    expect(columns).toBe(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await cards.first().click();
    const bar = await page.locator('#bar').boundingBox();
    expect(bar!.y + bar!.height).toBeLessThanOrEqual(740 + 1);
    expect(await page.locator('#deposit').isEnabled()).toBe(true);
    const shot = outputPath('hosted-inventory-phone.png');
    await page.screenshot({ path: shot });
    console.log(`hosted page screenshot (phone): ${shot}`);
    await page.close();
  });

  async function submitFirstItems(page: Page, url: string, n: number) {
    await page.goto(url);
    const cards = page.locator('.card');
    await cards.first().waitFor();
    for (let i = 0; i < n; i++) await cards.nth(i).click();
    await page.locator('#deposit').click();
    await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('active');
  }

  it('a trade hold shows its end date and completes when the hold ends', async () => {
    const intent = await createIntent({ game: 'csgo', partner: 71234567, token: 'AbCd1234' });
    const page = await browser.newPage();
    await submitFirstItems(page, intent.url, 1);
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${intent.id}/accept`, { hold: true })).status).toBe(200);
    await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('hold');
    expect(await page.locator('#offer-heading').textContent()).toMatch(/on trade hold/);
    expect(await page.locator('#offer-hold').isVisible()).toBe(true);
    expect(await page.locator('#offer-expiry-row').isVisible()).toBe(false);
    expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${intent.id}/release`)).status).toBe(200);
    // in hold the page polls slowly (10 s); a reload shows the final state at once
    await page.reload();
    await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('completed');
    await page.close();
  });

  it('a declined offer ends canceled with a sentence, and sends the top window to fail_url', async () => {
    const site = await startSite({ '/failed': () => '<!doctype html><h1>Deposit not completed</h1>' });
    try {
      const intent = await createIntent({ game: 'csgo', partner: 81234567, token: 'AbCd1234', fail_url: `${site.origin}/failed` });
      const page = await browser.newPage();
      await submitFirstItems(page, intent.url, 2);
      expect((await gw.merchant(m.api_key, 'POST', `/sandbox/deposit/${intent.id}/decline`)).status).toBe(200);
      await expect.poll(() => page.locator('#status-pill').getAttribute('data-status'), within).toBe('canceled');
      expect(await page.locator('#offer-heading').textContent()).toBe('Deposit canceled');
      expect(await page.locator('#offer-text').textContent()).toMatch(/You declined the trade offer/);
      await page.waitForURL(`${site.origin}/failed`, { timeout: 60_000 });
      await page.close();
    } finally {
      await site.close();
    }
  });

  it('embedded in a merchant page on another origin: postMessage new → active → completed, then the top goes to success_url', async () => {
    const framed = await gw.createMerchant({ name: 'Framing shop' });
    let frameSrc = '';
    const site = await startSite({
      '/checkout': () => `<!doctype html><html><body><h1>Merchant checkout</h1>
        <script>
          window.events = [];
          window.addEventListener('message', (e) => {
            if (e.data && e.data.type === 'gateway:deposit-status') window.events.push({ origin: e.origin, txId: e.data.txId, status: e.data.status });
          });
        </script>
        <iframe id="gw" src="${frameSrc}" style="width:100%;height:720px;border:0" title="Deposit"></iframe></body></html>`,
      '/thanks': () => '<!doctype html><h1>Thanks for your deposit</h1>',
    });
    try {
      await gw.admin('PATCH', `/merchants/${framed.id}`, { frame_ancestors: [site.origin] });
      const intent = await createIntent({ game: 'tf2', partner: 61234567, token: 'AbCd1234', success_url: `${site.origin}/thanks` }, framed.api_key);
      frameSrc = intent.url;
      expect(new URL(intent.url).origin).not.toBe(site.origin);

      const page = await browser.newPage();
      await page.goto(`${site.origin}/checkout`);
      const frame = page.frameLocator('#gw');
      await frame.locator('.card').first().waitFor();
      await frame.locator('.card').first().click();
      await frame.locator('.card').nth(1).click();
      await frame.locator('#deposit').click();
      await expect.poll(() => frame.locator('#status-pill').getAttribute('data-status'), within).toBe('active');

      const accept = await gw.merchant(framed.api_key, 'POST', `/sandbox/deposit/${intent.id}/accept`, { hold: false });
      expect(accept.status).toBe(200);
      await expect.poll(() => frame.locator('#status-pill').getAttribute('data-status'), within).toBe('completed');

      const events = await page.evaluate(() => (window as unknown as { events: unknown[] }).events);
      expect(events).toEqual([
        { origin: new URL(gw.url).origin, txId: intent.merchant_tx_id, status: 'new' },
        { origin: new URL(gw.url).origin, txId: intent.merchant_tx_id, status: 'active' },
        { origin: new URL(gw.url).origin, txId: intent.merchant_tx_id, status: 'completed' },
      ]);

      // the deposit ended: the page sends the top window to success_url (a Continue link as fallback)
      expect(await frame.locator('#continue').getAttribute('href')).toBe(`${site.origin}/thanks`);
      await page.waitForURL(`${site.origin}/thanks`, { timeout: 60_000 });
      expect(await page.locator('h1').textContent()).toBe('Thanks for your deposit');
      await page.close();
    } finally {
      await site.close();
    }
  });

  it("refuses to be framed by a site outside the merchant's frame_ancestors", async () => {
    const strict = await gw.createMerchant({ name: 'Strict shop', frame_ancestors: ['https://shop.example'] });
    const intent = await createIntent({}, strict.api_key);
    const site = await startSite({ '/': () => `<!doctype html><iframe id="gw" src="${intent.url}"></iframe>` });
    try {
      const page = await browser.newPage();
      await page.goto(`${site.origin}/`);
      const frame = await (await page.locator('#gw').elementHandle())!.contentFrame();
      // Chromium replaces a frame blocked by frame-ancestors with an error page; the app never runs.
      await page.waitForTimeout(500);
      expect(frame!.url()).toMatch(/^chrome-error:/);
      const appRan = await frame!.evaluate(() => !!document.getElementById('app')).catch(() => false);
      expect(appRan).toBe(false);
      await page.close();
    } finally {
      await site.close();
    }
  });
});
