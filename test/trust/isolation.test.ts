// Isolation matrix (issue 9): merchant B calls every merchant read and write endpoint with merchant
// A's ids and merchant_tx_ids and gets the spec's not-found answer, and nothing of A changes; the
// operator API refuses merchant keys and the merchant API refuses the admin token, on every route.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers.js';
import { activeDeposit, inventory, nextPartner, TOKEN } from '../deposits/deposit-helpers.js';

let gw: TestGateway;
let A: { id: number; api_key: string };
let B: { id: number; api_key: string };
const own: {
  deposit: { id: number; merchant_tx_id: string };
  purchase: { id: number; merchant_tx_id: string };
  draft: { id: number; names: string[] };
  intent: { id: number; merchant_tx_id: string; token: string };
  snapshot: { partner: number; assetIds: string[] };
  event: { id: string };
  declinedDeposit: number;
} = {} as never;

const USER = { partner: 12345678, token: 'abcdEFGH' };

beforeAll(async () => {
  // No job worker: A's records stay exactly where the setup left them, so any change is B's doing.
  gw = await startTestGateway({}, { worker: false });
  // A webhook URL (nothing listens; no worker sends anyway): A's status changes leave events.
  A = await gw.createMerchant({ name: 'Merchant A', deposit_preview_enabled: true, webhook_url: 'http://127.0.0.1:9/hook' });
  B = await gw.createMerchant({ name: 'Merchant B', deposit_preview_enabled: true });
  await gw.topUp(A.id, 10_000);
  await gw.topUp(B.id, 10_000);

  const d = await activeDeposit(gw, A.api_key);
  own.deposit = { id: d.id, merchant_tx_id: d.merchant_tx_id };

  const listings = (await gw.merchant(A.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as { id: string }[];
  const p = await gw.merchant(A.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: listings[0]!.id, merchant_tx_id: 'iso-purchase-a' });
  expect(p.status, JSON.stringify(p.body)).toBe(200);
  own.purchase = { id: p.body.data.id, merchant_tx_id: 'iso-purchase-a' };

  const names = [...gw.ctx.pricing.namesFor('csgo')].slice(0, 2);
  const q = await gw.merchant(A.api_key, 'POST', '/get-prices', { game: 'csgo', marketHashNames: names });
  expect(q.status).toBe(200);
  own.draft = { id: q.body.data.id, names };

  const i = await gw.merchant(A.api_key, 'POST', '/create-intent', { merchant_tx_id: 'iso-intent-a' });
  expect(i.status).toBe(200);
  own.intent = { id: i.body.data.id, merchant_tx_id: 'iso-intent-a', token: new URL(i.body.data.url).pathname.split('/').pop()! };

  // a canceled deposit of A: its webhook event
  const declined = await activeDeposit(gw, A.api_key);
  expect((await gw.merchant(A.api_key, 'POST', `/sandbox/deposit/${declined.id}/decline`, {})).status).toBe(200);
  const events = await gw.merchant(A.api_key, 'GET', '/events');
  own.event = { id: events.body.data.events[0].id };
  own.declinedDeposit = declined.id;

  const partner = nextPartner();
  const inv = await inventory(gw, A.api_key, partner);
  own.snapshot = { partner, assetIds: inv.items.slice(0, 2).map((x) => x.id) };
}, 60_000);
afterAll(async () => gw?.stop());

/** Everything of merchant A a foreign call could touch. */
async function stateOfA() {
  const db = gw.ctx.db;
  return {
    deposits: await db.selectFrom('deposits').selectAll().where('merchant_id', '=', A.id).orderBy('id').execute(),
    purchases: await db.selectFrom('purchases').selectAll().where('merchant_id', '=', A.id).orderBy('id').execute(),
    balance: await db.selectFrom('balances').selectAll().where('merchant_id', '=', A.id).execute(),
    ledger: await db.selectFrom('ledger_entries').selectAll().where('merchant_id', '=', A.id).orderBy('id').execute(),
    merchant: await db.selectFrom('merchants').selectAll().where('id', '=', A.id).execute(),
    webhooks: (await sql<{ n: number }>`select count(*)::int as n from webhook_events where merchant_id = ${A.id}`.execute(db)).rows[0]!.n,
  };
}

const NOT_FOUND = { success: false, message: 'not found error' };

describe("merchant B with merchant A's ids", () => {
  it('every read and write answers 404 not found error, and nothing of A changes', async () => {
    const before = await stateOfA();
    const { deposit, purchase, draft, intent } = own;
    const calls: [string, string, unknown?][] = [
      ['GET', `/deposit/status?id=${deposit.id}`],
      ['GET', `/deposit/status?merchant_tx_id=${deposit.merchant_tx_id}`],
      ['GET', `/deposit/status?id=${deposit.id}&merchant_tx_id=${deposit.merchant_tx_id}`],
      ['GET', `/deposit/status?id=${draft.id}`],
      ['GET', `/deposit/status?id=${intent.id}`],
      ['GET', `/deposit/status?merchant_tx_id=${intent.merchant_tx_id}`],
      ['GET', `/purchase/status?id=${purchase.id}`],
      ['GET', `/purchase/status?merchant_tx_id=${purchase.merchant_tx_id}`],
      ['GET', `/purchase/status?id=${purchase.id}&merchant_tx_id=${purchase.merchant_tx_id}`],
      ['GET', `/events/${own.event.id}`],
      ['GET', `/events/${own.event.id.slice('evt_'.length)}`],
      ...['accept', 'decline', 'expire', 'release', 'revert', 'cancel'].flatMap((action): [string, string, unknown?][] => [
        ['POST', `/sandbox/deposit/${deposit.id}/${action}`, action === 'revert' ? { by: 'user' } : {}],
        ['POST', `/sandbox/deposit/${intent.id}/${action}`, {}],
        ['POST', `/sandbox/purchase/${purchase.id}/${action}`, action === 'revert' ? { by: 'user' } : {}],
      ]),
      [
        'POST',
        '/create-deposit-by-hash-name',
        { id: draft.id, merchant_tx_id: 'iso-b-commit', game: 'csgo', partner: nextPartner(), token: TOKEN, items: draft.names.map((name, k) => ({ asset_id: String(30000000000 + k), name })) },
      ],
    ];
    for (const [method, path, body] of calls) {
      const res = await gw.merchant(B.api_key, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toEqual(NOT_FOUND);
    }
    expect(await stateOfA()).toEqual(before);
    // B's own books did not move either
    expect((await gw.merchant(B.api_key, 'GET', '/balance')).body.data).toEqual({ total: 10_000, hold: 0, available: 10_000 });
  });

  it('every merchant route that names a record by path is in the matrix above', async () => {
    // A new route with an {id} in its path must be added to the matrix (the fuzz suite picks it up by itself).
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    const byId = Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/merchant/') && p.includes('{id}'));
    expect(byId.sort()).toEqual(['/api/v1/merchant/events/{id}', '/api/v1/merchant/sandbox/deposit/{id}/{action}', '/api/v1/merchant/sandbox/purchase/{id}/{action}']);
  });

  it("B's event list shows none of A's events, even filtered by A's records", async () => {
    for (const q of ['', `?deposit_id=${own.declinedDeposit}`, `?purchase_id=${own.purchase.id}`, '?type=deposit']) {
      const res = await gw.merchant(B.api_key, 'GET', `/events${q}`);
      expect(res.status).toBe(200);
      expect(res.body.data.events, q).toEqual([]);
    }
    const mine = await gw.merchant(A.api_key, 'GET', `/events?deposit_id=${own.declinedDeposit}`);
    expect(mine.body.data.events.length).toBeGreaterThan(0);
  });

  it("the same calls with A's key succeed (the matrix is not 404 for everyone)", async () => {
    expect((await gw.merchant(A.api_key, 'GET', `/events/${own.event.id}`)).status).toBe(200);
    expect((await gw.merchant(A.api_key, 'GET', `/deposit/status?id=${own.deposit.id}`)).status).toBe(200);
    expect((await gw.merchant(A.api_key, 'GET', `/deposit/status?merchant_tx_id=${own.intent.merchant_tx_id}`)).status).toBe(200);
    expect((await gw.merchant(A.api_key, 'GET', `/purchase/status?merchant_tx_id=${own.purchase.merchant_tx_id}`)).status).toBe(200);
  });

  it("history and search show B none of A's purchases", async () => {
    const res = await gw.merchant(B.api_key, 'GET', `/purchase?search=${own.purchase.merchant_tx_id}`);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body.data)).not.toContain(own.purchase.merchant_tx_id);
    const all = await gw.merchant(B.api_key, 'GET', '/purchase?limit=500');
    expect(all.body.data.data.map((p: { id: number }) => p.id)).not.toContain(own.purchase.id);
    const mine = await gw.merchant(A.api_key, 'GET', '/purchase?limit=500');
    expect(mine.body.data.data.map((p: { id: number }) => p.id)).toContain(own.purchase.id);
  });

  it("create-deposit on A's inventory snapshot → 400 inventory_reload at B (snapshots are per merchant); nothing created", async () => {
    const before = await stateOfA();
    const res = await gw.merchant(B.api_key, 'POST', '/create-deposit', {
      merchant_tx_id: 'iso-b-snapshot', game: 'csgo', partner: own.snapshot.partner, token: TOKEN, asset_ids: own.snapshot.assetIds,
    });
    expect(res.status).toBe(400);
    expect(res.body.data[0]).toMatchObject({ code: 'inventory_reload' });
    expect(await gw.ctx.db.selectFrom('deposits').select('id').where('merchant_id', '=', B.id).execute()).toEqual([]);
    expect(await stateOfA()).toEqual(before);
  });

  it("A's merchant_tx_ids are B's to use: B gets its own records, never A's, never 409", async () => {
    const i = await gw.merchant(B.api_key, 'POST', '/create-intent', { merchant_tx_id: own.intent.merchant_tx_id });
    expect(i.status).toBe(200);
    expect(i.body.data.id).not.toBe(own.intent.id);
    const listings = (await gw.merchant(B.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as { id: string }[];
    const p = await gw.merchant(B.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: listings[0]!.id, merchant_tx_id: own.purchase.merchant_tx_id });
    expect(p.status).toBe(200);
    expect(p.body.data.id).not.toBe(own.purchase.id);
    const a = await gw.merchant(A.api_key, 'GET', `/purchase/status?merchant_tx_id=${own.purchase.merchant_tx_id}`);
    expect(a.body.data.id).toBe(own.purchase.id);
  });

  it("a hosted token names only its own intent; a token of A's with one character changed is 404", async () => {
    const res = await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${own.intent.token}` });
    expect(res.statusCode).toBe(200);
    expect(JSON.stringify(res.json())).not.toContain('Merchant B');
    const t = own.intent.token;
    const forged = t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A');
    const bad = await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${forged}` });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual(NOT_FOUND);
    // a merchant key is no hosted credential
    const withKey = await gw.app.inject({ method: 'GET', url: `/api/v1/hosted/${own.intent.id}`, headers: { 'x-api-key': A.api_key } });
    expect(withKey.statusCode).toBe(404);
  });
});

describe('credentials do not cross APIs', () => {
  async function routes(prefix: string) {
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    return Object.entries(doc.paths)
      .filter(([p]) => p.startsWith(prefix))
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), url: p.replace(/\{(\w+)\}/g, (_, n: string) => (n === 'action' ? 'accept' : '1')) })));
  }

  it('the operator API refuses merchant keys on every route', async () => {
    const list = await routes('/api/admin');
    expect(list.length).toBeGreaterThan(10);
    for (const r of list) {
      for (const headers of [{ authorization: `Bearer ${A.api_key}` }, { 'x-api-key': A.api_key }, { authorization: `Bearer ${A.api_key}`, 'x-api-key': ADMIN_TOKEN }]) {
        const res = await gw.app.inject({ method: r.method as 'GET', url: r.url, headers: { ...headers, 'content-type': 'application/json' }, payload: r.method === 'GET' ? undefined : '{}' });
        expect(res.statusCode, `${r.method} ${r.url} ${Object.keys(headers)}`).toBe(401);
        expect(res.json().success).toBe(false);
      }
    }
  });

  it('the merchant API refuses the admin token on every route', async () => {
    const list = await routes('/api/v1/merchant');
    expect(list.length).toBeGreaterThan(10);
    for (const r of list) {
      for (const headers of [{ 'x-api-key': ADMIN_TOKEN }, { authorization: `Bearer ${ADMIN_TOKEN}` }]) {
        const res = await gw.app.inject({ method: r.method as 'GET', url: r.url, headers: { ...headers, 'content-type': 'application/json' }, payload: r.method === 'GET' ? undefined : '{}' });
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
      }
    }
    const balance = await gw.app.inject({ method: 'GET', url: '/api/v1/merchant/balance', headers: { 'x-api-key': ADMIN_TOKEN } });
    expect(balance.json()).toEqual({ success: false, message: 'invalid API key' });
  });

  it('the ledger still balances', async () => {
    const v = await gw.admin('GET', '/ledger/verify');
    expect(v.body.data.ok).toBe(true);
  });
});
