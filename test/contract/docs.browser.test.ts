// /docs in a real browser: the merchant API first (guides, reference generated from
// /openapi.json, one page per tag), operator operations on pages of their own, 0 axe-core violations on every page at
// 1280 and 375 px, a menu that opens on a phone, nothing fetched from outside the gateway, and the
// pages compressed. Load times are measured and printed, not asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { chromiumAvailable, collectErrors, launchBrowser, outputPath, type Browser } from '../hosted/browser.js';
import { axeViolations } from '../a11y/axe.js';
import { GUIDES } from '../../src/modules/docs/guides.js';
import { docsPaths } from '../../src/modules/docs/docs-site.js';

const run = chromiumAvailable();
// Every page of the site (a test below checks the site links to no other); the reference pages,
// the longest, first.
const PAGES = docsPaths().reverse();
/** Pages checked at once, each in its own tab: axe is single-threaded per page, the machine has 2 cores. */
const TABS = 2;

describe.skipIf(!run)('/docs in chromium', () => {
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    gw = await startTestGateway({}, { worker: false });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  const timings: string[] = [];
  afterAll(() => console.log(`docs page loads (measured, not asserted):\n  ${timings.join('\n  ')}`));

  // Each page in its own tab, TABS at a time (the tests are independent: nothing is written).
  let free = TABS;
  const waiting: (() => void)[] = [];
  async function tab<T>(fn: () => Promise<T>): Promise<T> {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  }

  for (const width of [1280, 375]) {
    it.concurrent.for(PAGES)(`%s at ${width}px: 0 axe violations, nothing wider than the screen, no outside request, no console error`, { timeout: 1_800_000 }, (path, { expect }) => tab(async () => {
      const page = await browser.newPage({ width, height: 900 });
      const errors = collectErrors(page);
      const outside: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(gw.url) && !r.url().startsWith('data:')) outside.push(r.url());
      });
      const res = await page.goto(`${gw.url}${path}`);
      expect(res?.status(), path).toBe(200);
      await page.waitForLoadState('load');
      const nav = await page.evaluate(() => {
        const e = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        return { load: Math.round(e.loadEventEnd), bytes: e.encodedBodySize, html: e.decodedBodySize };
      });
      timings.push(`${width}px ${path}: load ${nav.load} ms, ${nav.bytes} B on the wire (${nav.html} B html)`);
      expect(await axeViolations(page), `${path} at ${width}px`).toEqual([]);
      // nothing wider than the screen (tables and code scroll inside their own box)
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${path} at ${width}px`).toBeLessThanOrEqual(width);
      expect(errors, path).toEqual([]);
      expect(outside, path).toEqual([]);
      await page.close();
    })); // a hang detector only: it includes the wait for a free tab, and pages that share the CPU
    // each take longer (at load 44, /docs/operator alone took over 600 s with 3 tabs)
  }

  it('opens on the merchant API: guides, the merchant reference; operator operations on their own page', async () => {
    const page = await browser.newPage();
    await page.goto(`${gw.url}/docs`);
    expect(await page.locator('h1').innerText()).toMatch(/merchant API/i);
    const nav = await page.locator('nav.side').innerText();
    for (const g of GUIDES) expect(nav).toContain(g.title);
    for (const tag of ['Deposits', 'Purchases', 'Catalogue', 'Balance', 'Events', 'Sandbox', 'Webhooks']) expect(nav).toContain(tag);
    await page.screenshot({ path: outputPath('docs-home.png') });

    await page.goto(`${gw.url}/docs/reference/deposits`);
    const createDeposit = await page.locator('#createDeposit').innerText();
    expect(createDeposit).toContain('/api/v1/merchant/create-deposit');
    expect(createDeposit).toContain('order-1001'); // the request example
    expect(createDeposit).toContain('min_prices');
    expect(createDeposit).toContain('409');
    await page.goto(`${gw.url}/docs/reference/events`);
    expect(await page.locator('#listEvents').count()).toBe(1);
    await page.goto(`${gw.url}/docs/reference/webhooks`);
    expect(await page.locator('main').innerText()).toContain('webhook-signature');
    // the index: every operation by its id, linking to its page (old /docs/reference#id links land here)
    await page.goto(`${gw.url}/docs/reference#createDeposit`);
    expect(await page.locator('#tag-webhooks').count()).toBe(1);
    await page.locator('#createDeposit a').click();
    await page.waitForURL(`${gw.url}/docs/reference/deposits#createDeposit`);
    await page.close();

    // Merchant pages name no operator or hosted-page path; operator pages no merchant call.
    const text = async (path: string) => (await fetch(`${gw.url}${path}`)).text();
    for (const path of PAGES.filter((p) => p.startsWith('/docs/reference'))) {
      const html = await text(path);
      expect(html, path).not.toContain('/api/admin');
      expect(html, path).not.toContain('/api/v1/hosted');
    }
    const operatorPages = PAGES.filter((p) => p.startsWith('/docs/operator'));
    const operator = (await Promise.all(operatorPages.map(text))).join('\n');
    expect(operator).toContain('/api/admin/merchants');
    expect(operator).toContain('/api/v1/hosted/');
    for (const path of operatorPages) expect(await text(path), path).not.toContain('/api/v1/merchant/create-deposit');
  });

  it('the pages checked above are every page the site links to', async () => {
    const seen = new Set(['/docs']);
    const queue = ['/docs'];
    while (queue.length) {
      const html = await (await fetch(`${gw.url}${queue.shift()}`)).text();
      for (const m of html.matchAll(/href="(\/docs[^"#?]*)/g)) {
        if (!m[1]!.startsWith('/docs/assets/') && !seen.has(m[1]!)) {
          seen.add(m[1]!);
          queue.push(m[1]!);
        }
      }
    }
    expect([...seen].sort()).toEqual([...PAGES].sort());
  });

  it('the guides: a quick start to a sandbox deposit, webhook verification in four languages', async () => {
    const page = await browser.newPage();
    await page.goto(`${gw.url}/docs/guides/quick-start`);
    const qs = await page.locator('main').innerText();
    for (const step of ['/inventory', '/create-deposit', '/sandbox/deposit/', '/deposit/status']) expect(qs).toContain(step);
    await page.goto(`${gw.url}/docs/guides/webhooks`);
    const headings = await page.locator('main h2').allInnerTexts();
    expect(headings).toEqual(expect.arrayContaining(['TypeScript', 'Python', 'PHP', 'curl and openssl']));
    expect(await page.locator('main').innerText()).toContain('webhook-signature');
    await page.goto(`${gw.url}/docs/guides/sandbox`);
    expect(await page.locator('main').innerText()).toContain('90000010');
    await page.close();
  });

  it('on a phone the menu is closed and opens', async () => {
    const page = await browser.newPage({ width: 375, height: 800 });
    await page.goto(`${gw.url}/docs`);
    const link = page.locator('nav.side a[href="/docs/guides/quick-start"]');
    expect(await link.isVisible()).toBe(false);
    await page.locator('nav.side summary').click();
    expect(await link.isVisible()).toBe(true);
    await page.screenshot({ path: outputPath('docs-phone-menu.png') });
    await page.close();
  });

  it('pages are compressed (brotli, else gzip) and cacheable by ETag; /openapi.json is served', async () => {
    const br = await fetch(`${gw.url}/docs/reference`, { headers: { 'accept-encoding': 'br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    const gz = await fetch(`${gw.url}/docs/reference`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const again = await fetch(`${gw.url}/docs/reference`, { headers: { 'if-none-match': gz.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await fetch(`${gw.url}/docs/guides/nope`)).status).toBe(404);
    // the stylesheet and the script are named with their version and kept for good
    const html = await (await fetch(`${gw.url}/docs`)).text();
    const assets = [...html.matchAll(/(?:href|src)="(\/docs\/assets\/[^"]+\?v=[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    for (const a of assets) expect((await fetch(`${gw.url}${a}`)).headers.get('cache-control'), a).toContain('immutable');
    expect((await fetch(`${gw.url}/docs/assets/docs.css`)).headers.get('cache-control')).toBe('no-cache');
    const res = await fetch(`${gw.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect((await res.json()).openapi).toBe('3.1.0');
  });
});
