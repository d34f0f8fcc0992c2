// The purchase dispatch's statements that run as named prepared statements (db/prepared.ts), on
// grown tables whose statistics were taken when they were small: a connection keeps a generic plan
// after five runs, whatever the values, so that plan must find its rows by index. Counted in buffers,
// not time (test/plan-buffers.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeStatistics, genericBuffers, mostBuffers, planTestDatabase, plansOfOneConnection, rolledBack as rolledBackOn, tablePages } from '../plan-buffers.js';
import type { Db } from '../../src/db/database.js';
import { PURCHASE_COLUMNS, changeGuardedStatement, claimDueStatement } from '../../src/modules/purchases/purchase-repo.js';
import { sendPurchasesStatement } from '../../src/platform/sandbox/sandbox-platform.js';

const GROWN = 60_000; // finished purchases with their offers after the statistics were taken
const PENDING = 300; // then due pending ones

let url: string;
let pool: pg.Pool;
let db: Db;

beforeAll(async () => {
  let merchantId: number;
  ({ url, pool, db, merchantId } = await planTestDatabase());
  const grow = (n: number, status: string) =>
    pool.query(
      `with p as (
         insert into purchases (merchant_id, status, game, partner, token, platform_id, dispatch_next_at)
         select $1, $3, 'csgo', g, 'tok', 'p' || g, now() - interval '1 minute' from generate_series(1, $2::int) g returning id)
       insert into sandbox_purchase_offers (purchase_id, trade_offer_id, bot_id, expires_at)
       select p.id, 'plan-' || p.id, 1, now() + interval '1 hour' from p where $3 <> 'pending'`,
      [merchantId, n, status],
    );
  await grow(20, 'completed');
  await freezeStatistics(pool, ['purchases', 'sandbox_purchase_offers']);
  await grow(GROWN, 'completed');
  await grow(PENDING, 'pending');
});
afterAll(async () => pool?.end());

const rolledBack = <T,>(fn: (c: pg.PoolClient) => Promise<T>) => rolledBackOn(pool, fn);

const pages = (table: string) => tablePages(pool, table);

describe('the purchase dispatch on grown tables with stale statistics', () => {
  it("the dispatcher's claim reads the due pending purchases by their partial index, custom and generic, and returns every column", async () => {
    const now = new Date();
    const q = claimDueStatement({ now, leaseUntil: new Date(now.getTime() + 30_000), limit: 8, maxAttempts: 5 }).compile(db);
    expect(q.sql).toMatch(/^\/\* prepared:purchase_claim_due \*\//);
    expect(await pages('purchases')).toBeGreaterThan(600);
    // ≈ 25 a claimed purchase: its row, its indexes and triggers (a scan of the purchases: > 600)
    expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(400);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(400);
    const claimed = await rolledBack(async (c) => (await c.query(q.sql, q.parameters as unknown[])).rows);
    expect(claimed).toHaveLength(8);
    expect(Object.keys(claimed[0]).sort()).toEqual([...PURCHASE_COLUMNS].sort());
  });

  it("a batch of guarded transitions finds its purchases by the primary key, custom and generic, and changes only those still in their status", async () => {
    const pending = (await pool.query(`select id from purchases where status = 'pending' order by id limit 16`)).rows.map((r) => Number(r.id));
    const changes = pending.map((id, i) => ({ id, from: (i === 0 ? 'active' : 'pending') as 'active' | 'pending', patch: { status: 'active' as const, trade_offer_id: `t${id}` } }));
    const q = changeGuardedStatement(changes).compile(db);
    expect(q.sql).toMatch(/^\/\* prepared:purchase_change_guarded \*\//);
    // ≈ 25 a purchase: its row, its indexes and triggers (a scan of the purchases: > 600)
    expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(600);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(600);
    const changed = await rolledBack(async (c) => (await c.query(q.sql, q.parameters as unknown[])).rows);
    // the first was read as active: its guard fails, it is left out
    expect(changed.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(pending.slice(1));
    expect(changed.every((r) => r.status === 'active' && r.trade_offer_id === `t${r.id}`)).toBe(true);
    expect(Object.keys(changed[0]).sort()).toEqual([...PURCHASE_COLUMNS].sort());
  });

  it('the sandbox purchase offers find the offers already sent by index, custom and generic', async () => {
    const sent = (await pool.query(`select purchase_id from sandbox_purchase_offers order by purchase_id desc limit 8`)).rows.map((r) => Number(r.purchase_id));
    const fresh = (await pool.query(`select id from purchases where status = 'pending' order by id limit 8`)).rows.map((r) => Number(r.id));
    const q = sendPurchasesStatement([...sent, ...fresh], new Date(Date.now() + 60_000)).compile(db);
    expect(q.sql).toMatch(/^\/\* prepared:sandbox_purchase_offers_send \*\//);
    expect(await pages('sandbox_purchase_offers')).toBeGreaterThan(300);
    const offers = await rolledBack(async (c) => (await c.query(q.sql, q.parameters as unknown[])).rows);
    expect(offers.map((o) => Number(o.purchase_id)).sort((a, b) => a - b)).toEqual([...sent, ...fresh].sort((a, b) => a - b));
    expect(offers.filter((o) => sent.includes(Number(o.purchase_id))).every((o) => o.trade_offer_id === `plan-${o.purchase_id}`)).toBe(true);
    // a few a purchase: its offer probed, the new ones inserted with their index entries
    expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(200);
    expect(await rolledBack((c) => genericBuffers(c, q))).toBeLessThan(200);
  });

  it('a connection keeps the generic plan of the sandbox purchase offers after five runs (it does not plan it at every call)', async () => {
    const sent = (await pool.query(`select purchase_id from sandbox_purchase_offers order by purchase_id desc limit 4`)).rows.map((r) => Number(r.purchase_id));
    const plans = await plansOfOneConnection(url, 'sandbox_purchase_offers_send', async (oneDb) => {
      for (let i = 0; i < 8; i++) await sendPurchasesStatement(sent, new Date(Date.now() + 60_000)).execute(oneDb); // offers already sent: nothing written
    });
    expect(plans).toEqual({ generic: 3, custom: 5 });
  });

  it("a connection keeps the generic plan of the dispatcher's claim after five runs (it does not plan it at every call)", async () => {
    const plans = await plansOfOneConnection(url, 'purchase_claim_due', async (oneDb) => {
      for (let i = 0; i < 8; i++) {
        const now = new Date();
        // each run claims other purchases: the ones claimed before are leased until leaseUntil
        expect((await claimDueStatement({ now, leaseUntil: new Date(now.getTime() + 60_000), limit: 8, maxAttempts: 5 }).execute(oneDb)).rows).toHaveLength(8);
      }
    });
    expect(plans).toEqual({ generic: 3, custom: 5 });
  });
});
