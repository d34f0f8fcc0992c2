// The console's reconciliation page: the latest run against the platform, each
// discrepancy with what to do, and "Run now" (audited).
import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../deps.js';
import type { AccountsService } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf, requireRole } from '../sign-in/web-session.js';
import { actionButton, doneFlash, facts, html, page, table, when } from '../kit/html.js';
import { CONSOLE_NAV } from '../kit/nav.js';
import { isAppError } from '../../../domain/errors.js';

export function reconcilePage(app: FastifyInstance, ctx: WebDeps, accounts: AccountsService): void {
  app.get('/console/reconciliation', async (req, reply) => {
    const u = requireRole(req, ['operator']);
    const r = await ctx.reconcile.report(undefined, 500, 0).catch((err) => {
      if (isAppError(err, 'not_found')) return undefined;
      throw err;
    });
    const run = actionButton('/console/reconciliation/run', 'Run now', u.csrf);
    const body = !r
      ? html`<p class="hint">No reconciliation has run yet (it runs every RECONCILE_SECONDS, or with <code>gateway reconcile</code>).</p>${run}`
      : html`${facts([
          ['Run', `#${r.run_id}, finished ${when(r.finished_at)}`],
          ['Compared', `trades and records since ${when(r.since)}, ${r.bots_read} bot(s) read`],
          ['Discrepancies', String(r.total)],
          ['Not read', r.read_errors.length ? r.read_errors.map((e) => `bot ${e.bot_id} ${e.what}: ${e.error}`).join('; ') : 'none'],
        ])}${run}
${table('Discrepancies', ['#', 'Kind', 'Bot', 'Record', 'Merchant', 'Trade', 'Listing', 'Detail', 'What to do'], r.discrepancies.map((d) => [
  d.n, d.kind, d.bot_id ?? '—', d.record_kind ? `${d.record_kind} ${d.record_id}` : '—', d.merchant_id ?? '—', d.trade_id ?? '—', d.listing_id ?? '—', d.detail, d.action,
]), 'None: the records and the platform agree.')}`;
    return reply.type('text/html').send(page({ title: 'Reconciliation', nav: CONSOLE_NAV, current: '/console/reconciliation', user: { email: u.email, role: u.role, csrf: u.csrf }, flash: doneFlash(req.query), home: '/console' }, body));
  });

  app.post('/console/reconciliation/run', async (req, reply) => {
    requireRole(req, ['operator']);
    checkCsrf(req);
    const r = await ctx.reconcile.run();
    await accounts.audit(actorOf(req), 'reconciliation_run', null, { run_id: r.run_id, discrepancies: r.total });
    return reply.redirect('/console/reconciliation?done=reconciliation_run', 303);
  });
}
