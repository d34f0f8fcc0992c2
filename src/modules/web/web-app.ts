// The merchant dashboard (/dashboard) and the operator console (/console): one plugin mounted at
// the root, with its own form parsing, security headers, sessions and HTML error pages.
import { requestLogPages } from './dashboard/request-log-pages.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringFields, type TypedPlugin } from '../../http/typed-routes.js';
import type { WebDeps } from './deps.js';
import { appErrorOf, forbidden, httpStatusOf, isAppError, notFound } from '../../http/errors.js';
import type { AccountsService, SessionUser } from '../accounts/accounts-service.js';
import { installWebBasics } from './sign-in/web-session.js';
import { accountPages, homeOf } from './sign-in/account-pages.js';
import { dashboardPostAllowedWhileDisabled, disabledRefusal } from '../merchants/disabled.js';
import { html, page } from './kit/html.js';
import { overviewPage } from './dashboard/overview-page.js';
import { recordPages } from './dashboard/records-pages.js';
import { moneyPages } from './dashboard/money-pages.js';
import { settingsPages } from './dashboard/settings-pages.js';
import { teamPages } from './dashboard/team-pages.js';
import { consolePages } from './console/console-pages.js';
import { botPages } from './console/bot-pages.js';
import { reconcilePage } from './console/reconcile-page.js';
import { CONSOLE_NAV, MERCHANT_NAV, type Shell } from './kit/nav.js';

/** What a user who must still set up an authenticator may open. */
const TOTP_SETUP_PATHS = new Set(['/dashboard/account', '/dashboard/account/totp/start', '/dashboard/account/totp/confirm', '/dashboard/sign-out', '/dashboard/account/sign-out-everywhere', '/dashboard/sign-in']);

const ASSETS_DIR = fileURLToPath(new URL('./dashboard/assets/', import.meta.url));
const UPLOT_DIR = path.dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml' };

/** Dashboard assets and the charting library (from node_modules, never a CDN), in memory with ETags. */
function loadAssets() {
  const files: [string, string][] = fs.readdirSync(ASSETS_DIR).map((n) => [n, path.join(ASSETS_DIR, n)]);
  files.push(['uPlot.iife.min.js', path.join(UPLOT_DIR, 'uPlot.iife.min.js')], ['uPlot.min.css', path.join(UPLOT_DIR, 'uPlot.min.css')]);
  const assets = new Map<string, { body: Buffer; type: string; etag: string }>();
  for (const [name, file] of files) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = fs.readFileSync(file);
    assets.set(name, { body, type, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return assets;
}

export const webAppRoutes = (ctx: WebDeps & { accounts: AccountsService }): TypedPlugin => async (app) => {
  const { accounts } = ctx;
  const assets = loadAssets();
  // HTML pages are not part of the JSON API's OpenAPI document.
  app.addHook('onRoute', (r) => {
    r.schema = { ...(r.schema ?? {}), hide: true } as typeof r.schema;
  });
  installWebBasics(app, { publicUrl: ctx.config.publicUrl, authenticate: accounts.authenticate });
  // A disabled merchant's users read, but change nothing on its behalf (merchants/disabled.ts).
  app.addHook('preHandler', async (req) => {
    if (req.method !== 'POST' || !req.user || req.user.merchant_id === null) return;
    if (dashboardPostAllowedWhileDisabled(req.url.split('?')[0])) return;
    const m = await ctx.merchants.findRow(req.user.merchant_id);
    const refusal = m && disabledRefusal(m);
    if (refusal) throw refusal;
  });

  // Operators, and users of a team that requires it, set up an authenticator before anything else.
  app.addHook('preHandler', async (req, reply) => {
    const u = req.user;
    if (!u || !u.totp_required || u.totp_enabled) return;
    const path = req.url.split('?')[0];
    if (TOTP_SETUP_PATHS.has(path) || /^\/dashboard\/(assets|invite|reset)\//.test(path)) return;
    if (req.method === 'GET' || req.method === 'HEAD') return reply.redirect('/dashboard/account', 303);
    throw forbidden('set up an authenticator first (Your account): it is required to sign in');
  });

  async function shell(u: SessionUser): Promise<Shell> {
    if (u.role === 'operator') return { nav: CONSOLE_NAV };
    const m = await ctx.merchants.findRow(u.merchant_id!);
    const nav = MERCHANT_NAV.filter((n) => u.role === 'owner' || n.href !== '/dashboard/audit');
    return { nav, merchantName: m?.name };
  }

  app.setErrorHandler((err: Error, req: FastifyRequest, reply: FastifyReply) => {
    // requireRole's signInRequired(): no web page throws another 'unauthenticated' kind.
    if (isAppError(err, 'unauthenticated')) {
      const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url)}` : '';
      return reply.redirect(`/dashboard/sign-in${next}`, 303);
    }
    let status = 500;
    let message = 'Something went wrong on our side. The error is logged; try again.';
    let details: string[] = [];
    // Ours, or a database that is away (503 + Retry-After, logged once per outage).
    const known = appErrorOf(err, ctx.db);
    if (known) {
      status = httpStatusOf(known);
      if (known.headers) reply.headers(known.headers); // Retry-After of a rate limit (http/rate-limit.ts)
      message = known.message;
      if (Array.isArray(known.data)) details = known.data.map((d: { message?: string }) => String(d?.message ?? ''));
    } else if ((err as unknown as { statusCode?: number }).statusCode! < 500) {
      status = (err as unknown as { statusCode: number }).statusCode;
      message = status === 413 ? 'the form is too large' : 'the request could not be read';
    } else {
      req.log.error({ err }, 'dashboard error');
    }
    const back = req.user ? homeOf(req.user) : '/dashboard/sign-in';
    return reply
      .code(status)
      .type('text/html')
      .send(page({ title: status === 404 ? 'Not found' : 'That did not work', home: back }, html`<p class="flash flash-error" role="alert">${message}</p>
${details.length ? html`<ul>${details.map((d) => html`<li>${d}</li>`)}</ul>` : ''}
<p><a href="${back}">Back</a></p>`));
  });

  app.get('/dashboard/assets/:file', async (req, reply) => {
    const asset = assets.get(stringFields(req.params).file ?? '');
    if (!asset) throw notFound();
    reply.header('etag', asset.etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });

  // An unknown page of the dashboard or the console is this plugin's HTML 404, with the pages'
  // security headers (the onRequest hook above), not the API's JSON one.
  for (const prefix of ['/dashboard/*', '/console/*']) {
    app.all(prefix, async () => {
      throw notFound();
    });
  }

  accountPages(app, ctx, accounts, shell);
  overviewPage(app, ctx, shell);
  recordPages(app, ctx, shell, accounts);
  moneyPages(app, ctx, shell, accounts);
  settingsPages(app, ctx, shell, accounts);
  teamPages(app, ctx, shell, accounts);
  consolePages(app, ctx, accounts);
  botPages(app, ctx, accounts);
  requestLogPages(app, ctx, shell);
  reconcilePage(app, ctx, accounts);
};
