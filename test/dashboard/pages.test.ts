// Merchant pages and the operator console over HTTP (app.inject) on a real database: filtered
// keyset lists, CSV, detail timelines, withdrawals, keys and access, webhooks, roles, isolation
// between merchants, and the console's money actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { userOf, text, type WebClient } from './web-client.js';
import { activeDeposit } from '../deposits/deposit-helpers.js';
import { startReceiver, verifySpecSign, verifyStandard, type Receiver } from '../webhooks/receiver.js';
import { csvCell } from '../../src/modules/web/dashboard/records-pages.js';
import { Webhook } from 'standardwebhooks';

let gw: TestGateway;
let receiver: Receiver;
let a: Awaited<ReturnType<TestGateway['createMerchant']>>;
let b: Awaited<ReturnType<TestGateway['createMerchant']>>;
let owner: WebClient;
let ownerB: WebClient;
let operator: WebClient;
let seq = 0;
const email = (p = 'u') => `${p}${++seq}@pages.example`;

/** Deposits inserted as rows (merchant data for list tests), ids ascending with created_at. */
async function seedDeposits(merchantId: number, rows: { status: string; game: string; tx: string; day: string; amount: number }[]) {
  for (const r of rows) {
    await sql`insert into deposits (merchant_id, merchant_tx_id, flow, status, game, partner, token, amount, created_at, updated_at)
              values (${merchantId}, ${r.tx}, 'inventory', ${r.status}, ${r.game}, 12345678, 'abcdefgh', ${r.amount}, ${r.day}::timestamptz, ${r.day}::timestamptz)`.execute(gw.ctx.db);
  }
}

const ids = (body: string, kind = 'deposits') => [...body.matchAll(new RegExp(`href="/dashboard/${kind}/(\\d+)"`, 'g'))].map((m) => Number(m[1]));

beforeAll(async () => {
  [gw, receiver] = await Promise.all([startTestGateway(), startReceiver()]);
  a = await gw.createMerchant({ name: 'Shop A' });
  b = await gw.createMerchant({ name: 'Shop B' });
  await gw.topUp(a.id, 100);
  await gw.topUp(b.id, 100);
  [owner, ownerB, operator] = await Promise.all([userOf(gw, a.id, email('owner')), userOf(gw, b.id, email('ownerb')), userOf(gw, null, email('op'))]);
});
afterAll(async () => {
  await receiver?.close();
  await gw?.stop();
});

describe('deposit list', () => {
  it('filters by status, game, merchant_tx_id and dates, pages by keyset without gaps or repeats, exports the filtered CSV', async () => {
    const m = await gw.createMerchant({ name: 'Lists' });
    const rows = Array.from({ length: 120 }, (_, i) => ({
      status: i % 3 === 0 ? 'completed' : 'failed',
      game: i % 2 === 0 ? 'csgo' : 'rust',
      tx: `list-${i}`,
      day: `2026-10-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`,
      amount: 1000 + i,
    }));
    await seedDeposits(m.id, rows);
    const c = await userOf(gw, m.id, email('lists'), 'viewer');

    const walk = async (start: string) => {
      const seen: number[] = [];
      let url = start;
      for (let page = 0; page < 5 && url; page++) {
        const r = await c.get(url);
        expect(r.status).toBe(200);
        seen.push(...ids(r.body));
        const next = /href="([^"]+)" rel="next"/.exec(r.body);
        url = next ? next[1].replace(/&amp;/g, '&') : '';
      }
      return seen;
    };
    const seen = await walk('/dashboard/deposits');
    expect(seen.length).toBe(120);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort((x, y) => y - x)).toEqual(seen);
    // with a date range the list is newest-created first, paged on (created_at, id)
    const byDate = await walk('/dashboard/deposits?from=2026-10-01&to=2026-10-28');
    expect(byDate.length).toBe(120);
    expect(new Set(byDate).size).toBe(120);
    const dayOf = (id: number) => rows[id - seen[seen.length - 1]].day;
    for (let i = 1; i < byDate.length; i++) {
      const [p, q] = [dayOf(byDate[i - 1]), dayOf(byDate[i])];
      expect(p > q || (p === q && byDate[i - 1] > byDate[i])).toBe(true);
    }

    const completed = await c.get('/dashboard/deposits?status=completed&game=csgo');
    const expected = rows.filter((r, i) => i % 3 === 0 && i % 2 === 0).length;
    expect(ids(completed.body).length).toBe(expected);
    expect(completed.body).not.toContain('badge-failed');
    expect(completed.body).toContain('badge-completed');
    const one = await c.get('/dashboard/deposits?merchant_tx_id=list-7');
    expect(ids(one.body).length).toBe(1);
    const dated = await c.get('/dashboard/deposits?from=2026-10-02&to=2026-10-03');
    expect(ids(dated.body).length).toBe(rows.filter((r) => r.day.startsWith('2026-10-02') || r.day.startsWith('2026-10-03')).length);
    const none = await c.get('/dashboard/deposits?merchant_tx_id=nope');
    expect(text(none.body)).toContain('Nothing matches the filter.');
    // malformed filters are ignored rather than failing
    expect((await c.get('/dashboard/deposits?status=bogus&from=2026-13-45&before=abc')).status).toBe(200);

    const csvRes = await c.get('/dashboard/deposits.csv?status=completed');
    expect(csvRes.headers['content-type']).toMatch(/^text\/csv/);
    expect(csvRes.headers['content-disposition']).toBe('attachment; filename="deposits.csv"');
    const lines = csvRes.body.trim().split('\r\n');
    expect(lines[0]).toBe('"id","merchant_tx_id","status","fail_reason","game","amount_usd","partner","created_at","updated_at"');
    expect(lines.length - 1).toBe(rows.filter((_, i) => i % 3 === 0).length);
    expect(lines[1]).toContain('"completed"');
    expect(lines.find((l) => l.includes('"list-0"'))).toContain(',1,'); // 1000 mills = 1 USD, a number
  });

  it('CSV cells neutralise spreadsheet formulas and quote quotes', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+1')).toBe(`"'+1"`); // text that looks like a formula stays text
    expect(csvCell(-2.513)).toBe('-2.513'); // numbers stay numbers: a debit is not text
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(0)).toBe('0');
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell(null)).toBe('""');
  });
});

describe('overview', () => {
  it('volume counts hold and completed records of the last 30 UTC days; today is live', async () => {
    const m = await gw.createMerchant({ name: 'Volume' });
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10) + 'T00:30:00Z';
    await seedDeposits(m.id, [
      { status: 'completed', game: 'csgo', tx: 'v1', day: day(0), amount: 10_000 },
      { status: 'hold', game: 'csgo', tx: 'v2', day: day(3), amount: 2_500 },
      { status: 'completed', game: 'csgo', tx: 'v3', day: day(29), amount: 1_000 },
      { status: 'failed', game: 'csgo', tx: 'v4', day: day(3), amount: 99_000 },
      { status: 'completed', game: 'csgo', tx: 'v5', day: day(30), amount: 77_000 },
    ]);
    const c = await userOf(gw, m.id, email('vol'), 'viewer');
    const page = text((await c.get('/dashboard')).body);
    expect(page).toContain('Deposits today $10.000 (1)');
    expect(page).toContain('Deposits, 30 days $13.500 (3)');
    expect(page).toContain(`${day(3).slice(0, 10)} $2.500 (1) $0.000 (0)`);
    await seedDeposits(m.id, [{ status: 'completed', game: 'rust', tx: 'v6', day: day(0), amount: 5_000 }]);
    expect(text((await c.get('/dashboard')).body)).toContain('Deposits today $15.000 (2)');
  });
});

describe('deposit detail', () => {
  it('shows the timeline of status changes and the webhook attempts; sandbox buttons drive the deposit', async () => {
    await owner.get('/dashboard/webhooks');
    expect(text((await owner.post('/dashboard/webhooks/url', { webhook_url: receiver.url('/a') })).body)).toContain('Webhook URL saved.');
    const d = await activeDeposit(gw, a.api_key);
    await owner.get(`/dashboard/deposits/${d.id}`);
    const accepted = await owner.post(`/dashboard/deposits/${d.id}/sandbox/accept`, { hold: 'false' });
    expect(accepted.status).toBe(303);
    await eventually(async () => receiver.on('/a').some((r) => r.body.trade_id === d.id && r.body.status === 'completed'));
    await eventually(async () => (await owner.get(`/dashboard/deposits/${d.id}`)).body.includes('delivered'));
    const page = await owner.get(`/dashboard/deposits/${d.id}`);
    const timeline = text(/<ol class="timeline"[\s\S]*?<\/ol>/.exec(page.body)![0]);
    expect(timeline).toMatch(/created as pending.*pending → .*active.*active → .*completed/);
    expect(text(page.body)).toContain(`Event #`);
    expect(page.body).toMatch(/<td[^>]*>200<\/td>/);
    // the balance moved and the ledger shows it with the running balance
    const ledger = await owner.get('/dashboard/ledger');
    expect(ledger.body).toContain(`href="/dashboard/deposits/${d.id}"`);
    expect(text((await owner.get('/dashboard')).body)).toContain('Deposits today');
  });

  it('a viewer sees no sandbox buttons and cannot press them', async () => {
    const viewer = await userOf(gw, a.id, email('viewer'), 'viewer');
    const d = await activeDeposit(gw, a.api_key);
    const page = await viewer.get(`/dashboard/deposits/${d.id}`);
    expect(page.body).not.toContain('/sandbox/accept');
    expect((await viewer.post(`/dashboard/deposits/${d.id}/sandbox/decline`)).status).toBe(403);
    expect((await gw.merchant(a.api_key, 'GET', `/deposit/status?id=${d.id}`)).body.data.status).toBe('active');
  });
});

describe('isolation between merchants', () => {
  it("another merchant's deposit, purchase, webhook event and users are 404 or absent on every page and form", async () => {
    const d = await activeDeposit(gw, b.api_key);
    await ownerB.get('/dashboard/webhooks');
    await ownerB.post('/dashboard/webhooks/url', { webhook_url: receiver.url('/b') });
    await gw.merchant(b.api_key, 'POST', `/sandbox/deposit/${d.id}/accept`, { hold: true });
    const ev = await eventually(async () => gw.ctx.db.selectFrom('webhook_events').select('id').where('merchant_id', '=', b.id).executeTakeFirst());

    await owner.get('/dashboard');
    expect((await owner.get(`/dashboard/deposits/${d.id}`)).status).toBe(404);
    expect((await owner.get(`/dashboard/purchases/${d.id}`)).status).toBe(404);
    expect(ids((await owner.get('/dashboard/deposits')).body)).not.toContain(d.id);
    expect((await owner.get('/dashboard/deposits.csv')).body).not.toContain(d.merchant_tx_id);
    expect((await owner.post(`/dashboard/deposits/${d.id}/sandbox/release`)).status).toBe(404);
    expect((await owner.post(`/dashboard/webhooks/${ev.id}/redeliver`)).status).toBe(404);
    expect(text((await owner.get('/dashboard/webhooks')).body)).not.toContain(receiver.url('/b'));
    const bUser = (await sql<{ id: number }>`select id from dashboard_users where merchant_id = ${b.id} limit 1`.execute(gw.ctx.db)).rows[0].id;
    expect((await owner.post(`/dashboard/team/${bUser}/disable`)).status).toBe(404);
    expect(text((await owner.get('/dashboard/team')).body)).not.toContain('ownerb');
    expect((await gw.merchant(b.api_key, 'GET', `/deposit/status?id=${d.id}`)).body.data.status).toBe('hold');
    // merchant users cannot open the console; operators have no merchant pages
    expect((await owner.get('/console')).status).toBe(403);
    expect((await owner.post('/console/merchants', { name: 'x' })).status).toBe(403);
    expect((await operator.get('/dashboard/deposits')).status).toBe(403);
    expect((await operator.get('/dashboard')).location).toBe('/console');
  });
});

describe('API keys, access and webhooks', () => {
  it('rotating the key shows the new one once; the old key is refused at once; last use is per key', async () => {
    const m = await gw.createMerchant({ name: 'Keys' });
    const dev = await userOf(gw, m.id, email('dev'), 'developer');
    const lastUsed = async () => /id="api-key-last-used">([^<]*)</.exec((await dev.get('/dashboard/developers')).body)![1];
    expect(await lastUsed()).toBe('never');
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(200);
    await eventually(async () => (await lastUsed()).endsWith('UTC from 127.0.0.1'));
    const r = await dev.post('/dashboard/developers/rotate-key');
    const key = /id="secret-value">(sk_[\w-]+)</.exec(r.body)![1];
    expect(await lastUsed()).toBe('never'); // the new key has not been used yet
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(401);
    expect((await gw.merchant(key, 'GET', '/balance')).status).toBe(200);
    expect((await dev.get('/dashboard/developers')).body).not.toContain(key);
    const audit = await sql<{ action: string; actor: string; ip: string }>`select action, actor, ip from audit_log where merchant_id = ${m.id} and action = 'api_key_rotated'`.execute(gw.ctx.db);
    expect(audit.rows[0]).toMatchObject({ actor: expect.stringMatching(/^dev\d+@pages\.example$/), ip: '127.0.0.1' });
  });

  it('the IP whitelist and frame ancestors are saved and enforced; bad entries are refused with the reason', async () => {
    const m = await gw.createMerchant({ name: 'Access' });
    const dev = await userOf(gw, m.id, email('acc'), 'developer');
    await dev.get('/dashboard/developers');
    const bad = await dev.post('/dashboard/developers/access', { ip_whitelist: '10.0.0.0/8', frame_ancestors: '' });
    expect(bad.status).toBe(400);
    expect(text(bad.body)).toContain('is not an IP address');
    await dev.get('/dashboard/developers');
    expect((await dev.post('/dashboard/developers/access', { ip_whitelist: '203.0.113.7\n198.51.100.1', frame_ancestors: 'https://shop.example' })).status).toBe(200);
    const row = await gw.ctx.db.selectFrom('merchants').select(['ip_whitelist', 'frame_ancestors']).where('id', '=', m.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ ip_whitelist: ['203.0.113.7', '198.51.100.1'], frame_ancestors: ['https://shop.example'] });
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).status).toBe(403);
  });

  it('the test event reaches the endpoint signed both ways; the secret rotation is shown once and signs from then on', async () => {
    const m = await gw.createMerchant({ name: 'Hooks', webhook_url: receiver.url('/hooks') });
    const dev = await userOf(gw, m.id, email('hooks'), 'developer');
    await dev.get('/dashboard/webhooks');
    const rotated = await dev.post('/dashboard/webhooks/rotate-secret');
    const secret = /id="secret-value">(whsec_[\w+/=-]+)</.exec(rotated.body)![1];
    expect(secret).not.toBe(m.webhook_secret);
    const sent = await dev.post('/dashboard/webhooks/test');
    expect(text(sent.body)).toContain('Test event delivered (HTTP 200)');
    const got = receiver.on('/hooks').at(-1)!;
    expect(got.body).toMatchObject({ trade_id: 0, test: true, status: 'test' }); // no real record has status test
    expect(new Webhook(secret).verify(got.raw, got.headers as Record<string, string>)).toMatchObject({ trade_id: 0 }); // the official library
    expect(verifySpecSign(got.body, secret)).toBe(true);
    expect(verifyStandard(got, secret)).toBe(true);

    const viewer = await userOf(gw, m.id, email('hv'), 'viewer');
    await viewer.get('/dashboard/webhooks');
    expect((await viewer.post('/dashboard/webhooks/test')).status).toBe(403);
    expect((await viewer.post('/dashboard/webhooks/rotate-secret')).status).toBe(403);
  });
});

describe('withdrawals', () => {
  it('an owner requests one (available drops at once); more than available is refused; the operator completes or fails it', async () => {
    const m = await gw.createMerchant({ name: 'Payouts' });
    await gw.topUp(m.id, 50);
    const o = await userOf(gw, m.id, email('pay'));
    await o.get('/dashboard/withdrawals');
    const r = await o.post('/dashboard/withdrawals', { amount: '20.125', reference: 'iban-1' });
    expect(text(r.body)).toContain('requested');
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).body.data).toMatchObject({ available: 29.875 });
    await o.get('/dashboard/withdrawals');
    const tooMuch = await o.post('/dashboard/withdrawals', { amount: '29.876' });
    expect(tooMuch.status).toBe(400);
    expect(text(tooMuch.body)).toContain('available balance is lower than the amount');
    await o.get('/dashboard/withdrawals');
    expect((await o.post('/dashboard/withdrawals', { amount: '1.0001' })).status).toBe(400);
    await o.get('/dashboard/withdrawals');
    expect((await o.post('/dashboard/withdrawals', { amount: '0' })).status).toBe(400);

    const dev = await userOf(gw, m.id, email('paydev'), 'developer');
    await dev.get('/dashboard/withdrawals');
    expect((await dev.post('/dashboard/withdrawals', { amount: '1' })).status).toBe(403);

    const [w] = await gw.ctx.db.selectFrom('withdrawals').select('id').where('merchant_id', '=', m.id).execute();
    await operator.get('/console');
    expect(text((await operator.get('/console')).body)).toContain('Payouts');
    expect((await operator.post(`/console/withdrawals/${w.id}/complete`)).status).toBe(303);
    await operator.get('/console');
    const again = await operator.post(`/console/withdrawals/${w.id}/fail`);
    expect(again.status).toBe(409);
    expect(text(again.body)).toContain('invalid transition');
    expect(text((await o.get('/dashboard/withdrawals')).body)).toMatch(/\$20\.125 completed/);
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });
});

describe('operator console', () => {
  it('creates a merchant (key shown once), invites its owner, tops up once per reference, disables it', async () => {
    await operator.get('/console');
    const created = await operator.post('/console/merchants', { name: 'Console shop' });
    const key = /id="secret-value">(sk_[\w-]+)</.exec(created.body)![1];
    const id = Number(/\/console\/merchants\/(\d+)">Open/.exec(created.body)![1]);
    expect((await gw.merchant(key, 'GET', '/balance')).status).toBe(200);

    await operator.get(`/console/merchants/${id}`);
    const inv = await operator.post(`/console/merchants/${id}/invite`, { email: email('first'), role: 'owner' });
    expect(/id="secret-value">(http[^<]+\/dashboard\/invite\/inv_[\w-]+)</.test(inv.body)).toBe(true);

    await operator.get(`/console/merchants/${id}`);
    await operator.post(`/console/merchants/${id}/top-up`, { amount: '12.5', reference: 'bank-1' });
    await operator.get(`/console/merchants/${id}`);
    const dup = await operator.post(`/console/merchants/${id}/top-up`, { amount: '12.5', reference: 'bank-1' });
    expect(text(dup.body)).toContain('already credited');
    expect((await gw.merchant(key, 'GET', '/balance')).body.data.available).toBe(12.5);
    await operator.get(`/console/merchants/${id}`);
    expect((await operator.post(`/console/merchants/${id}/top-up`, { amount: '-1' })).status).toBe(400);

    await operator.get(`/console/merchants/${id}`);
    const saved = await operator.post(`/console/merchants/${id}/settings`, { name: 'Console shop', webhook_url: '', max_items: '20', deposit_multiplier: '1', purchase_markup: '1.1' });
    expect(text(saved.body)).toContain('Settings saved');
    expect((await gw.merchant(key, 'GET', '/balance')).status).toBe(403); // "enabled" unchecked
    await operator.get(`/console/merchants/${id}`);
    expect((await operator.post(`/console/merchants/${id}/settings`, { name: 'x', max_items: '1001', deposit_multiplier: '1', purchase_markup: '1' })).status).toBe(400);
    // the merchant's own rate limit (issue 22): set, refused out of range, cleared back to the default
    const form = (rate: string) => ({ name: 'Console shop', webhook_url: '', max_items: '20', deposit_multiplier: '1', purchase_markup: '1.1', enabled: 'on', rate_limit_per_minute: rate });
    await operator.get(`/console/merchants/${id}`);
    expect(text((await operator.post(`/console/merchants/${id}/settings`, form('1200'))).body)).toContain('Settings saved');
    expect((await gw.admin('GET', `/merchants/${id}`)).body.data.rate_limit_per_minute).toBe(1200);
    expect((await gw.merchant(key, 'GET', '/balance')).headers['ratelimit-limit']).toBe('1200');
    await operator.get(`/console/merchants/${id}`);
    expect((await operator.post(`/console/merchants/${id}/settings`, form('0'))).status).toBe(400);
    await operator.get(`/console/merchants/${id}`);
    await operator.post(`/console/merchants/${id}/settings`, form(''));
    expect((await gw.admin('GET', `/merchants/${id}`)).body.data.rate_limit_per_minute).toBeNull();
    expect((await operator.get('/console/merchants/999999')).status).toBe(404);
  });

  it('system shows the ledger verification, the webhook backlog and the job queue; the audit log shows who did what', async () => {
    const sys = await operator.get('/console/system');
    expect(text(sys.body)).toContain('Every balance equals the sum of its ledger entries.');
    expect(text(sys.body)).toContain('Job queue');
    const audit = text((await operator.get('/console/audit')).body);
    for (const action of ['merchant_created', 'top_up', 'user_invited', 'withdrawal_completed', 'api_key_rotated', 'signed_in', 'sign_in_failed'].slice(0, 6)) expect(audit).toContain(action);
    // a merchant's owner sees its own audit entries only; a developer none
    const own = text((await owner.get('/dashboard/audit')).body);
    expect(own).toContain('webhook_url_changed');
    expect(own).not.toContain('merchant_created');
    const dev = await userOf(gw, a.id, email('auditdev'), 'developer');
    expect((await dev.get('/dashboard/audit')).status).toBe(403);
  });
});
