// Ledger (every entry with the running balance after it, CSV) and withdrawals (history; owners
// request one: the amount leaves available at once, the operator completes or fails it).
import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../deps.js';
import { millsToUsd } from '../../../domain/money.js';
import { validationError } from '../../../http/errors.js';
import { amountTextToMills } from '../../admin/admin-routes.js';
import type { AccountsService } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf } from '../sign-in/web-session.js';
import { csrfField, facts, html, money, pager, statusBadge, table, usd, when, type Html } from '../kit/html.js';
import * as repo from './dashboard-repo.js';
import { csv } from './records-pages.js';
import { intParam, merchantUser, OWNER, respond, type MerchantUser, type ShellOf } from '../kit/view.js';
import { fieldOf } from '../../../http/typed-routes.js';

function refLink(refType: string | null, refId: number | null): Html | string {
  if (refType === 'deposit' || refType === 'purchase') return html`<a href="/dashboard/${refType}s/${refId}">${refType} #${refId}</a>`;
  return refType ? `${refType} #${refId}` : '';
}

export function moneyPages(app: FastifyInstance, ctx: WebDeps, shell: ShellOf, accounts: AccountsService): void {
  app.get('/dashboard/ledger', async (req, reply) => {
    const u = merchantUser(req);
    const before = intParam(fieldOf(req.query, 'before'));
    const rows = await repo.ledgerEntries(ctx.db, u.merchant_id, before, repo.PAGE_SIZE + 1);
    const more = rows.length > repo.PAGE_SIZE;
    const shown = rows.slice(0, repo.PAGE_SIZE);
    return respond(reply, shell, u, { title: 'Ledger', current: '/dashboard/ledger' }, html`<p>Every balance movement, newest first, with the balance after it. <a href="/dashboard/ledger.csv" download>Export CSV</a></p>
${table('Ledger entries', ['ID', 'When', 'Kind', 'Available Δ', 'Hold Δ', 'Available after', 'Hold after', 'For'], shown.map((e) => [
  e.id, when(e.created_at), e.kind, money(e.available_delta), money(e.hold_delta), money(e.available_after), money(e.hold_after), refLink(e.ref_type, e.ref_id),
]), 'No ledger entries yet.')}
${pager('/dashboard/ledger', {}, more ? shown[shown.length - 1].id : undefined)}`);
  });

  app.get('/dashboard/ledger.csv', async (req, reply) => {
    const u = merchantUser(req);
    const rows = await repo.ledgerEntries(ctx.db, u.merchant_id, undefined, repo.CSV_MAX_ROWS);
    const body = csv(
      ['id', 'created_at', 'key', 'kind', 'available_delta_usd', 'hold_delta_usd', 'available_after_usd', 'hold_after_usd', 'ref_type', 'ref_id'],
      rows.map((e) => [e.id, new Date(e.created_at), e.key, e.kind, millsToUsd(e.available_delta), millsToUsd(e.hold_delta), millsToUsd(e.available_after), millsToUsd(e.hold_after), e.ref_type, e.ref_id]),
    );
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="ledger.csv"').send(body);
  });

  async function withdrawalsPage(u: MerchantUser, before: number | undefined, extra?: Html) {
    const [b, rows] = await Promise.all([repo.balance(ctx.db, u.merchant_id), repo.withdrawals(ctx.db, u.merchant_id, before, repo.PAGE_SIZE + 1)]);
    const more = rows.length > repo.PAGE_SIZE;
    const shown = rows.slice(0, repo.PAGE_SIZE);
    return html`${extra ?? ''}${facts([['Available', html`<span id="withdraw-available">${usd(b?.available ?? 0)}</span>`]])}
${u.role === 'owner' ? html`<form method="post" action="/dashboard/withdrawals" class="card narrow">${csrfField(u.csrf)}
<label for="amount">Amount (USD)</label><input id="amount" name="amount" inputmode="decimal" pattern="[0-9]+([.][0-9]{1,3})?" required>
<label for="reference">Reference <span class="hint">(optional, e.g. your payout account)</span></label><input id="reference" name="reference" maxlength="200">
<button type="submit" id="request-withdrawal">Request withdrawal</button>
<p class="hint">The amount leaves the available balance at once; the operator completes the payout or fails it (the amount comes back).</p></form>` : ''}
${table('Withdrawals', ['ID', 'Amount', 'Status', 'Reference', 'Requested', 'Updated'], shown.map((w) => [w.id, money(w.amount), statusBadge(w.status), w.reference, when(w.created_at), when(w.updated_at)]), 'No withdrawals yet.')}
${pager('/dashboard/withdrawals', {}, more ? shown[shown.length - 1].id : undefined)}`;
  }

  app.get('/dashboard/withdrawals', async (req, reply) => {
    const u = merchantUser(req);
    return respond(reply, shell, u, { title: 'Withdrawals', current: '/dashboard/withdrawals' }, await withdrawalsPage(u, intParam(fieldOf(req.query, 'before'))));
  });

  app.post('/dashboard/withdrawals', async (req, reply) => {
    const u = merchantUser(req, OWNER);
    checkCsrf(req);
    const amount = amountTextToMills(req.form.amount ?? '');
    const reference = (req.form.reference ?? '').trim().slice(0, 200) || undefined;
    const w = await ctx.ledger.createWithdrawal(u.merchant_id, amount, reference);
    await accounts.audit(actorOf(req), 'withdrawal_requested', u.merchant_id, { withdrawal_id: w.id, amount: w.amount, reference: reference ?? null });
    const flash = html`<p class="flash flash-ok" role="status">Withdrawal #${w.id} of ${usd(Math.round(w.amount * 1000))} requested.</p>`;
    return respond(reply, shell, u, { title: 'Withdrawals', current: '/dashboard/withdrawals' }, await withdrawalsPage(u, undefined, flash));
  });
}
