// `npm run bench:docs`: how fast the docs site loads in Chromium (issue 24 point 1: under 1 s).
// The gateway runs as `npm start` runs it (own process, durable throwaway cluster); every docs page
// is found by following the site's own links from /docs. Each page is loaded BENCH_DOCS_RUNS times
// (default 10), each time in a fresh browser context (cold cache: HTML, CSS and script fetched),
// in rounds (every page once per round) so that the machine's load falls on all pages alike. The
// baseline, measured in the same rounds, is a tiny static page with the same kind of stylesheet
// and deferred script from a bare node:http server in its own process: the floor of this machine
// and browser. Prints a markdown table: page, bytes on the wire (bodies, compressed), DOM elements,
// median and p90 time to the `load` event. BENCH_DOCS_WRITE="<title>" appends it to bench/RESULTS.md.
// BENCH_GATEWAY_DIR: another checkout (e.g. main) for "before". BENCH_DOCS_AXE=1 adds a column: the time
// of one axe-core run (the browser test's rules) on each page at 1280 px, what the browser test spends.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/hosted/browser.js';
import { startDurableCluster } from './durable-pg.js';
import { startGateway, stopProcess } from './gateway-process.js';
import { ADMIN } from './harness.js';
import { axeViolations } from '../test/a11y/axe.js';

const RUNS = Number(process.env.BENCH_DOCS_RUNS ?? 10);
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/^.*load/, 'load');

/** The baseline server: one small page, its CSS and a deferred script, from node:http alone. */
const BASELINE_SRC = `
const http = require('node:http');
const page = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>baseline</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/s.css"><script src="/s.js" defer></script></head><body><main><h1>Baseline</h1><p>A tiny static page.</p></main></body></html>';
const files = { '/': ['text/html; charset=utf-8', page], '/s.css': ['text/css', 'body{font-family:sans-serif;margin:0}h1{color:#123}'], '/s.js': ['text/javascript', 'document.body.dataset.ok="1";'] };
http.createServer((req, res) => { const f = files[req.url]; if (!f) { res.statusCode = 404; return res.end(); } res.setHeader('content-type', f[0]); res.end(f[1]); })
  .listen(0, '127.0.0.1', function () { console.log('listening http://127.0.0.1:' + this.address().port); });
`;

async function startBaseline(procs: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, ['-e', BASELINE_SRC], { stdio: ['ignore', 'pipe', 'inherit'] });
  procs.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve(`${m[1]}/`);
    });
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
}

/** Every /docs page reachable from /docs by the site's links (hashes dropped). */
async function crawl(origin: string): Promise<string[]> {
  const seen = new Set(['/docs']);
  const queue = ['/docs'];
  while (queue.length) {
    const html = await (await fetch(origin + queue.shift()!)).text();
    for (const m of html.matchAll(/href="(\/docs[^"#?]*)/g)) {
      const p = m[1]!.replace(/\/+$/, '') || '/docs';
      if (!p.startsWith('/docs/assets/') && !seen.has(p)) {
        seen.add(p);
        queue.push(p);
      }
    }
  }
  return [...seen];
}

interface Sample {
  loadMs: number;
  bytes: number;
  nodes: number;
}

async function loadOnce(browser: Browser, url: string): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const res = await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    if (res?.status() !== 200) throw new Error(`${url}: HTTP ${res?.status()}`);
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      return {
        loadMs: nav.loadEventEnd,
        bytes: nav.encodedBodySize + resources.reduce((n, r) => n + r.encodedBodySize, 0),
        nodes: document.getElementsByTagName('*').length,
      };
    });
  } finally {
    await context.close();
  }
}

/** Milliseconds of one axe-core run on the page (its violations must be none, as in the browser test). */
async function axeMs(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    await axeViolations(page); // loads axe-core into the page, not measured
    const t0 = performance.now();
    const violations = await axeViolations(page);
    if (violations.length) throw new Error(`${url}: ${violations.join('; ')}`);
    return performance.now() - t0;
  } finally {
    await context.close();
  }
}

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};

async function main() {
  const procs: ChildProcess[] = [];
  const cluster = process.env.BENCH_DATABASE_URL ? undefined : await startDurableCluster();
  const dbUrl = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  let browser: Browser | undefined;
  let dataDir: string | undefined;
  try {
    const gw = await startGateway(path.resolve(process.env.BENCH_GATEWAY_DIR ?? process.cwd()), { DATABASE_URL: dbUrl, ADMIN_TOKEN: ADMIN, SANDBOX_CATALOGUE_SIZE: '0' });
    procs.push(gw.child);
    dataDir = gw.dataDir;
    const baseline = await startBaseline(procs);
    const pages = await crawl(gw.url);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const targets: [string, string][] = [['baseline: tiny static page, bare node:http', baseline], ...pages.map((p): [string, string] => [p, gw.url + p])];
    // one warm-up load each (the gateway builds the site on its first docs request)
    for (const [, url] of targets) await loadOnce(browser, url);
    const before = uptime();
    const samples = new Map<string, Sample[]>(targets.map(([name]) => [name, []]));
    for (let round = 0; round < RUNS; round++) for (const [name, url] of targets) samples.get(name)!.push(await loadOnce(browser, url));
    const axe = new Map<string, number>();
    if (process.env.BENCH_DOCS_AXE) for (const [name, url] of targets.slice(1)) axe.set(name, await axeMs(browser, url));
    const after = uptime();

    const base = quantile(samples.get(targets[0]![0])!.map((s) => s.loadMs), 0.5);
    const rows = targets.map(([name]) => {
      const s = samples.get(name)!;
      const times = s.map((x) => x.loadMs);
      const median = quantile(times, 0.5);
      return `| ${name} | ${s[0]!.bytes.toLocaleString('en-US')} | ${s[0]!.nodes.toLocaleString('en-US')} | ${Math.round(median)} | ${Math.round(quantile(times, 0.9))} | ${(median / base).toFixed(1)} |${axe.size ? ` ${axe.has(name) ? Math.round(axe.get(name)!).toLocaleString('en-US') : ''} |` : ''}`;
    });
    const all = targets.slice(1).flatMap(([name]) => samples.get(name)!.map((x) => x.loadMs));
    const axeTotal = [...axe.values()].reduce((a, b) => a + b, 0);
    const md = [
      `${RUNS} cold loads per page (fresh browser context each), 1280 × 900, Chromium ${browser.version()}; ${before} at the start / ${after} at the end`,
      '',
      `| page | bytes on the wire | DOM elements | median ms to load | p90 ms | median ÷ baseline |${axe.size ? ' axe ms |' : ''}`,
      `| --- | --- | --- | --- | --- | --- |${axe.size ? ' --- |' : ''}`,
      ...rows,
      '',
      `Slowest docs load of all ${all.length}: ${Math.round(Math.max(...all))} ms; docs pages with median ≥ 1 000 ms: ${targets.slice(1).filter(([n]) => quantile(samples.get(n)!.map((x) => x.loadMs), 0.5) >= 1000).length}.${axe.size ? ` axe on all pages at 1280 px, one after another: ${(axeTotal / 1000).toFixed(1)} s.` : ''}`,
    ].join('\n');
    console.log(md);
    if (process.env.BENCH_DOCS_WRITE) {
      await fs.appendFile(path.resolve('bench/RESULTS.md'), `\n## ${process.env.BENCH_DOCS_WRITE}\n\n\`npm run bench:docs\`: ${md}\n`);
      console.log('appended to bench/RESULTS.md');
    }
  } finally {
    await browser?.close();
    for (const p of procs) await stopProcess(p);
    await cluster?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
