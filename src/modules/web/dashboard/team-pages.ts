// Team (users of the merchant; owners invite and disable) and the audit log (owners).
import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../deps.js';
import type { AccountsService, InviteLink, InviteSent } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf } from '../sign-in/web-session.js';
import type { Role } from '../../accounts/accounts-types.js';
import type { AuditRow } from '../../accounts/accounts-types.js';
import { actionButton, csrfField, html, pager, table, when, shownOnce, type Html } from '../kit/html.js';
import { intParam, merchantUser, OWNER, respond, type MerchantUser, type ShellOf } from '../kit/view.js';
import * as repo from './dashboard-repo.js';
import { fieldOf } from '../../../http/typed-routes.js';

export function auditTable(rows: AuditRow[], withMerchant = false): Html {
  return table('Audit log', ['When', ...(withMerchant ? ['Merchant'] : []), 'Who', 'Action', 'Details', 'Address'], rows.map((a) => [
    when(a.at), ...(withMerchant ? [a.merchant_id ? html`<a href="/console/merchants/${a.merchant_id}">#${a.merchant_id}</a>` : '—'] : []), a.actor, a.action,
    auditDetail(a.detail), a.ip,
  ]), 'Nothing recorded yet.');
}

const DETAIL_LABELS: Record<string, string> = { merchant_id: 'merchant', top_up_id: 'top-up', withdrawal_id: 'withdrawal', bot_id: 'bot', run_id: 'run', webhook_url: 'webhook URL', max_items: 'max items per deposit' };

function detailValue(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) return v.length ? v.map(detailValue).join(', ') : '—';
  if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${detailValue(x)}`).join('; ');
  return String(v);
}

/** An audit entry's details as label → value lines (not raw JSON). */
export function auditDetail(detail: Record<string, unknown> | null | undefined): Html | string {
  const entries = Object.entries(detail ?? {});
  if (entries.length === 0) return '—';
  return html`<dl class="audit">${entries.map(([k, v]) => html`<dt>${DETAIL_LABELS[k] ?? k.replace(/_/g, ' ')}</dt><dd>${detailValue(v)}</dd>`)}</dl>`;
}

/** A user's row actions for whoever manages them: disable / enable, and a password reset link for an active user. */
export function userActions(base: string, x: { id: number; disabled: boolean; password_hash: string | null }, by: { id: number; csrf: string }): Html | string {
  if (x.id === by.id) return '';
  return html`<div class="buttons">${actionButton(`${base}/${x.disabled ? 'enable' : 'disable'}`, x.disabled ? 'Enable' : 'Disable', by.csrf, { danger: !x.disabled })}${!x.disabled && x.password_hash ? actionButton(`${base}/password-reset`, 'Password reset link', by.csrf) : ''}</div>`;
}

/** What a page says of a link e-mailed by the mail job (SMTP configured): where it went, never the link. */
const mailSent = (text: string) => html`<p class="flash flash-ok" role="status" id="mail-sent">${text}</p>`;

/** A password reset link just issued: e-mailed to the user, or (no SMTP) shown once to hand over. */
export function resetShown(r: { email: string; sent_to: string } | { email: string; url: string; expires_at: string }): Html {
  if ('sent_to' in r) return mailSent(`A password reset link was sent to ${r.sent_to}. It works once, for 24 hours.`);
  return shownOnce(`Password reset link for ${r.email}, valid once until ${when(r.expires_at)} — give it to the user`, r.url);
}

/** An invitation just created: e-mailed, or (no SMTP) its link shown once. */
export function inviteShown(inv: InviteLink | InviteSent): Html {
  const who = inv.role === 'operator' ? inv.email : `${inv.email} (${inv.role})`;
  if ('sent_to' in inv) return mailSent(`An invitation was sent to ${who}. Its link works once, for 7 days.`);
  return shownOnce(`Invitation link for ${who}, valid until ${when(inv.expires_at)}`, inv.url);
}

export function inviteForm(action: string, csrf: string, roles: readonly Role[]): Html {
  return html`<form method="post" action="${action}" class="card narrow">${csrfField(csrf)}
<label for="invite-email">E-mail address</label><input id="invite-email" name="email" type="email" required>
${roles.length > 1 ? html`<label for="invite-role">Role</label><select id="invite-role" name="role">${roles.map((r) => html`<option value="${r}">${r}</option>`)}</select>` : html`<input type="hidden" name="role" value="${roles[0]}">`}
<button type="submit" id="invite">Invite</button></form>`;
}

export function teamPages(app: FastifyInstance, ctx: WebDeps, shell: ShellOf, accounts: AccountsService): void {
  async function teamPage(u: MerchantUser, extra?: Html) {
    const [users, requireTotp] = await Promise.all([accounts.listUsers(u.merchant_id), accounts.teamRequiresTotp(u.merchant_id)]);
    const owner = u.role === 'owner';
    return html`${extra ?? ''}<p>Owners manage the team, withdrawals and see the audit log; developers manage keys, webhooks and access; viewers read.</p>
${table('Users', ['E-mail', 'Role', 'State', 'Authenticator', ...(owner ? ['Actions'] : [])], users.map((x) => [
  x.email, x.role, x.disabled ? 'disabled' : x.password_hash ? 'active' : 'invited', x.totp_enabled ? 'on' : requireTotp ? 'off (set up at next sign-in)' : 'off',
  ...(owner ? [userActions(`/dashboard/team/${x.id}`, x, u)] : []),
]))}
<section><h2>Two-step sign-in for the team</h2>
<p id="team-totp">${requireTotp ? 'Required: everyone signs in with an authenticator; who has none sets one up at the next sign-in.' : 'Optional: each user decides.'}</p>
${owner ? actionButton('/dashboard/team/require-totp', requireTotp ? 'Make it optional' : 'Require an authenticator of everyone', u.csrf, { fields: { required: requireTotp ? 'false' : 'true' }, danger: requireTotp }) : ''}</section>
${owner ? html`<h2>Invite someone</h2>${inviteForm('/dashboard/team/invite', u.csrf, ['viewer', 'developer', 'owner'])}` : ''}`;
  }

  app.get('/dashboard/team', async (req, reply) => {
    const u = merchantUser(req);
    return respond(reply, shell, u, { title: 'Team', current: '/dashboard/team' }, await teamPage(u));
  });

  app.post('/dashboard/team/invite', async (req, reply) => {
    const u = merchantUser(req, OWNER);
    checkCsrf(req);
    const inv = await accounts.invite({ merchantId: u.merchant_id, email: req.form.email ?? '', role: (req.form.role ?? '') as Role }, actorOf(req), { hideOtherAccounts: true, byMail: true });
    return respond(reply, shell, u, { title: 'Team', current: '/dashboard/team' }, await teamPage(u, inviteShown(inv)));
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/dashboard/team/:id/${action}`, async (req, reply) => {
      const u = merchantUser(req, OWNER);
      checkCsrf(req);
      await accounts.setUserDisabled(u.merchant_id, intParam(fieldOf(req.params, 'id')) ?? 0, action === 'disable', actorOf(req));
      return reply.redirect(`/dashboard/team?done=user_${action}d`, 303);
    });
  }

  app.post('/dashboard/team/:id/password-reset', async (req, reply) => {
    const u = merchantUser(req, OWNER);
    checkCsrf(req);
    const r = await accounts.issuePasswordReset(u.merchant_id, intParam(fieldOf(req.params, 'id')) ?? 0, actorOf(req));
    return respond(reply, shell, u, { title: 'Team', current: '/dashboard/team' }, await teamPage(u, resetShown(r)));
  });

  app.post('/dashboard/team/require-totp', async (req, reply) => {
    const u = merchantUser(req, OWNER);
    checkCsrf(req);
    const required = req.form.required === 'true';
    await accounts.setTeamRequiresTotp(u, required, actorOf(req));
    return respond(reply, shell, u, { title: 'Team', current: '/dashboard/team', flash: { kind: 'ok', text: required ? 'An authenticator is now required of everyone on the team.' : 'An authenticator is now optional for the team.' } }, await teamPage(u));
  });

  app.get('/dashboard/audit', async (req, reply) => {
    const u = merchantUser(req, OWNER);
    const rows = await accounts.listAudit({ merchantId: u.merchant_id, before: intParam(fieldOf(req.query, 'before')), limit: repo.PAGE_SIZE + 1 });
    const more = rows.length > repo.PAGE_SIZE;
    const shown = rows.slice(0, repo.PAGE_SIZE);
    return respond(reply, shell, u, { title: 'Audit log', current: '/dashboard/audit' }, html`${auditTable(shown)}${pager('/dashboard/audit', {}, more ? shown[shown.length - 1].id : undefined)}`);
  });
}
