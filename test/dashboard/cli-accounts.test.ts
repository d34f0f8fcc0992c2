// `gateway merchant invite`, `gateway operator create` and `gateway audit` against the database
// of a running gateway: the printed link works once in the gateway.
import { describe, expect, it } from 'vitest';
import { WebClient } from './web-client.js';
import { CLI_TEST_TIMEOUT_MS, cliGateway } from '../cli-run.js';

const env = cliGateway({ PUBLIC_URL: 'https://pay.example' });

describe('gateway CLI accounts', () => {
  it('invites a merchant user and an operator; the links set a password once; the audit log names the CLI', async () => {
    const { gw, cli } = env;
    const m = await gw.createMerchant({ name: 'CLI invites' });
    const inv = await cli('merchant', 'invite', String(m.id), '--email', 'owner@cli.example');
    expect(inv.code, inv.err).toBe(0);
    const data = JSON.parse(inv.out);
    expect(data).toMatchObject({ email: 'owner@cli.example', role: 'owner', merchant_id: m.id });
    expect(data.url).toMatch(/^https:\/\/pay\.example\/dashboard\/invite\/inv_[\w-]{43}$/);

    const op = await cli('operator', 'create', '--email', 'ops@cli.example');
    expect(op.code, op.err).toBe(0);
    expect(JSON.parse(op.out)).toMatchObject({ role: 'operator', merchant_id: null });

    const c = new WebClient(gw);
    const path = new URL(data.url).pathname;
    await c.get(path);
    expect((await c.post(path, { password: 'a long password', password2: 'a long password' })).status).toBe(200);
    expect((await c.signIn('owner@cli.example', 'a long password')).location).toBe('/dashboard');

    const bad = await cli('merchant', 'invite', String(m.id), '--email', 'x@cli.example', '--role', 'admin');
    expect(bad.code).not.toBe(0);

    const audit = await cli('audit', '--merchant', String(m.id));
    expect(audit.code, audit.err).toBe(0);
    const rows = JSON.parse(audit.out);
    expect(rows.find((r: any) => r.action === 'user_invited')).toMatchObject({ actor: 'cli' });
    expect(rows.find((r: any) => r.action === 'signed_in')).toMatchObject({ actor: 'owner@cli.example' });
  }, CLI_TEST_TIMEOUT_MS);
});
