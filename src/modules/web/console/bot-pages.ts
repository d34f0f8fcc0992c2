// The console's bots page: every bot with its state, lease and capacity, and
// disable / enable through the bot service (enabling also clears a cannot_trade state, as the
// admin API does). In sandbox mode it lists the seeded sandbox bots.
import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../deps.js';
import type { AccountsService } from '../../accounts/accounts-service.js';
import { actorOf, checkCsrf, requireRole } from '../sign-in/web-session.js';
import { actionButton, html, page, statusBadge, table, when, doneFlash } from '../kit/html.js';
import { intParam } from '../kit/view.js';
import { CONSOLE_NAV } from '../kit/nav.js';
import type { botView } from '../../bots/bot-service.js';
import { fieldOf } from '../../../http/typed-routes.js';

type Bot = ReturnType<typeof botView>;

/** Why a bot is in or out of rotation, in words. */
function rotation(b: Bot): string {
  if (b.rotation === 'in') return 'in rotation';
  return `${b.rotation}: ${b.rotation_reason}`;
}

export function botPages(app: FastifyInstance, ctx: WebDeps, accounts: AccountsService): void {
  app.get('/console/bots', async (req, reply) => {
    const u = requireRole(req, ['operator']);
    const bots = await ctx.bots.listForConsole(100, 0);
    const body = html`<p class="hint">Platform: ${ctx.platform.kind}. Disabling takes a bot out of rotation; enabling puts it back and clears a “cannot trade” state.</p>
${table('Bots', ['ID', 'Name', 'Platform ID', 'Games', 'State', 'Rotation', 'Lease holder', 'Last check', 'Capacity', ''], bots.map((b) => [
  b.id, b.name, b.platform_id, b.games.join(', '), statusBadge(b.status), rotation(b), b.lease_owner ?? '—', b.last_checked_at ? when(b.last_checked_at) : 'never', b.inventory_capacity,
  b.status === 'removed' ? '' : actionButton(`/console/bots/${b.id}/${b.enabled ? 'disable' : 'enable'}`, b.enabled ? 'Disable' : 'Enable', u.csrf, { danger: b.enabled }),
]), 'No bots.')}`;
    return reply.type('text/html').send(page({ title: 'Bots', nav: CONSOLE_NAV, current: '/console/bots', user: { email: u.email, role: u.role, csrf: u.csrf }, flash: doneFlash(req.query), home: '/console' }, body));
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/console/bots/:id/${action}`, async (req, reply) => {
      requireRole(req, ['operator']);
      checkCsrf(req);
      const b = await ctx.bots.setEnabled(intParam(fieldOf(req.params, 'id')) ?? 0, action === 'enable'); // 404 when missing
      await accounts.audit(actorOf(req), `bot_${action}d`, null, { bot_id: b.id, name: b.name });
      return reply.redirect(`/console/bots?done=bot_${action}d`, 303);
    });
  }
}
