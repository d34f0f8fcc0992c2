// The console's bots page over HTTP (app.inject) on a real database: it lists the sandbox bots with
// their state, disable / enable go through the bot service, are CSRF-protected and audited, and
// merchant users cannot reach the page or its forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, text, type WebClient } from './web-client.js';

let gw: TestGateway;
let operator: WebClient;
let owner: WebClient;
let botId: number;

beforeAll(async () => {
  gw = await startTestGateway({ BOT_SECRETS_KEY: crypto.randomBytes(32).toString('base64'), SANDBOX_CATALOGUE_SIZE: '0' }, { worker: false });
  const m = await gw.createMerchant({ name: 'Bot page shop' });
  [operator, owner] = await Promise.all([userOf(gw, null, 'op@bots.example'), userOf(gw, m.id, 'owner@bots.example')]);
  botId = (await gw.ctx.bots.listForConsole(1, 0))[0].id;
});
afterAll(async () => {
  await gw?.stop();
});

const botRow = () => gw.ctx.db.selectFrom('bots').select(['enabled', 'trade_state']).where('id', '=', botId).executeTakeFirstOrThrow();

const rowOf = (body: string, id: number) => {
  const row = [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => r[1]).find((r) => r.includes(`/console/bots/${id}/`));
  if (!row) throw new Error(`no row for bot ${id}`);
  return text(row);
};

describe('console bots page', () => {
  it('lists the sandbox bots with platform id, games, state, rotation, lease, last check and capacity, linked from the navigation', async () => {
    const r = await operator.get('/console/bots');
    expect(r.status).toBe(200);
    expect(r.body).toContain('href="/console/bots"');
    expect((await operator.get('/console')).body).toContain('href="/console/bots"');
    const row = rowOf(r.body, botId);
    expect(row).toContain('Sandbox Bot Alpha');
    expect(row).toContain('76561199000000101');
    expect(row).toContain('csgo');
    expect(row).toContain('active');
    expect(row).toContain('in rotation');
    expect(row).toContain('never'); // never checked
    expect(row).toContain('1000'); // default inventory capacity
    expect(row).toContain('Disable');
  });

  it('disables and enables a bot through the service, audited; enabling clears cannot_trade', async () => {
    await operator.get('/console/bots');
    const off = await operator.post(`/console/bots/${botId}/disable`);
    expect(off.status).toBe(303);
    expect(off.location).toBe('/console/bots?done=bot_disabled');
    expect((await botRow()).enabled).toBe(false);
    let row = rowOf((await operator.get('/console/bots')).body, botId);
    expect(row).toContain('disabled');
    expect(row).toContain('out: disabled by an operator');
    expect(row).toContain('Enable');

    await sql`update bots set trade_state = 'cannot_trade', trade_state_reason = 'trade hold' where id = ${botId}`.execute(gw.ctx.db);
    await operator.get('/console/bots');
    expect((await operator.post(`/console/bots/${botId}/enable`)).status).toBe(303);
    const b = await botRow();
    expect(b.enabled).toBe(true);
    expect(b.trade_state).toBe('ok');
    row = rowOf((await operator.get('/console/bots')).body, botId);
    expect(row).toContain('in rotation');

    const audit = await sql<{ action: string; actor: string; detail: { bot_id: number } }>`
      select action, actor, detail from audit_log where action like 'bot_%' order by id`.execute(gw.ctx.db);
    expect(audit.rows.map((a) => a.action)).toEqual(['bot_disabled', 'bot_enabled']);
    expect(audit.rows.every((a) => a.detail.bot_id === botId && a.actor.includes('op@bots.example'))).toBe(true);
    expect(text((await operator.get('/console/audit')).body)).toContain('bot_enabled');
  });

  it('shows why a bot cannot trade', async () => {
    const other = (await gw.ctx.bots.listForConsole(2, 0))[1].id;
    await sql`update bots set trade_state = 'cannot_trade', trade_state_reason = 'trade ban' where id = ${other}`.execute(gw.ctx.db);
    expect(rowOf((await operator.get('/console/bots')).body, other)).toContain('out: cannot trade (trade ban)');
    await sql`update bots set trade_state = 'ok', trade_state_reason = null where id = ${other}`.execute(gw.ctx.db);
  });

  it('refuses a post without a valid CSRF token and answers 404 for a missing bot', async () => {
    await operator.get('/console/bots');
    const forged = await operator.post(`/console/bots/${botId}/disable`, { _csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect((await botRow()).enabled).toBe(true);
    await operator.get('/console/bots');
    expect((await operator.post('/console/bots/999999/disable')).status).toBe(404);
  });

  it('lists an operator-managed bot beside the sandbox ones; the admin API still lists managed bots only', async () => {
    const secret20 = () => crypto.randomBytes(20).toString('base64');
    const added = await gw.admin('POST', '/bots', { account_name: 'console_bot', password: 'pw-secret', shared_secret: secret20(), identity_secret: secret20(), platform_id: '76561198000000777', games: ['rust'], inventory_capacity: 250 });
    expect(added.status).toBe(201);
    const row = rowOf((await operator.get('/console/bots')).body, added.body.data.id);
    expect(row).toContain('76561198000000777');
    expect(row).toContain('rust');
    expect(row).toContain('250');
    expect(row).not.toContain('pw-secret');
    const api = await gw.admin('GET', '/bots');
    expect(api.body.data.map((b: { id: number }) => b.id)).toEqual([added.body.data.id]);
    expect(rowOf((await operator.get('/console/bots')).body, botId)).toContain('Sandbox Bot Alpha');
  });

  it('is out of reach of merchant users', async () => {
    expect((await owner.get('/console/bots')).status).toBe(403);
    await owner.get('/dashboard');
    expect((await owner.post(`/console/bots/${botId}/disable`)).status).toBe(403);
    expect((await botRow()).enabled).toBe(true);
    const anonymous = await gw.app.inject({ method: 'GET', url: '/console/bots' });
    expect([303, 302]).toContain(anonymous.statusCode);
  });
});
