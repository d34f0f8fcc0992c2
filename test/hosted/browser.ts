// Real-browser helpers for the hosted page tests: Debian's chromium driven by playwright-core
// (`npx playwright install` cannot download here; .ci/run installs the package `chromium`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Whether the browser tests can run. Without chromium they are skipped with a loud warning on a
 * developer machine, and fail on CI (CI=true), where .ci/run installs it.
 */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  const msg = `${CHROMIUM} is missing: the hosted-page browser tests need Debian's chromium (apt-get install -y chromium)`;
  if (process.env.CI) throw new Error(`${msg}. CI must install it (.ci/run does).`);
  console.warn(`\n${'!'.repeat(100)}\n!! SKIPPING BROWSER TESTS: ${msg}\n${'!'.repeat(100)}\n`);
  return false;
}

export interface Browser {
  context: BrowserContext;
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Chromium with a fresh user-data dir (removed on close). */
export async function launchBrowser(): Promise<Browser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hosted-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  // Actions and navigations wait for their element or load this long: a deadline for a hang, not a
  // speed bound (a 6 600-node page takes 17 s to load at load 30).
  context.setDefaultTimeout(60_000);
  return {
    context,
    async newPage(viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Chromium without a profile, each page in its own context (its own cookies), so pages of different
 * users can be open at once: a page closed by `close(page)` takes its context with it.
 */
export interface PageBrowser {
  newPage(viewport: { width: number; height: number }, cookies?: Parameters<BrowserContext['addCookies']>[0]): Promise<Page>;
  close(): Promise<void>;
}

export async function launchPageBrowser(): Promise<PageBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    async newPage(viewport, cookies = []) {
      const context = await browser.newContext({ viewport });
      context.setDefaultTimeout(60_000); // as launchBrowser: a deadline for a hang, not a speed bound
      if (cookies.length) await context.addCookies(cookies);
      const page = await context.newPage();
      page.once('close', () => void context.close().catch(() => {}));
      return page;
    },
    close: () => browser.close().catch(() => {}),
  };
}

/** Console errors, page errors and failed responses of a page, for asserting that nothing broke (CSP included). */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  return errors;
}

/** A tiny HTTP server on 127.0.0.1 answering each path with the given HTML (a merchant's site). */
export async function startSite(pages: Record<string, () => string>): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page: (() => string) | undefined = Object.hasOwn(pages, url.pathname) ? pages[url.pathname] : undefined;
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ? page() : 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const OUTPUT_DIR = path.resolve('test-output');

export function outputPath(name: string): string {
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  return path.join(OUTPUT_DIR, name);
}
