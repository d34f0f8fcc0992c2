// Dashboard "API requests": the merchant's own API requests of the last REQUEST_LOG_DAYS, newest
// first, searchable by request id and merchant_tx_id; a failed request shows its answer. The recorder
// stores them masked; they are masked again when shown (src/domain/redaction.ts), for rows written
// before it did.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../db/database.js';
import { html, pager, table, when } from '../kit/html.js';
import { intParam, merchantUser, respond, type ShellOf } from '../kit/view.js';
import { listRequests } from './dashboard-repo.js';
import { stringFields } from '../../../http/typed-routes.js';
import { maskText, maskUrl } from '../../../domain/redaction.js';

const PAGE_SIZE = 50;
const clean = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 200) : undefined);

export function requestLogPages(app: FastifyInstance, ctx: { db: Db; config: { requestLogDays: number } }, shell: ShellOf): void {
  app.get('/dashboard/requests', async (req, reply) => {
    const u = merchantUser(req);
    const q = stringFields(req.query);
    const requestId = clean(q.request_id);
    const merchantTxId = clean(q.merchant_tx_id);
    const rows = await listRequests(ctx.db, u.merchant_id, { limit: PAGE_SIZE + 1, beforeId: intParam(q.before), requestId, merchantTxId });
    const shown = rows.slice(0, PAGE_SIZE);
    const more = rows.length > PAGE_SIZE;
    const days = ctx.config.requestLogDays;
    const body = html`<p class="hint">${days > 0 ? `Your API requests of the last ${days} days, newest first (recorded within seconds of the answer; identical 304 answers within about a second are one row with their count, found by the first one's request id).` : 'Request logging is off on this gateway (REQUEST_LOG_DAYS=0).'}</p>
<form method="get" action="/dashboard/requests" class="filters">
<div><label for="r-id">Request id</label><input id="r-id" name="request_id" value="${requestId ?? ''}"></div>
<div><label for="r-tx">merchant_tx_id</label><input id="r-tx" name="merchant_tx_id" value="${merchantTxId ?? ''}"></div>
<div class="buttons"><button type="submit">Search</button></div></form>
${table('API requests', ['Time', 'Request', 'Status', 'Duration', 'Request id', 'Key', 'Client', 'merchant_tx_id'], shown.map((r) => [
  when(r.at),
  html`<code class="break">${r.method} ${maskUrl(r.path)}</code>${r.error_body ? html`<details><summary>Answer</summary><pre class="excerpt">${maskText(r.error_body)}</pre></details>` : ''}`,
  html`<span class="${r.status >= 400 ? 'state state-exhausted' : 'state state-delivered'}">${r.status}</span>${r.repeats > 1 ? html` <span class="hint" title="${r.repeats} identical answers within about a second; the request id is the first one's">×${r.repeats}</span>` : ''}`,
  `${r.duration_ms} ms`,
  html`<code>${r.request_id}</code>`,
  html`<code>${r.key_prefix}…</code>`,
  r.client_ip,
  r.merchant_tx_id ?? '',
]), requestId || merchantTxId ? 'No request matches.' : 'No API request yet.')}
${pager('/dashboard/requests', { request_id: requestId, merchant_tx_id: merchantTxId }, more ? shown[shown.length - 1]!.id : undefined)}`;
    return respond(reply, shell, u, { title: 'API requests', current: '/dashboard/requests' }, body);
  });
}
