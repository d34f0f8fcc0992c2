// Deposits and purchases: filtered lists (status, game, dates, merchant_tx_id) with keyset
// pagination, CSV export of the filtered list, and the detail page with its status timeline,
// webhook attempts and, in the sandbox, the test helpers as buttons.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebDeps } from '../deps.js';
import { GAMES } from '../../../domain/games.js';
import { millsToUsd } from '../../../domain/money.js';
import { notFound } from '../../../http/errors.js';
import type { AccountsService } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf } from '../sign-in/web-session.js';
import { SANDBOX_ACTIONS, helperChange, simulatorOf, type SandboxAction } from '../../sandbox-helpers/sandbox-offer-change.js';
import { actionButton, facts, html, money, pager, statusBadge, table, usd, when, type Html } from '../kit/html.js';
import * as repo from './dashboard-repo.js';
import { transitionFrom } from '../../../domain/state-machine.js';
import { DEPOSIT_MACHINE } from '../../../domain/deposit-state.js';
import { PURCHASE_MACHINE } from '../../../domain/purchase-state.js';

/** The sandbox helper buttons of a record page, each with the state-machine event it causes. */
const isSandboxAction = (a: unknown): a is SandboxAction => SANDBOX_ACTIONS.some((x) => x === a);

export const SANDBOX_BUTTONS: { action: SandboxAction; event: string; label: string; fields?: Record<string, string> }[] = [
  { action: 'accept', event: 'accept', label: 'Accept (no hold)', fields: { hold: 'false' } },
  { action: 'accept', event: 'accept_hold', label: 'Accept with hold', fields: { hold: 'true' } },
  { action: 'decline', event: 'decline', label: 'Decline' },
  { action: 'expire', event: 'expire', label: 'Expire' },
  { action: 'release', event: 'release', label: 'Release' },
  { action: 'cancel', event: 'cancel', label: 'Cancel' },
  { action: 'revert', event: 'revert', label: 'Revert (by user)', fields: { by: 'user' } },
];
import { DEVELOP, intParam, merchantUser, respond, type ShellOf } from '../kit/view.js';
import { webhookEventsTable } from './settings-pages.js';
import { depositItemsWithBasis } from './price-basis.js';
import { fieldOf, stringFields } from '../../../http/typed-routes.js';

const STATUSES = ['new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseFilter(q: Record<string, string | undefined>): repo.RecordFilter {
  return {
    status: STATUSES.includes(q.status ?? '') ? q.status : undefined,
    game: (GAMES as readonly string[]).includes(q.game ?? '') ? q.game : undefined,
    merchant_tx_id: q.merchant_tx_id?.trim().slice(0, 200) || undefined,
    from: DATE.test(q.from ?? '') && !Number.isNaN(Date.parse(q.from!)) ? q.from : undefined,
    to: DATE.test(q.to ?? '') && !Number.isNaN(Date.parse(q.to!)) ? q.to : undefined,
    before: intParam(q.before),
  };
}

function filterForm(path: string, f: repo.RecordFilter): Html {
  const opt = (v: string, cur?: string) => html`<option value="${v}"${v === (cur ?? '') ? html` selected` : ''}>${v || 'any'}</option>`;
  return html`<form method="get" action="${path}" class="filters" role="search">
<div><label for="f-status">Status</label><select id="f-status" name="status">${['', ...STATUSES].map((s) => opt(s, f.status))}</select></div>
<div><label for="f-game">Game</label><select id="f-game" name="game">${['', ...GAMES].map((g) => opt(g, f.game))}</select></div>
<div><label for="f-from">From</label><input id="f-from" name="from" type="date" value="${f.from ?? ''}"></div>
<div><label for="f-to">To</label><input id="f-to" name="to" type="date" value="${f.to ?? ''}"></div>
<div><label for="f-tx">merchant_tx_id</label><input id="f-tx" name="merchant_tx_id" value="${f.merchant_tx_id ?? ''}"></div>
<div class="buttons"><button type="submit">Filter</button> <a href="${path}">Reset</a></div>
</form>`;
}

const filterQuery = (f: repo.RecordFilter) => ({ status: f.status, game: f.game, from: f.from, to: f.to, merchant_tx_id: f.merchant_tx_id });

/**
 * A CSV cell. Numbers stay numbers (bare, so a debit of -1 is the number -1); text is quoted, and a
 * leading = + - @ is neutralised so spreadsheets do not run it as a formula.
 */
export function csvCell(v: unknown): string {
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint') return String(v);
  let s = v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

export function csv(headers: string[], rows: unknown[][]): string {
  return [headers, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

export function recordPages(app: FastifyInstance, ctx: WebDeps, shell: ShellOf, accounts: AccountsService): void {
  const simulate = simulatorOf(ctx);

  for (const kind of ['deposit', 'purchase'] as const) {
    const path = `/dashboard/${kind}s`;
    const title = kind === 'deposit' ? 'Deposits' : 'Purchases';

    app.get(path, async (req, reply) => {
      const u = merchantUser(req);
      const f = parseFilter(stringFields(req.query));
      const rows = await repo.listRecords(ctx.db, kind, u.merchant_id, f, repo.PAGE_SIZE + 1);
      const more = rows.length > repo.PAGE_SIZE;
      const shown = rows.slice(0, repo.PAGE_SIZE);
      const q = new URLSearchParams(Object.entries(filterQuery(f)).filter(([, v]) => v) as [string, string][]);
      return respond(reply, shell, u, { title, current: path }, html`${filterForm(path, f)}
<p><a href="${path}.csv?${q.toString()}" download>Export CSV</a> <span class="hint">(the filtered list, up to ${repo.CSV_MAX_ROWS.toLocaleString('en')} rows)</span></p>
${table(title, ['ID', 'Status', 'Game', 'Amount', 'merchant_tx_id', 'Partner', 'Created'], shown.map((r) => [
  html`<a href="${path}/${r.id}">#${r.id}</a>`, statusBadge(r.status), r.game, money(r.amount), r.merchant_tx_id, r.partner, when(r.created_at),
]), f.status || f.game || f.from || f.to || f.merchant_tx_id ? 'Nothing matches the filter.' : `No ${kind}s yet.`)}
${pager(path, filterQuery(f), more ? shown[shown.length - 1].id : undefined)}`);
    });

    app.get(`${path}.csv`, async (req, reply) => {
      const u = merchantUser(req);
      const f = { ...parseFilter(stringFields(req.query)), before: undefined };
      const rows = await repo.listRecords(ctx.db, kind, u.merchant_id, f, repo.CSV_MAX_ROWS);
      const body = csv(
        ['id', 'merchant_tx_id', 'status', 'fail_reason', 'game', 'amount_usd', 'partner', 'created_at', 'updated_at'],
        rows.map((r) => [r.id, r.merchant_tx_id, r.status, r.fail_reason, r.game, millsToUsd(r.amount), r.partner, new Date(r.created_at), new Date(r.updated_at)]),
      );
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${kind}s.csv"`).send(body);
    });

    app.get(`${path}/:id`, async (req, reply) => {
      const u = merchantUser(req);
      return respond(reply, shell, u, { title: `${kind === 'deposit' ? 'Deposit' : 'Purchase'} #${fieldOf(req.params, 'id')}`, current: path }, await detail(req, u.merchant_id, u.csrf, u.role !== 'viewer'));
    });

    app.post(`${path}/:id/sandbox/:action`, async (req, reply) => {
      const u = merchantUser(req, DEVELOP);
      checkCsrf(req);
      const recordId = intParam(fieldOf(req.params, 'id'));
      const action = fieldOf(req.params, 'action');
      if (!simulate || !recordId || !isSandboxAction(action)) throw notFound();
      const body = action === 'accept' ? { hold: req.form.hold === 'true' } : action === 'revert' ? { by: req.form.by === 'gateway' ? ('gateway' as const) : ('user' as const) } : {};
      await simulate(helperChange(kind, u.merchant_id, recordId, action, body));
      await accounts.audit(actorOf(req), 'sandbox_helper', u.merchant_id, { kind, id: recordId, action, ...body });
      return reply.redirect(`${path}/${recordId}?done=sandbox_done`, 303);
    });

    async function detail(req: FastifyRequest, merchantId: number, csrf: string, canAct: boolean): Promise<Html> {
      const id = intParam(fieldOf(req.params, 'id'));
      const rec = id ? (kind === 'deposit' ? await repo.findDeposit(ctx.db, merchantId, id) : await repo.findPurchase(ctx.db, merchantId, id)) : undefined;
      if (!rec || !id) throw notFound();
      const [history, events] = await Promise.all([
        repo.statusHistory(ctx.db, kind, id),
        repo.webhookEvents(ctx.db, merchantId, { kind, recordId: id, limit: 100 }),
      ]);
      const r = rec as Record<string, unknown> & { status: string; amount: number };
      const items = kind === 'deposit' ? await repo.depositItems(ctx.db, id) : [];
      // Only the helpers the record's status allows (the state machine decides, as for the API's 409).
      const helpers = SANDBOX_BUTTONS.filter((b) => transitionFrom(kind === 'deposit' ? DEPOSIT_MACHINE : PURCHASE_MACHINE, b.event as never, rec.status as never));
      const sandbox = simulate && canAct
        ? html`<section><h2>Sandbox test helpers</h2>${helpers.length
            ? html`<p class="hint">Drive the user's side of the trade offer, as the platform would.</p><div class="buttons">
${helpers.map((b) => actionButton(`/dashboard/${kind}s/${id}/sandbox/${b.action}`, b.label, csrf, { fields: b.fields, danger: b.action === 'revert' }))}
</div>`
            : html`<p class="hint">No test helper applies to a ${kind} in status ${rec.status}.</p>`}</section>`
        : '';
      return html`${facts([
  ['Status', statusBadge(r.status)],
  ['Fail reason', (r.fail_reason as string) ?? '—'],
  ['Amount', usd(r.amount)],
  ['merchant_tx_id', (r.merchant_tx_id as string) ?? '—'],
  ['Game', r.game as string],
  ['Partner', String(r.partner ?? '—')],
  [kind === 'deposit' ? 'Trade offer' : 'Item', kind === 'deposit' ? ((r.trade_offer_id as string) ?? '—') : `${(r.item_name as string) ?? '—'}`],
  ['Bot', (r.bot_name as string) ?? '—'],
  ['Hold ends', when(r.hold_end_date as Date | null) || '—'],
  ['Created', when(r.created_at as Date)],
  ['Updated', when(r.updated_at as Date)],
])}
${kind === 'deposit' ? html`<section><h2>Items</h2>${depositItemsWithBasis(items)}</section>` : ''}
<section><h2>Timeline</h2>
<ol class="timeline" id="timeline">${history.map((h) => html`<li><time datetime="${new Date(h.at).toISOString()}">${when(h.at)}</time> ${h.from_status ? html`${h.from_status} → ` : 'created as '}${statusBadge(h.to_status)}${h.fail_reason && ['failed', 'canceled', 'reverted'].includes(h.to_status) ? ` (${h.fail_reason})` : ''}</li>`)}</ol>
</section>
<section><h2>Webhooks</h2>${webhookEventsTable(events, csrf, canAct)}</section>
${sandbox}`;
    }
  }
}
