// `ledger verify` checkpoints the newest entries without an age margin: before its snapshot it
// waits for the ledger writers in flight, so no id at or below the checkpoint can commit after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { verifyLedger } from '../../src/modules/ledger/ledger-verify.js';
import { freshDatabase } from '../helpers.js';

let url: string;
let pool: pg.Pool;
let db: Db;
let a: number;
let b: number;
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
let seq = 0;

/** One entry of +amount for merchant m with its balance, on `c` (the pool when not given); returns its id. */
async function entry(m: number, amount: number, c: pg.Pool | pg.Client = pool): Promise<number> {
  seq++;
  const r = await c.query(
    `insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after)
     values ($1, $2, 'topup', $3, 0, 0, 0) returning id::int`,
    [m, `s:${seq}`, amount],
  );
  await c.query(`update balances set available = available + $2 where merchant_id = $1`, [m, amount]);
  return r.rows[0].id;
}

beforeAll(async () => {
  url = await freshDatabase();
  pool = createPool(url, 4);
  db = createDb(pool);
  [a, b] = await Promise.all(
    ['s1', 's2'].map(async (name) => {
      const [{ id }] = await q<{ id: number }>(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ($1, $1, 'p', 's') returning id::int`, [name]);
      await q(`insert into balances (merchant_id) values ($1)`, [id]);
      return id;
    }),
  );
});
afterAll(async () => {
  await db.destroy();
});

describe('ledger verify checkpoints without an age margin', () => {
  it('entries written a moment ago are checkpointed: the incremental run right after reads none of them', async () => {
    await entry(a, 100);
    const last = await entry(b, 30);
    const full = await verifyLedger(db);
    expect(full.mismatches).toEqual([]);
    expect(full.entries).toBe(2);
    expect(full.checkpoint_id).toBe(last);
    const inc = await verifyLedger(db, undefined, { incremental: true });
    expect(inc).toMatchObject({ mismatches: [], from_id: last, entries: 0, checkpoint_id: last });
  });

  it('a writer still in flight with a lower id holds the checkpoint back; once it commits, the next run counts its entry', async () => {
    const before = (await verifyLedger(db, undefined, { incremental: true })).checkpoint_id!;
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    try {
      await slow.query('begin');
      const early = await entry(a, 5, slow); // drawn first, not committed
      const late = await entry(b, 7); // drawn after it, committed
      expect(late).toBeGreaterThan(early);

      // The writer stays open past the wait: everything committed is verified, the checkpoint does not move past `early`.
      const held = await verifyLedger(db, undefined, { incremental: true, settleWaitMs: 200 });
      expect(held.mismatches).toEqual([]);
      expect(held.entries).toBe(1);
      expect(held.checkpoint_id).toBe(before);
      expect(held.checkpoint_id!).toBeLessThan(early);

      // It commits (before the run or while it waits, either way): the run covers both entries.
      const run = verifyLedger(db, undefined, { incremental: true });
      await slow.query('commit');
      const done = await run;
      expect(done.mismatches).toEqual([]);
      const next = await verifyLedger(db, undefined, { incremental: true });
      expect(next.mismatches).toEqual([]);
      expect(next.checkpoint_id).toBe(late);
      const cps = await q<{ merchant_id: number; available: number; entries: number }>(
        `select merchant_id::int, available::int, entries::int from ledger_checkpoints order by merchant_id`,
      );
      expect(cps).toEqual([
        { merchant_id: a, available: 105, entries: 2 },
        { merchant_id: b, available: 37, entries: 2 },
      ]);
    } finally {
      await slow.end();
    }
  });
});
