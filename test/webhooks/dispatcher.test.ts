// The webhook dispatcher: batch claims shared by two instances on one database, per-record order
// under concurrency and retries, the after-commit wake-up (not the poll), a backlog to a receiver
// that comes back, keep-alive connections.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';
import { enqueueWebhook } from '../../src/modules/webhooks/outbox.js';
import * as repo from '../../src/modules/webhooks/webhook-repo.js';
import { freePort, startReceiver, verifySpecSign, type Receiver } from './receiver.js';

const payload = (id: number, status: string) => ({ status, trade_id: id, trade_date: '2026-10-06T10:00:12.512Z', merchant_tx_id: `d-${id}`, amount: 1, amount_currency: 'usd' });

/** Events of `records` × `statuses`, written through the outbox of `gw`, in order per record. */
async function emitAll(gw: TestGateway, merchantId: number, records: number[], statuses: string[], resultUrl?: string): Promise<number[]> {
  const ids: number[] = [];
  for (const status of statuses) {
    await gw.ctx.db.transaction().execute(async (trx) => {
      for (const r of records) ids.push((await enqueueWebhook(trx, { merchantId, kind: 'deposit', recordId: r, status, resultUrl, payload: payload(r, status) }))!);
    });
  }
  return ids;
}

/** Per record, the statuses in the order the receiver got them. */
function arrivalsByRecord(rx: Receiver, path: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const r of rx.on(path)) out.set(r.body.trade_id, [...(out.get(r.body.trade_id) ?? []), r.body.status]);
  return out;
}

describe('two dispatchers on one database', () => {
  let a: TestGateway;
  let b: TestGateway;
  let rx: Receiver;
  const ENV = { WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_CONCURRENCY: '16' };

  beforeAll(async () => {
    const databaseUrl = await freshDatabase();
    rx = await startReceiver();
    a = await startTestGateway(ENV, { databaseUrl, worker: false });
    b = await startTestGateway(ENV, { databaseUrl, worker: false });
  });
  afterAll(async () => {
    await a?.ctx.webhooks.dispatcher.stop();
    await b?.ctx.webhooks.dispatcher.stop();
    await a?.stop();
    await b?.stop();
    await rx?.close();
  });

  it('concurrent batch claims from two instances never hand one attempt to both', async () => {
    const m = await a.createMerchant({ name: 'Claims', webhook_url: 'http://127.0.0.1:9/none' });
    const records = Array.from({ length: 400 }, (_, i) => 100_000 + i);
    const ids = await emitAll(a, m.id, records, ['completed']);
    const claimedBy = { a: [] as number[], b: [] as number[] };
    // Both instances claim in parallel (4 claims in flight each, batches of 25) until nothing is left.
    const drain = async (gw: TestGateway, into: number[]) => {
      for (;;) {
        const rows = await repo.claimDue(gw.ctx.db, { limit: 25, leaseMs: 60_000 });
        if (rows.length === 0) return;
        into.push(...rows.map((r) => Number(r.id)));
      }
    };
    await Promise.all([...Array.from({ length: 4 }, () => drain(a, claimedBy.a)), ...Array.from({ length: 4 }, () => drain(b, claimedBy.b))]);
    const all = [...claimedBy.a, ...claimedBy.b];
    expect(new Set(all).size).toBe(all.length); // nobody got an attempt twice
    expect([...all].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y)); // and all were claimed
    expect(claimedBy.a.length).toBeGreaterThan(0);
    expect(claimedBy.b.length).toBeGreaterThan(0);
    const rows = await a.ctx.db.selectFrom('webhook_events').select(['attempts']).where('id', 'in', ids).execute();
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    await a.ctx.db.updateTable('webhook_events').set({ state: 'delivered', lease_until: null }).where('id', 'in', ids).execute();
  });

  it('both dispatchers running: every event delivered exactly once, in order per record, failures and retries included', async () => {
    const m = await a.createMerchant({ name: 'Two dispatchers', webhook_url: rx.url('/two') });
    // A third of the first attempts fail: the record's later events must wait for the retry.
    const tried = new Set<string>();
    rx.respond = (r) => {
      const key = String(r.headers['webhook-id']);
      const first = !tried.has(key);
      tried.add(key);
      return first && r.body.trade_id % 3 === 0 ? { status: 500 } : { status: 200 };
    };
    // a claims on a connection of its own (as the gateway starts it), b in transactions of its pool
    a.ctx.webhooks.dispatcher.start(a.ctx.commitTaps, a.ctx.pool.options);
    b.ctx.webhooks.dispatcher.start(b.ctx.commitTaps);
    const statuses = ['hold', 'completed', 'reverted'];
    const onA = Array.from({ length: 60 }, (_, i) => 200_000 + i * 2);
    const onB = Array.from({ length: 60 }, (_, i) => 200_001 + i * 2);
    // The events of one record come from both instances, one status at a time, as transitions do.
    for (const status of statuses) {
      await Promise.all([emitAll(a, m.id, onA, [status]), emitAll(b, m.id, onB, [status])]);
    }
    const total = (onA.length + onB.length) * statuses.length;
    await eventually(async () => {
      const n = await a.ctx.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n')).where('merchant_id', '=', m.id).where('state', '=', 'delivered').executeTakeFirstOrThrow();
      return Number(n.n) === total;
    }, 30_000);
    const got = rx.on('/two');
    // Each event sent once, or twice when its first attempt failed: never a duplicate attempt.
    const sends = new Map<string, number>();
    for (const r of got) sends.set(String(r.headers['webhook-id']), (sends.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    expect(sends.size).toBe(total);
    for (const r of got) expect(sends.get(String(r.headers['webhook-id']))).toBe(r.body.trade_id % 3 === 0 ? 2 : 1);
    for (const [record, seen] of arrivalsByRecord(rx, '/two')) {
      const expected = record % 3 === 0 ? statuses.flatMap((s) => [s, s]) : statuses;
      expect(seen, `record ${record}`).toEqual(expected);
    }
    expect(got.every((r) => verifySpecSign(r.body, m.webhook_secret))).toBe(true);
    // Both instances took part, and each was woken by its own commits.
    for (const gw of [a, b]) {
      const s = gw.ctx.webhooks.dispatcher.stats();
      expect(s.claimed).toBeGreaterThan(0);
      expect(s.commitWakes).toBeGreaterThan(0);
    }
  }, 40_000);
});

describe('the claim session', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({}, { worker: false });
  });
  afterAll(async () => gw?.stop());

  it('claims in one statement on a connection of its own, planned with enable_sort off; the pool keeps the default', async () => {
    const m = await gw.createMerchant({ name: 'Session', webhook_url: 'http://127.0.0.1:9/session' });
    const ids = await emitAll(gw, m.id, [1, 2, 3], ['completed']);
    const session = repo.createClaimSession(gw.ctx.pool.options, gw.ctx.db);
    try {
      const rows = await session.claim({ limit: 10, leaseMs: 60_000, perMerchant: { cap: 2, busy: new Map() } });
      expect(rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual(ids.slice(0, 2)); // the merchant's share, oldest first
      expect(rows.every((r) => r.attempts === 1 && r.lease_until !== null && typeof r.webhook_secret === 'string')).toBe(true);
      expect(await session.planSetting()).toBe('off');
      expect((await sql<{ s: string }>`select current_setting('enable_sort') as s`.execute(gw.ctx.db)).rows[0]!.s).toBe('on');
      // what it leased is no one else's: the transaction path finds only the third
      const again = await repo.claimDue(gw.ctx.db, { limit: 10, leaseMs: 60_000, perMerchant: { cap: 2, busy: new Map() } });
      expect(again.map((r) => Number(r.id))).toEqual([ids[2]]);
    } finally {
      await session.end();
    }
  });
});

describe('wake-up', () => {
  let gw: TestGateway;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await startReceiver();
    // A poll of an hour: whatever is delivered here was not found by polling.
    gw = await startTestGateway({ WEBHOOK_POLL_MS: '3600000', WEBHOOK_RETRY_SCHEDULE: '0,1' });
  });
  afterAll(async () => {
    await gw?.stop();
    await rx?.close();
  });

  it('an event is claimed because its transaction committed, not because of the poll', async () => {
    const m = await gw.createMerchant({ name: 'Wake', webhook_url: rx.url('/wake') });
    const before = gw.ctx.webhooks.dispatcher.stats();
    await emitAll(gw, m.id, [1], ['completed']);
    await eventually(async () => rx.on('/wake').length === 1, 5000);
    const after = gw.ctx.webhooks.dispatcher.stats();
    expect(after.commitWakes).toBeGreaterThan(before.commitWakes);
    expect(after.pollWakes).toBe(0);
  });

  it('a rolled-back transaction neither wakes it nor delivers; an event written past the outbox waits for a wake-up', async () => {
    const m = await gw.createMerchant({ name: 'Wake 2', webhook_url: rx.url('/wake2') });
    const before = gw.ctx.webhooks.dispatcher.stats();
    await expect(
      gw.ctx.db.transaction().execute(async (trx) => {
        await enqueueWebhook(trx, { merchantId: m.id, kind: 'deposit', recordId: 2, status: 'completed', payload: payload(2, 'completed') });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((r) => setTimeout(r, 200));
    expect(gw.ctx.webhooks.dispatcher.stats().commitWakes).toBe(before.commitWakes);
    // Written by SQL alone: nothing tells the dispatcher (another instance's event, seen by the poll).
    const row = await gw.ctx.db
      .insertInto('webhook_events')
      .values({ merchant_id: m.id, kind: 'deposit', record_id: 3, status: 'completed', payload: JSON.stringify(payload(3, 'completed')) as never, target_url: rx.url('/wake2') })
      .returning('id')
      .executeTakeFirstOrThrow();
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.on('/wake2')).toHaveLength(0);
    gw.ctx.webhooks.dispatcher.wake();
    await eventually(async () => rx.on('/wake2').length === 1, 5000);
    expect(rx.on('/wake2')[0]!.headers['webhook-id']).toBe(`evt_${row.id}`);
  });

  it('a retry comes due on its timer (the poll would take an hour)', async () => {
    const m = await gw.createMerchant({ name: 'Retry timer', webhook_url: rx.url('/retry') });
    rx.respond = (r, n) => (r.path === '/retry' && n === 0 ? { status: 503 } : { status: 200 });
    const before = gw.ctx.webhooks.dispatcher.stats();
    await emitAll(gw, m.id, [4], ['completed']);
    await eventually(async () => rx.on('/retry').length === 2, 5000);
    expect(gw.ctx.webhooks.dispatcher.stats().timerWakes).toBeGreaterThan(before.timerWakes);
    expect(gw.ctx.webhooks.dispatcher.stats().pollWakes).toBe(0);
  });
});

describe('a backlog to a receiver that comes back', () => {
  let gw: TestGateway;
  let back: Receiver | undefined;

  beforeAll(async () => {
    // Retries every 2 s, and enough of them (80 s) that no event runs out of attempts while the
    // receiver is down, however slow the machine: the test waits for conditions, not for time.
    gw = await startTestGateway({ WEBHOOK_RETRY_SCHEDULE: ['0', ...Array(40).fill('2')].join(','), WEBHOOK_POLL_MS: '100' });
  });
  afterAll(async () => {
    await gw?.stop();
    await back?.close();
  });

  it('drains completely, in order per record, each event once, over kept-alive connections', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/backlog`;
    const m = await gw.createMerchant({ name: 'Backlog', webhook_url: url });
    const records = Array.from({ length: 300 }, (_, i) => 300_000 + i);
    const holds = await emitAll(gw, m.id, records, ['hold']);
    // The receiver is down: every hold fails (at least once: its retries may already run) and waits for its retry.
    await eventually(async () => {
      const r = await sql<{ n: number }>`select count(distinct event_id)::int as n from webhook_attempts where event_id = any(${holds}::bigint[])`.execute(gw.ctx.db);
      return r.rows[0]!.n === holds.length;
    }, 60_000);
    const completeds = await emitAll(gw, m.id, records, ['completed']);
    // No completed is sent before its hold, and the completeds wait for their hold's retry time
    // (not_before: the due scan skips them until then), never past it. One snapshot, whatever the
    // retries are doing meanwhile (a hold in flight has no retry time until its settle).
    const waits = await sql<{ ok: boolean; waiting: number }>`
      select bool_and(c.attempts = 0 and (h.lease_until is not null or c.not_before is null or c.not_before <= h.next_attempt_at)) as ok,
             count(*) filter (where c.not_before is not null)::int as waiting
        from webhook_events c join webhook_events h on h.kind = c.kind and h.record_id = c.record_id and h.status = 'hold'
       where c.id = any(${completeds}::bigint[])`.execute(gw.ctx.db);
    expect(waits.rows[0]!.ok).toBe(true);
    expect(waits.rows[0]!.waiting).toBeGreaterThan(0);

    back = await startReceiver(port);
    await eventually(async () => back!.received.length >= records.length * 2, 120_000);
    await eventually(async () => {
      const r = await gw.ctx.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n')).where('merchant_id', '=', m.id).where('state', '=', 'delivered').executeTakeFirstOrThrow();
      return Number(r.n) === records.length * 2;
    }, 60_000);
    expect(back.received).toHaveLength(records.length * 2);
    for (const [, seen] of arrivalsByRecord(back, '/backlog')) expect(seen).toEqual(['hold', 'completed']);
    expect(new Set(back.received.map((r) => r.headers['webhook-id'])).size).toBe(records.length * 2);
    // Kept-alive connections: far fewer than the 600 requests.
    expect(back.connections()).toBeLessThanOrEqual(gw.ctx.config.webhookConcurrency);
    const holdLog = await gw.ctx.webhooks.getDelivery(holds[0]!);
    // refused while the receiver was down (once or more), then delivered
    const codes = holdLog.attempts.map((x) => x.status_code);
    expect(codes.length).toBeGreaterThanOrEqual(2);
    expect(codes).toEqual([...Array(codes.length - 1).fill(null), 200]);
    expect(holdLog.attempts[0]!.error).toMatch(/ECONNREFUSED/);
  }, 300_000); // generous: the waits above are conditions with their own deadlines
});

describe('fair share between merchants', () => {
  let gw: TestGateway;
  let dead: Receiver;
  let live: Receiver;
  // The hanging attempts time out only after 60 s: if the hanging merchant could take more than its
  // share, the other merchant's events would wait that long and the generous deadline below fails.
  const ENV = { WEBHOOK_RETRY_SCHEDULE: '0,60', WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_CONCURRENCY: '8', WEBHOOK_CONCURRENCY_PER_MERCHANT: '3' };

  beforeAll(async () => {
    dead = await startReceiver(0, () => 'hang');
    live = await startReceiver();
    gw = await startTestGateway(ENV, { worker: false });
    gw.ctx.webhooks.dispatcher.start(gw.ctx.commitTaps);
  });
  afterAll(async () => {
    await dead?.close(); // ends the hanging attempts, so the dispatcher stops without waiting for their timeout
    await gw?.ctx.webhooks.dispatcher.stop();
    await gw?.stop();
    await live?.close();
  });

  it("one merchant's hanging endpoint takes at most its share of the slots: another merchant's events still go at once", async () => {
    const slow = await gw.createMerchant({ name: 'Hangs', webhook_url: dead.url('/hang') });
    const fast = await gw.createMerchant({ name: 'Answers', webhook_url: live.url('/ok') });
    // 30 records of the hanging merchant first (older), then 5 of the other.
    await emitAll(gw, slow.id, Array.from({ length: 30 }, (_, i) => 300_000 + i), ['completed']);
    await eventually(async () => dead.on('/hang').length >= 3, 30_000);
    await emitAll(gw, fast.id, Array.from({ length: 5 }, (_, i) => 400_000 + i), ['completed']);
    // delivered while the hanging attempts still hang (they end only after 60 s)
    await eventually(async () => live.on('/ok').length === 5, 30_000);
    expect(dead.on('/hang').length).toBe(3); // never more than its share of 3 at once
    // once the other merchant's deliveries have settled, only the 3 hanging attempts are in flight
    await eventually(async () => gw.ctx.webhooks.dispatcher.stats().inFlight === 3, 30_000);
    expect(dead.on('/hang').length).toBe(3);
  }, 120_000);

  it('a merchant alone may still use every slot up to its cap, and the next claim continues past a capped merchant', async () => {
    const busy = await gw.createMerchant({ name: 'Busy', webhook_url: live.url('/busy') });
    const ids = await emitAll(gw, busy.id, Array.from({ length: 60 }, (_, i) => 500_000 + i), ['completed']);
    await eventually(async () => live.on('/busy').length === ids.length, 10_000);
    expect(new Set(live.on('/busy').map((r) => r.body.trade_id)).size).toBe(60);
  });
});
