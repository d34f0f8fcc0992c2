// Webhooks (endpoint, secret rotation shown once, delivery log, redeliver, test event) and
// API keys & access (key rotation shown once, IP whitelist, frame ancestors). Writes go through
// the merchant and webhook services; every change is audited.
import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../deps.js';
import { notFound } from '../../../http/errors.js';
import type { AccountsService } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf } from '../sign-in/web-session.js';
import { actionButton, csrfField, facts, html, pager, statusBadge, table, when, shownOnce, type Html } from '../kit/html.js';
import * as repo from './dashboard-repo.js';
import { DEVELOP, intParam, merchantUser, respond, type MerchantUser, type ShellOf } from '../kit/view.js';
import { sendTestEvent } from './webhook-test.js';
import { keyLastUsed } from './key-usage.js';
import { fieldOf, stringFields } from '../../../http/typed-routes.js';

type EventWithAttempts = Awaited<ReturnType<typeof repo.webhookEvents>>[number];

export function webhookEventsTable(events: EventWithAttempts[], csrf: string, canAct: boolean): Html {
  if (events.length === 0) return html`<p class="empty">No webhook events.</p>`;
  return html`<div class="events">${events.map((e) => html`<details class="event" id="event-${e.id}"><summary>
<span>Event #${e.id} · ${e.kind} #${e.record_id} → ${statusBadge(e.status)}</span> <span class="state state-${e.state}">${e.state}</span> <span class="hint">${e.attempts} attempt(s), ${when(e.created_at)}</span></summary>
<p class="break">Target: <code>${e.target_url}</code></p>
<pre class="excerpt">${JSON.stringify(e.payload, null, 2)}</pre>
${table(`Attempts of event ${e.id}`, ['#', 'When', 'HTTP', 'Time', 'Error', 'Response excerpt'], e.attempt_rows.map((a) => [
  a.attempt, when(a.attempted_at), a.status_code ?? '—', `${a.latency_ms} ms`, a.error ?? '', html`<code class="excerpt">${(a.response_excerpt ?? '').slice(0, 300)}</code>`,
]), 'No attempt yet.')}
${canAct ? actionButton(`/dashboard/webhooks/${e.id}/redeliver`, 'Redeliver', csrf) : ''}
</details>`)}</div>`;
}

export function settingsPages(app: FastifyInstance, ctx: WebDeps, shell: ShellOf, accounts: AccountsService): void {
  async function webhooksPage(u: MerchantUser, query: Record<string, string>, extra?: Html) {
    const m = await ctx.merchants.findRow(u.merchant_id);
    if (!m) throw notFound();
    const state = ['pending', 'delivered', 'exhausted'].includes(query.state ?? '') ? query.state : undefined;
    const events = await repo.webhookEvents(ctx.db, u.merchant_id, { state, before: intParam(query.before), limit: repo.PAGE_SIZE + 1 });
    const more = events.length > repo.PAGE_SIZE;
    const shown = events.slice(0, repo.PAGE_SIZE);
    const canAct = u.role !== 'viewer';
    return html`${extra ?? ''}
<section><h2>Endpoint</h2>
${canAct ? html`<form method="post" action="/dashboard/webhooks/url" class="card">${csrfField(u.csrf)}
<label for="webhook-url">Webhook URL <span class="hint">(deposits without a result_url and every purchase)</span></label>
<input id="webhook-url" name="webhook_url" type="url" value="${m.webhook_url ?? ''}" placeholder="https://shop.example/hooks">
<button type="submit">Save</button></form>
<div class="buttons">${actionButton('/dashboard/webhooks/test', 'Send test event', u.csrf)} ${actionButton('/dashboard/webhooks/rotate-secret', 'Rotate signing secret', u.csrf, { danger: true, confirm: 'Rotate the webhook secret? Pending retries are signed with the new one.' })}</div>`
  : facts([['Webhook URL', m.webhook_url ?? '—']])}
</section>
<section><h2>Delivery log</h2>
<form method="get" action="/dashboard/webhooks" class="filters"><div><label for="w-state">State</label><select id="w-state" name="state">${['', 'pending', 'delivered', 'exhausted'].map((s) => html`<option value="${s}"${s === (state ?? '') ? html` selected` : ''}>${s || 'any'}</option>`)}</select></div><div class="buttons"><button type="submit">Filter</button></div></form>
${webhookEventsTable(shown, u.csrf, canAct)}
${pager('/dashboard/webhooks', { state }, more ? shown[shown.length - 1].id : undefined)}
</section>`;
  }

  app.get('/dashboard/webhooks', async (req, reply) => {
    const u = merchantUser(req);
    return respond(reply, shell, u, { title: 'Webhooks', current: '/dashboard/webhooks', scripts: ['dashboard.js'] }, await webhooksPage(u, stringFields(req.query)));
  });

  app.post('/dashboard/webhooks/url', async (req, reply) => {
    const u = merchantUser(req, DEVELOP);
    checkCsrf(req);
    const url = (req.form.webhook_url ?? '').trim();
    await ctx.merchants.update(u.merchant_id, { webhook_url: url === '' ? null : url });
    await accounts.audit(actorOf(req), 'webhook_url_changed', u.merchant_id, { webhook_url: url || null });
    return respond(reply, shell, u, { title: 'Webhooks', current: '/dashboard/webhooks', scripts: ['dashboard.js'], flash: { kind: 'ok', text: 'Webhook URL saved.' } }, await webhooksPage(u, {}));
  });

  app.post('/dashboard/webhooks/rotate-secret', async (req, reply) => {
    const u = merchantUser(req, DEVELOP);
    checkCsrf(req);
    const r = await ctx.merchants.rotateWebhookSecret(u.merchant_id);
    await accounts.audit(actorOf(req), 'webhook_secret_rotated', u.merchant_id);
    return respond(reply, shell, u, { title: 'Webhooks', current: '/dashboard/webhooks', scripts: ['dashboard.js'] }, await webhooksPage(u, {}, shownOnce('New webhook signing secret', r.webhook_secret)));
  });

  app.post('/dashboard/webhooks/test', async (req, reply) => {
    const u = merchantUser(req, DEVELOP);
    checkCsrf(req);
    const r = await sendTestEvent(ctx, u.merchant_id);
    await accounts.audit(actorOf(req), 'webhook_test_sent', u.merchant_id, { status_code: r.status_code, error: r.error });
    const good = r.status_code !== null && r.status_code >= 200 && r.status_code < 300;
    const result = html`<section class="card" id="test-result"><h2>Test event</h2>${facts([
      ['URL', r.url], ['HTTP status', r.status_code ?? '—'], ['Time', `${r.latency_ms} ms`], ['Error', r.error ?? '—'],
      ['Response excerpt', html`<code class="excerpt">${(r.excerpt ?? '').slice(0, 500)}</code>`],
    ])}</section>`;
    return respond(reply, shell, u, { title: 'Webhooks', current: '/dashboard/webhooks', scripts: ['dashboard.js'], flash: good ? { kind: 'ok', text: `Test event delivered (HTTP ${r.status_code}).` } : { kind: 'error', text: 'The test event was not accepted by the endpoint.' } }, await webhooksPage(u, {}, result));
  });

  app.post('/dashboard/webhooks/:id/redeliver', async (req, reply) => {
    const u = merchantUser(req, DEVELOP);
    checkCsrf(req);
    const id = intParam(fieldOf(req.params, 'id'));
    if (!id || !(await repo.findWebhookEvent(ctx.db, u.merchant_id, id))) throw notFound();
    await ctx.webhooks.redeliver(id);
    await accounts.audit(actorOf(req), 'webhook_redelivered', u.merchant_id, { event_id: id });
    return respond(reply, shell, u, { title: 'Webhooks', current: '/dashboard/webhooks', scripts: ['dashboard.js'], flash: { kind: 'ok', text: `Event #${id}: a new attempt is queued.` } }, await webhooksPage(u, {}));
  });

  // --- API keys & access -----------------------------------------------------------------------

  async function developersPage(u: MerchantUser, extra?: Html) {
    const m = await ctx.merchants.findRow(u.merchant_id);
    if (!m) throw notFound();
    const used = await keyLastUsed(ctx.db, m.id, m.api_key_prefix);
    const canAct = u.role !== 'viewer';
    return html`${extra ?? ''}
<section><h2>API key</h2>
${facts([
  ['Key', html`<code id="api-key-prefix">${m.api_key_prefix}…</code>`],
  ['Last used', html`<span id="api-key-last-used">${used ? `${when(used.last_used_at)} from ${used.last_ip ?? '?'}` : 'never'}</span>`],
  ['Header', html`<code>X-Api-Key</code>`],
  ['Account', m.enabled ? 'enabled' : 'disabled by the operator'],
])}
${canAct ? actionButton('/dashboard/developers/rotate-key', 'Rotate API key', u.csrf, { danger: true, confirm: 'Rotate the API key? The current key stops working at once.' }) : ''}
</section>
<section><h2>Access</h2>
${canAct ? html`<form method="post" action="/dashboard/developers/access" class="card">${csrfField(u.csrf)}
<label for="ip-whitelist">IP whitelist <span class="hint">(one address per line; empty: any address)</span></label>
<textarea id="ip-whitelist" name="ip_whitelist" rows="4">${m.ip_whitelist.join('\n')}</textarea>
<label for="frame-ancestors">Frame ancestors <span class="hint">(origins that may embed the hosted deposit page, one per line, e.g. https://shop.example)</span></label>
<textarea id="frame-ancestors" name="frame_ancestors" rows="3">${m.frame_ancestors.join('\n')}</textarea>
<button type="submit">Save access settings</button></form>`
  : facts([['IP whitelist', m.ip_whitelist.join(', ') || 'any address'], ['Frame ancestors', m.frame_ancestors.join(', ') || 'none']])}
</section>`;
  }

  app.get('/dashboard/developers', async (req, reply) => {
    const u = merchantUser(req);
    return respond(reply, shell, u, { title: 'API keys & access', current: '/dashboard/developers', scripts: ['dashboard.js'] }, await developersPage(u));
  });

  app.post('/dashboard/developers/rotate-key', async (req, reply) => {
    const u = merchantUser(req, DEVELOP);
    checkCsrf(req);
    const r = await ctx.merchants.rotateKey(u.merchant_id);
    await accounts.audit(actorOf(req), 'api_key_rotated', u.merchant_id, { api_key_prefix: r.api_key_prefix });
    return respond(reply, shell, u, { title: 'API keys & access', current: '/dashboard/developers', scripts: ['dashboard.js'] }, await developersPage(u, shownOnce('New API key', r.api_key)));
  });

  app.post('/dashboard/developers/access', async (req, reply) => {
    const u = merchantUser(req, DEVELOP);
    checkCsrf(req);
    const lines = (s: string | undefined) => (s ?? '').split(/[\r\n,]+/).map((x) => x.trim()).filter(Boolean);
    const patch = { ip_whitelist: lines(req.form.ip_whitelist), frame_ancestors: lines(req.form.frame_ancestors) };
    await ctx.merchants.update(u.merchant_id, patch);
    await accounts.audit(actorOf(req), 'access_settings_changed', u.merchant_id, patch);
    return respond(reply, shell, u, { title: 'API keys & access', current: '/dashboard/developers', scripts: ['dashboard.js'], flash: { kind: 'ok', text: 'Access settings saved.' } }, await developersPage(u));
  });
}
