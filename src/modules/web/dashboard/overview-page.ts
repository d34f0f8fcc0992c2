// Overview: balance, today's and the last 30 days' volume (a uPlot chart + the same numbers as a
// table), and the latest deposits and purchases.
import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../deps.js';
import { html, money, statusBadge, table, usd, when, facts } from '../kit/html.js';
import * as repo from './dashboard-repo.js';
import { merchantUser, respond, type ShellOf } from '../kit/view.js';
import { createVolumeReader } from './volume.js';

export function overviewPage(app: FastifyInstance, ctx: WebDeps, shell: ShellOf): void {
  const volumeOf = createVolumeReader(ctx.db, ctx.clock);
  app.get('/dashboard', async (req, reply) => {
    if (req.user?.role === 'operator') return reply.redirect('/console', 303);
    const u = merchantUser(req);
    const [b, { days, rows: volume }, deposits, purchases] = await Promise.all([
      repo.balance(ctx.db, u.merchant_id),
      volumeOf(u.merchant_id),
      repo.listRecords(ctx.db, 'deposit', u.merchant_id, {}, 8),
      repo.listRecords(ctx.db, 'purchase', u.merchant_id, {}, 8),
    ]);
    const byDay = (kind: repo.RecordKind) => days.map((d) => volume.find((v) => v.kind === kind && v.day === d) ?? { n: 0, amount: 0 });
    const dep = byDay('deposit');
    const pur = byDay('purchase');
    const today = days[days.length - 1];
    const sum = (xs: { n: number; amount: number }[]) => xs.reduce((a, x) => ({ n: a.n + x.n, amount: a.amount + x.amount }), { n: 0, amount: 0 });
    const chart = {
      days: days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
      deposits: dep.map((x) => x.amount / 1000),
      purchases: pur.map((x) => x.amount / 1000),
    };
    const available = b?.available ?? 0;
    const hold = b?.hold ?? 0;
    const activity = [
      ...deposits.map((d) => ({ kind: 'deposit' as const, ...d })),
      ...purchases.map((p) => ({ kind: 'purchase' as const, ...p })),
    ]
      .sort((a, z) => new Date(z.updated_at).getTime() - new Date(a.updated_at).getTime())
      .slice(0, 10);
    return respond(
      reply, shell, u,
      { title: 'Overview', current: '/dashboard', scripts: ['uPlot.iife.min.js', 'dashboard.js'] },
      html`<section aria-labelledby="bal"><h2 id="bal">Balance</h2>
<div class="cards">
  <div class="card stat"><span>Available</span><strong id="balance-available">${usd(available)}</strong></div>
  <div class="card stat"><span>On hold</span><strong id="balance-hold">${usd(hold)}</strong></div>
  <div class="card stat"><span>Total</span><strong id="balance-total">${usd(available + hold)}</strong></div>
</div></section>
<section aria-labelledby="vol"><h2 id="vol">Volume</h2>
${facts([
  ['Deposits today', `${usd(dep[dep.length - 1].amount)} (${dep[dep.length - 1].n})`],
  ['Purchases today', `${usd(pur[pur.length - 1].amount)} (${pur[pur.length - 1].n})`],
  ['Deposits, 30 days', `${usd(sum(dep).amount)} (${sum(dep).n})`],
  ['Purchases, 30 days', `${usd(sum(pur).amount)} (${sum(pur).n})`],
])}
<link rel="stylesheet" href="/dashboard/assets/uPlot.min.css">
<div id="volume-chart" class="chart" role="img" aria-label="Deposit and purchase volume per day, last 30 days (USD); the same numbers are in the table below" data-chart="${JSON.stringify(chart)}"></div>
<details><summary>Volume per day (table)</summary>
${table('Volume per day, USD (deposits and purchases in hold or completed), UTC days up to ' + today, ['Day', 'Deposits', 'Purchases'], days.map((d, i) => [d, money(dep[i].amount, ` (${dep[i].n})`), money(pur[i].amount, ` (${pur[i].n})`)]).reverse())}
</details></section>
<section aria-labelledby="act"><h2 id="act">Recent activity</h2>
${table('Latest deposits and purchases', ['What', 'Status', 'Amount', 'merchant_tx_id', 'Updated'], activity.map((r) => [
  html`<a href="/dashboard/${r.kind}s/${r.id}">${r.kind} #${r.id}</a>`, statusBadge(r.status), money(r.amount), r.merchant_tx_id, when(r.updated_at),
]), 'No deposits or purchases yet.')}
</section>`,
    );
  });
}
