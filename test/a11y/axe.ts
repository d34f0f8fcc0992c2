// axe-core (WCAG 2.0/2.1 A and AA rules) in a real page: the violations, each with its targets.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let AXE_SOURCE: string | undefined;
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * `resultTypes: ['violations']`: only the violations are read here, so axe keeps one node of each
 * other result type instead of building a selector for every node it looked at. (It bought no time
 * measurable in the suite: the docs browser test took 193 s in CI before and after.)
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, not as a <script> tag: pages with a strict
  // Content-Security-Policy (the dashboard, the hosted page) refuse inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate((AXE_SOURCE ??= fs.readFileSync(AXE, 'utf8')));
  const result = await page.evaluate(
    (tags) => (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    WCAG_TAGS,
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(' | ')}${v.nodes.length > 5 ? ` (+${v.nodes.length - 5})` : ''}`);
}
