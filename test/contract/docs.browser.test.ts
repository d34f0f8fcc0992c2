// /docs in a real browser: the guide pages, operations grouped by the spec's sections, examples
// shown, and the downloadable document linked. Nothing is fetched from outside the gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { chromiumAvailable, collectErrors, launchBrowser, outputPath, type Browser } from '../hosted/browser.js';

const run = chromiumAvailable();

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

  it('shows the guide, the sections, an operation with its example, and links /openapi.json', async () => {
    const page = await browser.newPage();
    const errors = collectErrors(page);
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(gw.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    await page.goto(`${gw.url}/docs`);
    await page.waitForSelector('.opblock-tag-section');

    const info = await page.locator('.information-container').innerText();
    for (const heading of ['Authentication', 'Errors', 'Idempotency', 'Webhooks', 'Sandbox']) expect(info).toContain(heading);
    expect(info).toContain('90000010');
    expect(await page.locator('.information-container a[href="/openapi.json"]').count()).toBeGreaterThan(0);

    const tags = await page.locator('.opblock-tag-section h3').allInnerTexts();
    const names = tags.map((t) => t.split('\n')[0].trim());
    expect(names.slice(0, 7)).toEqual(['Redirect flow', 'Deposits', 'Deposits by hash name', 'Purchases', 'Catalogue', 'Balance', 'Sandbox']);
    expect(names).toEqual(expect.arrayContaining(['Hosted page', 'Operator: merchants', 'Operator: balance and ledger', 'Operator: webhooks']));

    // Open create-deposit: the request example and the answer example are on the page.
    await page.locator('#operations-Deposits-createDeposit .opblock-summary').click();
    const op = page.locator('#operations-Deposits-createDeposit');
    await op.locator('.responses-wrapper').waitFor();
    const text = await op.innerText();
    expect(text).toContain('order-1001');
    expect(text).toContain('deposit created');
    expect(text).toContain('already exist error');

    // The webhooks section.
    expect(await page.locator('text=depositStatusChanged').count() + (await page.locator('text=Deposit status changed').count())).toBeGreaterThan(0);

    await page.screenshot({ path: outputPath('docs.png'), fullPage: false });
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('serves the document for download at /openapi.json', async () => {
    const res = await fetch(`${gw.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect((await res.json()).openapi).toBe('3.1.0');
  });
});
