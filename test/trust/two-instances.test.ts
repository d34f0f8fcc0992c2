// Two gateways on one DATABASE_URL serving the same burst: the same top-up reference and the same
// purchase merchant_tx_id sent to both at once move money once, every job runs once (each webhook
// delivered exactly once to a receiver that always answers 200), webhooks of a record arrive in
// order, and a key rotation or a disabled merchant is seen by the other instance at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { balanceAgainstRecords, TERMINAL } from './books.js';

const ENV = {
  HOLD_SECONDS_CSGO: '1',
  OFFER_TTL_SECONDS: '6',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1',
  SANDBOX_CATALOGUE_SIZE: '300',
  WORKER_CONCURRENCY: '4',
};
const USER = { game: 'csgo', partner: 12345678, token: 'abcdefgh' };
let a: TestGateway;
let b: TestGateway;
let rx: Receiver;
let m: { id: number; api_key: string };

beforeAll(async () => {
  const databaseUrl = await freshDatabase();
  rx = await startReceiver();
  a = await startTestGateway(ENV, { databaseUrl });
  b = await startTestGateway(ENV, { databaseUrl });
  m = await a.createMerchant({ name: 'Two instances', webhook_url: rx.url('/hook') });
  await b.topUp(m.id, 10_000);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await rx?.close();
});

const both = <T>(f: (g: TestGateway) => Promise<T>) => Promise.all([f(a), f(b)]);

describe('two instances, one database', () => {
  it('the same burst on both: money moves once, every job runs once, webhooks per record in order', async () => {
    const listings = (await a.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as { id: string }[];
    const work: Promise<unknown>[] = [];
    // 30 top-ups, each reference sent to both instances at once.
    for (let i = 0; i < 30; i++) {
      work.push(both((g) => g.admin('POST', `/merchants/${m.id}/top-ups`, { amount: 1.25, reference: `dup-${i}` })).then(([x, y]) => {
        // One recorded it (201), the other found it recorded (200): the same top-up.
        expect([x.status, y.status].sort()).toEqual([200, 201]);
        expect(x.body.data.id).toBe(y.body.data.id);
      }));
    }
    // 20 purchases, each merchant_tx_id sent to both at once: one purchase, one reserve.
    const purchaseIds: number[] = [];
    for (let i = 0; i < 20; i++) {
      const body = { ...USER, asset_id: listings[i]!.id, merchant_tx_id: `p-${i}` };
      work.push(both((g) => g.merchant(m.api_key, 'POST', '/purchase', body)).then(([x, y]) => {
        expect([x.status, y.status]).toEqual([200, 200]);
        expect(x.body.data.id).toBe(y.body.data.id);
        purchaseIds.push(x.body.data.id);
      }));
    }
    // 12 deposits created on one instance and accepted into the hold on the other; the hold ends
    // by a job on whichever instance takes it.
    for (let i = 0; i < 12; i++) {
      const [mine, other] = i % 2 ? [a, b] : [b, a];
      work.push((async () => {
        const partner = 30_000_000 + i;
        const inv = await mine.merchant(m.api_key, 'POST', '/inventory', { ...USER, partner });
        const d = await mine.merchant(m.api_key, 'POST', '/create-deposit', { ...USER, partner, asset_ids: [inv.body.data.items[0].id], merchant_tx_id: `d-${i}` });
        expect(d.body.data.status).toBe('active');
        expect((await other.merchant(m.api_key, 'POST', `/sandbox/deposit/${d.body.data.id}/accept`, { hold: true })).body.data.status).toBe('hold');
      })());
    }
    await Promise.all(work);
    // Half the purchases are accepted once their offer is out (dispatch job), the rest expire.
    await Promise.all(purchaseIds.filter((_, i) => i % 2 === 0).map(async (id, i) => {
      await eventually(async () => (await a.merchant(m.api_key, 'GET', `/purchase/status?id=${id}`)).body.data.status === 'active', 20_000);
      expect((await (i % 2 ? a : b).merchant(m.api_key, 'POST', `/sandbox/purchase/${id}/accept`, { hold: false })).status).toBe(200);
    }));

    // Everything ends and every webhook is delivered.
    await eventually(async () => {
      const { rows } = await a.ctx.pool.query(
        `select (select count(*) from deposits where merchant_id = $1 and status <> all($2)) +
                (select count(*) from purchases where merchant_id = $1 and status <> all($2)) +
                (select count(*) from webhook_events where merchant_id = $1 and state <> 'delivered') as n`,
        [m.id, TERMINAL],
      );
      return Number(rows[0].n) === 0;
    }, 40_000, 200);

    // Money moved once: 30 distinct top-ups, 20 purchases, the balance is what the records say.
    const counts = (await a.ctx.pool.query(`select (select count(*) from top_ups where merchant_id = $1)::int as t,
                                               (select count(*) from purchases where merchant_id = $1)::int as p`, [m.id])).rows[0];
    expect(counts).toEqual({ t: 31, p: 20 });
    const books = await balanceAgainstRecords(a.ctx.pool, m.id);
    expect(books.actual).toBe(books.derived);
    expect((await b.admin('GET', '/ledger/verify')).body.data.mismatches).toEqual([]);
    const statuses = (await a.ctx.pool.query(`select status, count(*)::int as n from deposits where merchant_id = $1 group by status`, [m.id])).rows;
    expect(statuses).toEqual([{ status: 'completed', n: 12 }]);

    // Every delivery job ran once: each event reached the receiver exactly once (it always answers 200).
    const events = (await a.ctx.pool.query(`select id, kind, record_id::int as record_id, status from webhook_events where merchant_id = $1 order by id`, [m.id])).rows;
    const hooks = rx.on('/hook');
    expect(hooks.length).toBe(events.length);
    expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).toBe(events.length);

    // Per record, webhooks arrive in the order of the changes.
    const arrived = new Map<string, string[]>();
    for (const h of hooks) {
      const key = h.body.trade_id !== undefined ? `deposit:${h.body.trade_id}` : `purchase:${h.body.purchase_id}`;
      arrived.set(key, [...(arrived.get(key) ?? []), h.body.status]);
    }
    const committed = new Map<string, string[]>();
    for (const e of events) committed.set(`${e.kind}:${e.record_id}`, [...(committed.get(`${e.kind}:${e.record_id}`) ?? []), e.status]);
    expect(arrived).toEqual(committed);
    expect([...committed.values()].filter((s) => s.join() === 'hold,completed').length).toBe(12);
    // Both instances' workers were alive and checking in.
    expect((await a.ctx.pool.query('select count(distinct instance_id)::int as n from worker_heartbeats')).rows[0].n).toBe(2);
  }, 120_000);

  // Each instance caches keys in memory; the change reaches the other one by NOTIFY, which crosses a
  // socket: "at once" is within a second here (a few milliseconds in practice).
  it('a key rotated on one instance fails on the other at once; a merchant disabled on one is refused by the other', async () => {
    expect((await b.merchant(m.api_key, 'GET', '/balance')).status).toBe(200); // cached on b
    const rotated = await a.admin('POST', `/merchants/${m.id}/rotate-key`);
    expect(rotated.status).toBe(200);
    const old = await eventually(async () => {
      const r = await b.merchant(m.api_key, 'GET', '/balance');
      return r.status === 401 && r;
    }, 1000, 5);
    expect(old.body).toEqual({ success: false, message: 'invalid API key' });
    const key = rotated.body.data.api_key as string;
    expect((await b.merchant(key, 'GET', '/balance')).status).toBe(200);

    expect((await a.merchant(key, 'GET', '/balance')).status).toBe(200); // cached on a
    expect((await b.admin('PATCH', `/merchants/${m.id}`, { enabled: false })).status).toBe(200);
    const refused = await eventually(async () => {
      const r = await a.merchant(key, 'GET', '/balance');
      return r.status === 403 && r;
    }, 1000, 5);
    expect(refused.body).toEqual({ success: false, message: 'merchant account is disabled' });
    expect((await a.admin('PATCH', `/merchants/${m.id}`, { enabled: true })).status).toBe(200);
    await eventually(async () => (await b.merchant(key, 'GET', '/balance')).status === 200, 1000, 5);
  });
});
