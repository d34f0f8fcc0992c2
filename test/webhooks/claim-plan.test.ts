// The webhook claim and settle statements against statistics taken before a backlog arrived.
//
// An outage leaves thousands of pending events in a table whose statistics were last taken when
// almost nothing was pending (autovacuum re-analyses it only after a minute or more). With such
// statistics PostgreSQL planned the per-record order check ("no earlier pending event of the same
// record") as an anti join over the whole pending index for every candidate: ≈ 9 000 heap fetches
// per candidate, 156 ms and 288 000 buffers per claim of 32, and the bench's backlog drained at
// ≈ 300/s until autovacuum's next analyse. Counted here in buffers read, not time: a plan that
// looks at the whole backlog per candidate reads hundreds of thousands; one that probes the
// record reads a few per candidate.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers.js';
import { freezeStatistics, genericBuffers, mostBuffers, planTestDatabase, plansOfOneConnection, rolledBack as rolledBackOn } from '../plan-buffers.js';
import { createDb, createPool } from '../../src/db/database.js';
import { claimDueStatement, fairShareClaimPlan, settleStatement, type AttemptOutcome } from '../../src/modules/webhooks/webhook-repo.js';
import { webhooksInsertStatement } from '../../src/modules/webhooks/outbox.js';
import type { Db } from '../../src/db/database.js';

const HISTORY = 15_000; // delivered events before the outage (the statistics see only these)
const RECORDS = 6_000; // then one held and one completed event per record, all pending

let url: string;
let pool: pg.Pool;
let db: Db;
let merchantId: number;

beforeAll(async () => {
  ({ url, pool, db, merchantId } = await planTestDatabase());
  const ev = (status: string, state: string, from: number, n: number) =>
    pool.query(
      `insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state, delivered_at)
       select $1, 'deposit', r, $2, '{}'::jsonb, 'http://127.0.0.1:9/x', $3, case when $3 = 'delivered' then now() end
         from generate_series($4::bigint, $4::bigint + $5 - 1) r order by r`,
      [merchantId, status, state, from, n],
    );
  await ev('completed', 'delivered', 1, HISTORY);
  await freezeStatistics(pool, ['webhook_events']);
  await ev('hold', 'pending', 1_000_000, RECORDS);
  await ev('completed', 'pending', 1_000_000, RECORDS);
});
afterAll(async () => pool?.end());

const buffersOf = (c: pg.PoolClient, q: { sql: string; parameters: readonly unknown[] }) => mostBuffers(c, q.sql, q.parameters);

/** Runs `fn` in a transaction on `pool` that is rolled back. */
const rolledBack = <T,>(fn: (c: pg.PoolClient) => Promise<T>) => rolledBackOn(pool, fn);

describe('webhook statements on statistics older than the backlog', () => {
  it('the fair-share claim probes each candidate record instead of the whole backlog', async () => {
    const q = claimDueStatement({ limit: 32, leaseMs: 60_000, perMerchant: { cap: 32, busy: new Map() } }).compile(db);
    // ≈ 800 (the anti join: 516 000)
    expect(await rolledBack(async (c) => {
      await c.query(fairShareClaimPlan.compile(db).sql); // as claimDue runs it
      return buffersOf(c, q);
    })).toBeLessThan(2_000);
  });

  it('the fair-share claim as the prepared statement the claim session runs: its generic plan probes too', async () => {
    const q = claimDueStatement({ limit: 32, leaseMs: 60_000, perMerchant: { cap: 32, busy: new Map([[merchantId, 3]]) } }).compile(db);
    expect(await rolledBack(async (c) => {
      await c.query(fairShareClaimPlan.compile(db).sql);
      return genericBuffers(c, q);
    })).toBeLessThan(2_000);
  });

  it("one event's claim (the CLI's deliver) reads by its id", async () => {
    const first = await pool.query(`select min(id) as id from webhook_events where state = 'pending'`);
    const q = claimDueStatement({ limit: 1, leaseMs: 60_000, eventId: Number(first.rows[0].id) }).compile(db);
    // ≈ 120: PostgreSQL may still find the id in the pending index's leaves rather than by the
    // primary key (the statistics say pending is small), but no longer checks every pending event
    // against the whole pending index (the anti join: 8 000 at 8 000 pending)
    expect(await rolledBack((c) => buffersOf(c, q))).toBeLessThan(1_000);
  });

  it('the settle records attempts and finds the later events of each settled record by probing them', async () => {
    const buffers = await rolledBack(async (c) => {
      // 200 holds, leased as a claim leaves them, settled as delivered
      const held = await c.query(
        `update webhook_events set attempts = 1, lease_until = now() + interval '1 minute'
          where id in (select id from webhook_events where state = 'pending' and status = 'hold' order by id limit 200) returning id`,
      );
      const batch: AttemptOutcome[] = held.rows.map((r) => ({
        eventId: Number(r.id), attempt: 1, generation: 0, statusCode: 200, latencyMs: 1, error: null, excerpt: null, outcome: 'ack', delayMs: 0,
      }));
      return buffersOf(c, settleStatement(batch, 6).compile(db));
    });
    // ≈ 27 per attempt: its row, the attempt row and their indexes (the joined form: 1.65 million)
    expect(buffers).toBeLessThan(40 * 200);
  });

  it('the settle as the named prepared statement it runs as: its generic plan probes too', async () => {
    const buffers = await rolledBack(async (c) => {
      const held = await c.query(
        `update webhook_events set attempts = 1, lease_until = now() + interval '1 minute'
          where id in (select id from webhook_events where state = 'pending' and status = 'hold' order by id limit 200) returning id`,
      );
      const batch: AttemptOutcome[] = held.rows.map((r) => ({
        eventId: Number(r.id), attempt: 1, generation: 0, statusCode: 200, latencyMs: 1, error: null, excerpt: null, outcome: 'ack', delayMs: 0,
      }));
      const q = settleStatement(batch, 6).compile(db);
      expect(q.sql).toMatch(/^\/\* prepared:webhook_settle \*\//);
      // The plan a connection keeps after five runs, whatever the batch: the generic one (45 218
      // buffers here when the update's filter could use the pending index: bench/RESULTS.md, stop 39).
      return genericBuffers(c, q);
    });
    expect(buffers).toBeLessThan(40 * 200);
  });

  it("a batch of new events (a purchase transition's) finds each record's pending events by probing, custom and generic", async () => {
    // 50 records of the backlog, each with two pending events
    const events = Array.from({ length: 50 }, (_, i) => ({
      merchantId, kind: 'deposit' as const, recordId: 1_000_000 + i * 7, status: 'reverted', payload: { i }, resultUrl: 'http://127.0.0.1:9/y',
    }));
    const q = webhooksInsertStatement(events).compile(db);
    expect(q.sql).toMatch(/^\/\* prepared:webhook_events_insert \*\/ \/\* webhook_events:write \*\//);
    // ≈ 20 an event: its row, its indexes, the probe of its record's pending events (4 buffers; a walk
    // of the pending index per event: ≈ 50 each, a scan of the table: hundreds each)
    expect(await rolledBack((c) => buffersOf(c, q))).toBeLessThan(30 * 50);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(30 * 50);
    const written = await rolledBack(async (c) => {
      // the hold events of the first ten records retry later: their new events must wait for them
      await c.query(`update webhook_events set next_attempt_at = now() + interval '1 minute' where state = 'pending' and status = 'hold' and record_id = any($1::bigint[])`, [
        events.slice(0, 10).map((e) => e.recordId),
      ]);
      await c.query(q.sql, q.parameters as unknown[]);
      return (await c.query(`select e.record_id, e.payload, e.target_url, e.not_before,
                e.not_before is not distinct from (select max(p.next_attempt_at) from webhook_events p
                                                    where p.kind = e.kind and p.record_id = e.record_id and p.state = 'pending' and p.id <> e.id) as waits
           from webhook_events e where e.status = 'reverted' order by e.id`)).rows;
    });
    expect(written).toHaveLength(50);
    expect(written.map((r) => Number(r.record_id))).toEqual(events.map((e) => e.recordId)); // in the batch's order
    // each with its payload and target, and waiting for its record's pending events (not_before)
    expect(written.map((r) => [r.payload.i, r.target_url, r.waits])).toEqual(events.map((_, i) => [i, 'http://127.0.0.1:9/y', true]));
    expect(written.filter((r) => r.not_before !== null)).toHaveLength(10);
  });

  it('a connection keeps the generic plan of the events insert after five runs, whatever the batch size', async () => {
    const plans = await plansOfOneConnection(url, 'webhook_events_insert', async (oneDb) => {
      for (let n = 1; n <= 8; n++) {
        const events = Array.from({ length: n }, (_, i) => ({ merchantId, kind: 'purchase' as const, recordId: 9_000_000 + n * 100 + i, status: 'pending', payload: {}, resultUrl: 'http://127.0.0.1:9/z' }));
        await webhooksInsertStatement(events).execute(oneDb);
      }
    });
    expect(plans).toEqual({ generic: 3, custom: 5 });
  });
});

// Statistics taken with the backlog in the table (autovacuum's next analyse, or a grown database's),
// one merchant of a hundred holding it: "this merchant's pending events" is estimated as the table's
// pending rows over the number of merchants (≈ 30 here, for 8 000), and the record-order test as an
// equality on id (one row). Planned on that, the claim read the merchant's whole due backlog by a
// bitmap scan, checked the record order of every event and sorted them to keep its share: 24 000
// buffers here, 20.6 ms per claim on the grown bench database, where the backlog drained at half the
// rate. It is to walk the merchant's due events in order and stop at its share.
describe('webhook claim on fresh statistics, one merchant of many holding the backlog', () => {
  let pool2: pg.Pool;
  beforeAll(async () => {
    pool2 = createPool(await freshDatabase(), 2);
    await pool2.query(
      `insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret)
       select 'm' || i, 'h' || i, 'sk_', 's' from generate_series(1, 100) i`,
    );
    const ids = (await pool2.query(`select id from merchants order by id`)).rows.map((r) => Number(r.id));
    // 200 delivered events per merchant, then 4 000 records of one merchant with two pending events each
    await pool2.query(
      `insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state, delivered_at)
       select m, 'deposit', m * 1000 + r, 'completed', '{}'::jsonb, 'http://127.0.0.1:9/x', 'delivered', now()
         from unnest($1::bigint[]) m, generate_series(1, 200) r`,
      [ids],
    );
    for (const status of ['hold', 'completed']) {
      await pool2.query(
        `insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state)
         select $1, 'deposit', r, $2, '{}'::jsonb, 'http://127.0.0.1:9/x', 'pending'
           from generate_series(1000000, 1003999) r order by r`,
        [ids[0], status],
      );
    }
    await pool2.query('analyze webhook_events');
  });
  afterAll(async () => pool2?.end());

  it('the fair-share claim walks the merchant’s due events in order and stops at its share', async () => {
    const q = claimDueStatement({ limit: 64, leaseMs: 60_000, perMerchant: { cap: 32, busy: new Map() } }).compile(createDb(pool2));
    const c = await pool2.connect();
    try {
      await c.query('begin');
      await c.query(fairShareClaimPlan.compile(db).sql); // as claimDue runs it
      // ≈ 300 (the bitmap scan of the whole backlog: 24 000)
      expect(await buffersOf(c, q)).toBeLessThan(2_000);
      // and the generic plan the claim session keeps
      expect(await genericBuffers(c, q)).toBeLessThan(2_000);
    } finally {
      await c.query('rollback');
      c.release();
    }
  });
});
