// The operator console (/console): merchants (create, settings, disable, invite users, top up),
// withdrawals to complete / fail / cancel, system health (ledger verify, webhook backlog, job
// queue), operators and the audit log. Operators only; writes go through the services.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { WebDeps } from '../deps.js';
import { notFound, validationError } from '../../../http/errors.js';
import { amountTextToMills } from '../../admin/admin-routes.js';
import { exactNumber } from '../../../domain/money.js';
import { MERCHANT_NAME_MAX } from '../../merchants/merchant-service.js';
import { depositItemsWithBasis } from '../dashboard/price-basis.js';
import type { AccountsService, SessionUser } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf, requireRole } from '../sign-in/web-session.js';
import { MERCHANT_ROLES, type Role } from '../../accounts/accounts-types.js';
import { actionButton, csrfField, doneFlash, facts, html, money, page, pager, shownOnce, statusBadge, table, usd, when, type Html } from '../kit/html.js';
import * as drepo from '../dashboard/dashboard-repo.js';
import { intParam } from '../kit/view.js';
import { auditTable, inviteForm, inviteShown, resetShown, userActions } from '../dashboard/team-pages.js';
import { CONSOLE_NAV } from '../kit/nav.js';
import * as repo from './console-repo.js';
import { LOOKUP_MAX, lookupTerms } from './lookup.js';
import { fieldOf } from '../../../http/typed-routes.js';

const operator = (req: Parameters<typeof requireRole>[0]) => requireRole(req, ['operator']);

function respond(reply: FastifyReply, u: SessionUser, title: string, current: string, body: Html, flash?: { kind: 'ok' | 'error'; text: string }) {
  return reply.type('text/html').send(page({ title, nav: CONSOLE_NAV, current, user: { email: u.email, role: u.role, csrf: u.csrf }, flash: flash ?? doneFlash(reply.request.query), home: '/console' }, body));
}

const checkbox = (name: string, label: string, on: boolean) =>
  html`<div class="check"><input type="checkbox" id="${name}" name="${name}" value="on"${on ? html` checked` : ''}><label for="${name}">${label}</label></div>`;

/** The one search box: a deposit or purchase of any merchant by id, merchant_tx_id, trade offer id or asset id. */
export function lookupForm(q: string): Html {
  return html`<form method="get" action="/console/find" class="filters" role="search" aria-label="Find a deposit or purchase">
<div class="grow"><label for="find-q">Find a deposit or purchase <span class="hint">(id, merchant_tx_id, trade offer id or link, asset id)</span></label>
<input id="find-q" name="q" type="search" value="${q}" maxlength="${LOOKUP_MAX}" required></div>
<div class="buttons"><button type="submit" id="find">Find</button></div></form>`;
}

export function consolePages(app: FastifyInstance, ctx: WebDeps, accounts: AccountsService): void {
  async function merchantsPage(u: SessionUser, before: number | undefined, extra?: Html) {
    const rows = await repo.merchantsWithBalance(ctx.db, before, drepo.PAGE_SIZE + 1);
    const more = rows.length > drepo.PAGE_SIZE;
    const shown = rows.slice(0, drepo.PAGE_SIZE);
    const pending = await repo.pendingWithdrawals(ctx.db, 100);
    return html`${extra ?? ''}${lookupForm('')}
<section><h2>Pending withdrawals</h2>${withdrawalTable(pending.map((w) => ({ ...w, status: 'pending' })), u.csrf, true)}</section>
<section><h2>Merchants</h2>
${table('Merchants', ['ID', 'Name', 'State', 'Available', 'Hold', 'Created'], shown.map((m) => [
  m.id, html`<a href="/console/merchants/${m.id}">${m.name}</a>`, m.enabled ? 'enabled' : 'disabled', money(m.available ?? 0), money(m.hold ?? 0), when(m.created_at),
]), 'No merchants yet.')}
${pager('/console', {}, more ? shown[shown.length - 1].id : undefined)}</section>
<section><h2>New merchant</h2>
<form method="post" action="/console/merchants" class="card narrow">${csrfField(u.csrf)}
<label for="m-name">Name</label><input id="m-name" name="name" required maxlength="${MERCHANT_NAME_MAX}">
<label for="m-hook">Webhook URL <span class="hint">(optional)</span></label><input id="m-hook" name="webhook_url" type="url">
<button type="submit" id="create-merchant">Create merchant</button></form></section>`;
  }

  function withdrawalTable(rows: { id: number; merchant_id?: number; name?: string; amount: number; status: string; reference: string | null; created_at: Date | string }[], csrf: string, withMerchant: boolean): Html {
    return table('Withdrawals', ['ID', ...(withMerchant ? ['Merchant'] : []), 'Amount', 'Status', 'Reference', 'Requested', 'Actions'], rows.map((w) => [
      w.id, ...(withMerchant ? [html`<a href="/console/merchants/${w.merchant_id}">${w.name}</a>`] : []), money(w.amount), statusBadge(w.status), w.reference, when(w.created_at),
      w.status === 'pending'
        ? html`<div class="buttons">${actionButton(`/console/withdrawals/${w.id}/complete`, 'Complete', csrf)}${actionButton(`/console/withdrawals/${w.id}/fail`, 'Fail', csrf, { danger: true })}${actionButton(`/console/withdrawals/${w.id}/cancel`, 'Cancel', csrf, { danger: true })}</div>`
        : '',
    ]), 'No withdrawals.');
  }

  app.get('/console', async (req, reply) => {
    const u = operator(req);
    return respond(reply, u, 'Merchants', '/console', await merchantsPage(u, intParam(fieldOf(req.query, 'before'))));
  });

  app.post('/console/merchants', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const hook = (req.form.webhook_url ?? '').trim();
    const m = await ctx.merchants.create({ name: (req.form.name ?? '').trim(), webhook_url: hook || undefined });
    await accounts.audit(actorOf(req), 'merchant_created', m.id, { name: m.name });
    const shown = html`${shownOnce(`API key of ${m.name} (#${m.id})`, m.api_key)}<div class="secret"><p><strong>Webhook secret</strong> — shown only once.</p><code>${m.webhook_secret}</code></div>
<p><a href="/console/merchants/${m.id}">Open the merchant to invite its first user →</a></p>`;
    return respond(reply, u, 'Merchants', '/console', await merchantsPage(u, undefined, shown));
  });

  async function merchantPage(u: SessionUser, id: number, extra?: Html) {
    const m = await ctx.merchants.get(id); // 404 when missing
    const [withdrawals, users, audit, requireTotp] = await Promise.all([
      drepo.withdrawals(ctx.db, id, undefined, 50),
      accounts.listUsers(id),
      accounts.listAudit({ merchantId: id, limit: 20 }),
      accounts.teamRequiresTotp(id),
    ]);
    return html`${extra ?? ''}
${facts([['ID', m.id], ['Available', html`<span id="m-available">${usd(Math.round(m.balance.available * 1000))}</span>`], ['Hold', usd(Math.round(m.balance.hold * 1000))], ['API key', `${m.api_key_prefix}…`], ['Created', when(m.created_at)]])}
<section><h2>Settings</h2>
<form method="post" action="/console/merchants/${id}/settings" class="card">${csrfField(u.csrf)}
<label for="s-name">Name</label><input id="s-name" name="name" value="${m.name}" required maxlength="${MERCHANT_NAME_MAX}">
<label for="s-hook">Webhook URL</label><input id="s-hook" name="webhook_url" type="url" value="${m.webhook_url ?? ''}">
<label for="s-max">Max items per deposit</label><input id="s-max" name="max_items" inputmode="numeric" value="${m.max_items}">
<label for="s-mult">Deposit multiplier</label><input id="s-mult" name="deposit_multiplier" inputmode="decimal" value="${m.deposit_multiplier}">
<label for="s-markup">Purchase markup</label><input id="s-markup" name="purchase_markup" inputmode="decimal" value="${m.purchase_markup}">
<label for="s-rate">Rate limit, requests per minute <span class="hint">(empty: the default, ${ctx.config.rateLimits.merchantPerMinute || 'none'})</span></label><input id="s-rate" name="rate_limit_per_minute" inputmode="numeric" value="${m.rate_limit_per_minute ?? ''}">
${checkbox('enabled', 'Enabled (API keys work)', m.enabled)}
${checkbox('deposit_preview_enabled', 'deposit-preview enabled', m.deposit_preview_enabled)}
<button type="submit">Save settings</button></form></section>
<section><h2>Top up</h2>
<form method="post" action="/console/merchants/${id}/top-up" class="card narrow">${csrfField(u.csrf)}
<label for="t-amount">Amount (USD)</label><input id="t-amount" name="amount" inputmode="decimal" required>
<label for="t-ref">Reference <span class="hint">(idempotency: the same reference credits once)</span></label><input id="t-ref" name="reference" maxlength="200">
<button type="submit">Top up</button></form></section>
<section><h2>Withdrawals</h2>${withdrawalTable(withdrawals, u.csrf, false)}</section>
<section><h2>Users</h2>
${table('Users', ['E-mail', 'Role', 'State', 'Authenticator', 'Actions'], users.map((x) => [x.email, x.role, x.disabled ? 'disabled' : x.password_hash ? 'active' : x.account_elsewhere ? 'invited (the address has an account elsewhere: it cannot be accepted)' : 'invited', x.totp_enabled ? 'on' : 'off',
  userActions(`/console/merchants/${id}/users/${x.id}`, x, u)]), 'No users yet: invite the first owner.')}
<h3>Invite a user</h3>${inviteForm(`/console/merchants/${id}/invite`, u.csrf, ['owner', 'developer', 'viewer'])}</section>
<section><h2>Two-step sign-in for the team</h2>
<p id="team-totp">${requireTotp ? 'Required: every user of this merchant signs in with an authenticator.' : 'Optional: each user decides (an owner may require it).'}</p>
${actionButton(`/console/merchants/${id}/require-totp`, requireTotp ? 'Make it optional' : 'Require an authenticator of everyone', u.csrf, { fields: { required: requireTotp ? 'false' : 'true' }, danger: requireTotp })}</section>
<section><h2>Recent audit entries</h2>${auditTable(audit)}</section>`;
  }

  app.get('/console/merchants/:id', async (req, reply) => {
    const u = operator(req);
    const id = intParam(fieldOf(req.params, 'id')) ?? 0;
    const m = await ctx.merchants.get(id);
    return respond(reply, u, `Merchant: ${m.name}`, '/console', await merchantPage(u, id));
  });

  app.post('/console/merchants/:id/settings', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const id = intParam(fieldOf(req.params, 'id')) ?? 0;
    const f = req.form;
    const num = (field: string, v: string | undefined) => {
      // Decided on the text as typed: a number with more digits than a double keeps is refused, not rounded.
      const n = exactNumber((v ?? '').trim());
      if (n === undefined) throw validationError([{ field, code: 'numeric', message: `${field} must be a number (at most 15 significant digits)` }]);
      return n;
    };
    const maxItems = num('max_items', f.max_items);
    if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > 1000) throw validationError([{ field: 'max_items', code: 'max', message: 'max_items must be an integer from 1 to 1000' }]);
    const patch = {
      name: (f.name ?? '').trim(),
      webhook_url: (f.webhook_url ?? '').trim() || null,
      max_items: maxItems,
      deposit_multiplier: num('deposit_multiplier', f.deposit_multiplier),
      purchase_markup: num('purchase_markup', f.purchase_markup),
      rate_limit_per_minute: (f.rate_limit_per_minute ?? '').trim() === '' ? null : num('rate_limit_per_minute', f.rate_limit_per_minute),
      enabled: f.enabled === 'on',
      deposit_preview_enabled: f.deposit_preview_enabled === 'on',
    };
    for (const k of ['deposit_multiplier', 'purchase_markup'] as const) {
      if (patch[k] > 10) throw validationError([{ field: k, code: 'max', message: `${k} must be at most 10` }]);
    }
    if (!patch.name) throw validationError([{ field: 'name', code: 'required', message: 'name is required' }]);
    await ctx.merchants.update(id, patch);
    await accounts.audit(actorOf(req), 'merchant_updated', id, patch);
    const m = await ctx.merchants.get(id);
    return respond(reply, u, `Merchant: ${m.name}`, '/console', await merchantPage(u, id), { kind: 'ok', text: 'Settings saved.' });
  });

  app.post('/console/merchants/:id/top-up', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const id = intParam(fieldOf(req.params, 'id')) ?? 0;
    const r = await ctx.ledger.topUp(id, amountTextToMills(req.form.amount ?? ''), (req.form.reference ?? '').trim() || undefined);
    await accounts.audit(actorOf(req), 'top_up', id, { top_up_id: r.id, amount: r.amount, reference: r.reference, duplicate: r.duplicate });
    const m = await ctx.merchants.get(id);
    return respond(reply, u, `Merchant: ${m.name}`, '/console', await merchantPage(u, id), { kind: 'ok', text: r.duplicate ? 'That reference was already credited: nothing changed.' : `Credited ${usd(Math.round(r.amount * 1000))}.` });
  });

  app.post('/console/merchants/:id/invite', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const id = intParam(fieldOf(req.params, 'id')) ?? 0;
    const role = req.form.role ?? '';
    const inv = await accounts.invite({ merchantId: id, email: req.form.email ?? '', role: ((MERCHANT_ROLES as readonly string[]).includes(role) ? role : 'invalid') as Role }, actorOf(req), { byMail: true });
    const m = await ctx.merchants.get(id);
    return respond(reply, u, `Merchant: ${m.name}`, '/console', await merchantPage(u, id, inviteShown(inv)));
  });

  // The team's second-factor rule, set by an operator as an owner can (audited with the operator's name).
  app.post('/console/merchants/:id/require-totp', async (req, reply) => {
    operator(req);
    checkCsrf(req);
    const id = intParam(fieldOf(req.params, 'id')) ?? 0;
    const required = req.form.required === 'true';
    if (!required && req.form.required !== 'false') throw validationError([{ field: 'required', code: 'oneof', message: 'required must be true or false' }]);
    await accounts.setTeamRequiresTotpAsOperator(id, required, actorOf(req));
    return reply.redirect(`/console/merchants/${id}?done=team_totp_${required ? 'required' : 'optional'}`, 303);
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/console/merchants/:id/users/:uid/${action}`, async (req, reply) => {
      operator(req);
      checkCsrf(req);
      const id = intParam(fieldOf(req.params, 'id')) ?? 0;
      await accounts.setUserDisabled(id, intParam(fieldOf(req.params, 'uid')) ?? 0, action === 'disable', actorOf(req));
      return reply.redirect(`/console/merchants/${id}?done=user_${action}d`, 303);
    });
  }

  for (const action of ['complete', 'fail', 'cancel'] as const) {
    app.post(`/console/withdrawals/:id/${action}`, async (req, reply) => {
      operator(req);
      checkCsrf(req);
      const w = await ctx.ledger.transitionWithdrawal(intParam(fieldOf(req.params, 'id')) ?? 0, action);
      await accounts.audit(actorOf(req), `withdrawal_${w.status}`, w.merchant_id, { withdrawal_id: w.id, amount: w.amount });
      const back = (req.headers.referer ?? '').includes(`/console/merchants/${w.merchant_id}`) ? `/console/merchants/${w.merchant_id}` : '/console';
      return reply.redirect(`${back}?done=withdrawal_${w.status}`, 303);
    });
  }

  // A deposit of any merchant with what priced each item.
  app.get('/console/deposits/:id', async (req, reply) => {
    const u = operator(req);
    const id = intParam(fieldOf(req.params, 'id'));
    const d = id ? await drepo.findAnyDeposit(ctx.db, id) : undefined;
    if (!d || !id) throw notFound();
    const items = await drepo.depositItems(ctx.db, id);
    return respond(reply, u, `Deposit #${id}`, '/console', html`${facts([
  ['Merchant', html`<a href="/console/merchants/${d.merchant_id}">#${d.merchant_id}</a>`],
  ['Status', statusBadge(d.status)],
  ...(d.fail_reason ? [['Fail reason', d.fail_reason] as [string, string]] : []),
  // The real cause behind a failure after retries (fail_cause): operators only.
  ...(d.fail_cause ? [['Cause', d.fail_cause] as [string, string]] : []),
  ['Amount', usd(d.amount)],
  ['Game', d.game],
  ['merchant_tx_id', d.merchant_tx_id ?? '—'],
  ['Trade offer', d.trade_offer_id ?? '—'],
  ['Fail reason', d.fail_reason ?? '—'],
  ['Created', when(d.created_at)],
  ['Updated', when(d.updated_at)],
])}
<section><h2>Items</h2>${depositItemsWithBasis(items)}</section>`);
  });

  app.get('/console/purchases/:id', async (req, reply) => {
    const u = operator(req);
    const id = intParam(fieldOf(req.params, 'id'));
    const p = id ? await drepo.findAnyPurchase(ctx.db, id) : undefined;
    if (!p || !id) throw notFound();
    return respond(reply, u, `Purchase #${id}`, '/console', facts([
      ['Merchant', html`<a href="/console/merchants/${p.merchant_id}">#${p.merchant_id}</a>`],
      ['Status', statusBadge(p.status)],
      ['Amount', usd(p.amount)],
      ['Game', p.game],
      ['Item', p.item_name ?? '—'],
      ['Asset id', p.item_asset_id ?? '—'],
      ['merchant_tx_id', p.merchant_tx_id ?? '—'],
      ['Trade offer', p.trade_offer_id ?? '—'],
      ['Bot', p.bot_name ?? '—'],
      ['Fail reason', p.fail_reason ?? '—'],
      ['Created', when(p.created_at)],
      ['Updated', when(p.updated_at)],
    ]));
  });

  app.get('/console/find', async (req, reply) => {
    const u = operator(req);
    const raw = fieldOf(req.query, 'q');
    const q = typeof raw === 'string' ? raw.slice(0, LOOKUP_MAX) : '';
    const terms = lookupTerms(q);
    if (terms.length === 0) return respond(reply, u, 'Find a record', '/console/find', lookupForm(''));
    const hits = await repo.lookupRecords(ctx.db, terms);
    if (hits.length === 1) return reply.redirect(`/console/${hits[0].kind}s/${hits[0].id}`, 303);
    const body = html`${lookupForm(q)}
<section><h2>Results</h2>${table('Deposits and purchases found', ['Record', 'Merchant', 'merchant_tx_id', 'Trade offer', 'Status', 'Amount', 'Created', 'Matched by'], hits.map((h) => [
  html`<a href="/console/${h.kind}s/${h.id}">${h.kind} #${h.id}</a>`, html`<a href="/console/merchants/${h.merchant_id}">${h.merchant_name}</a>`,
  h.merchant_tx_id ?? '—', h.trade_offer_id ?? '—', statusBadge(h.status), money(h.amount), when(h.created_at), h.matched,
]), `No deposit or purchase has the id, merchant_tx_id, trade offer id or asset id “${q.trim()}”.`)}</section>`;
    return reply.code(hits.length ? 200 : 404).type('text/html').send(page({ title: 'Find a record', nav: CONSOLE_NAV, current: '/console/find', user: { email: u.email, role: u.role, csrf: u.csrf }, home: '/console' }, body));
  });

  app.get('/console/system', async (req, reply) => {
    const u = operator(req);
    const [verify, backlog, jobs] = await Promise.all([ctx.ledger.verify(), repo.webhookBacklog(ctx.db), repo.jobQueueDepth(ctx.db)]);
    const ok = verify.mismatches.length === 0;
    return respond(reply, u, 'System', '/console/system', html`<section><h2>Ledger</h2>
<p id="ledger-verify" class="flash ${ok ? 'flash-ok' : 'flash-error'}">${ok ? 'Every balance equals the sum of its ledger entries.' : `${verify.mismatches.length} balance(s) disagree with their entries.`}</p>
${ok ? '' : html`<pre class="excerpt">${JSON.stringify(verify.mismatches, null, 2)}</pre>`}</section>
<section><h2>Webhook backlog</h2>${table('Undelivered webhook events', ['State', 'Events', 'Oldest'], backlog.map((b) => [b.state, b.n, when(b.oldest)]), 'No undelivered webhook events.')}</section>
<section><h2>Job queue</h2>${table('Jobs by task', ['Task', 'Waiting', 'Running', 'Failed before (retrying)'], jobs.map((j) => [j.task, j.waiting, j.running, j.failing]), 'The queue is empty.')}</section>`);
  });

  async function operatorsPage(u: SessionUser, extra?: Html) {
    const ops = await accounts.listUsers(null);
    return html`${extra ?? ''}${table('Operators', ['E-mail', 'State', 'Authenticator', 'Actions'], ops.map((x) => [x.email, x.disabled ? 'disabled' : x.password_hash ? 'active' : 'invited', x.totp_enabled ? 'on' : 'off (set up at next sign-in)',
      userActions(`/console/operators/${x.id}`, x, u)]))}
<h2>Invite an operator</h2>${inviteForm('/console/operators/invite', u.csrf, ['operator'])}`;
  }

  app.get('/console/operators', async (req, reply) => {
    const u = operator(req);
    return respond(reply, u, 'Operators', '/console/operators', await operatorsPage(u));
  });

  app.post('/console/operators/invite', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const inv = await accounts.invite({ merchantId: null, email: req.form.email ?? '', role: 'operator' }, actorOf(req), { byMail: true });
    return respond(reply, u, 'Operators', '/console/operators', await operatorsPage(u, inviteShown(inv)));
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/console/operators/:uid/${action}`, async (req, reply) => {
      operator(req);
      checkCsrf(req);
      await accounts.setUserDisabled(null, intParam(fieldOf(req.params, 'uid')) ?? 0, action === 'disable', actorOf(req));
      return reply.redirect(`/console/operators?done=user_${action}d`, 303);
    });
  }

  app.post('/console/merchants/:id/users/:uid/password-reset', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const id = intParam(fieldOf(req.params, 'id')) ?? 0;
    const r = await accounts.issuePasswordReset(id, intParam(fieldOf(req.params, 'uid')) ?? 0, actorOf(req));
    const m = await ctx.merchants.get(id);
    return respond(reply, u, `Merchant: ${m.name}`, '/console', await merchantPage(u, id, resetShown(r)));
  });

  app.post('/console/operators/:uid/password-reset', async (req, reply) => {
    const u = operator(req);
    checkCsrf(req);
    const r = await accounts.issuePasswordReset(null, intParam(fieldOf(req.params, 'uid')) ?? 0, actorOf(req));
    return respond(reply, u, 'Operators', '/console/operators', await operatorsPage(u, resetShown(r)));
  });

  app.get('/console/audit', async (req, reply) => {
    const u = operator(req);
    const rows = await accounts.listAudit({ before: intParam(fieldOf(req.query, 'before')), limit: drepo.PAGE_SIZE + 1 });
    const more = rows.length > drepo.PAGE_SIZE;
    const shown = rows.slice(0, drepo.PAGE_SIZE);
    return respond(reply, u, 'Audit log', '/console/audit', html`${auditTable(shown, true)}${pager('/console/audit', {}, more ? shown[shown.length - 1].id : undefined)}`);
  });
}
