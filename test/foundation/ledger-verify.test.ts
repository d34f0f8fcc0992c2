// `ledger verify` over the whole ledger (issue 26): by id ranges on one snapshot, with progress,
// and incrementally from the checkpoint a clean run stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { verifyLedger } from '../../src/modules/ledger/ledger-verify.js';
import { freshDatabase } from '../helpers.js';

let pool: pg.Pool;
let db: Db;
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
let seq = 0;

/** `n` entries of +amount for merchant m, written `ageSeconds` ago, and the balance moved with them. */
async function entries(m: number, n: number, amount: number, ageSeconds: number) {
  for (let i = 0; i < n; i++) {
    seq++;
    await q(`insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, created_at)
             values ($1, $2, 'topup', $3, 0, 0, 0, now() - make_interval(secs => $4))`, [m, `t:${seq}`, amount, ageSeconds]);
  }
  await q(`update balances set available = available + $2 where merchant_id = $1`, [m, n * amount]);
}

beforeAll(async () => {
  pool = createPool(await freshDatabase(), 4);
  db = createDb(pool);
  for (let i = 0; i < 3; i++) {
    const [{ id }] = await q<{ id: number }>(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ($1, $1, 'p', 's') returning id::int`, [`m${i}`]);
    await q(`insert into balances (merchant_id) values ($1)`, [id]);
  }
});
afterAll(async () => {
  await db.destroy();
});

describe('ledger verify', () => {
  it('reads by id ranges with progress, stores a checkpoint through the newest entries, then reads only what is new', async () => {
    const [a, b, c] = (await q<{ id: number }>(`select id::int from merchants order by id`)).map((r) => r.id);
    await entries(a, 7, 100, 7200);
    await entries(b, 5, 30, 7200);
    await entries(a, 2, 5, 10); // written seconds ago: checkpointed all the same
    const progress: [number, number][] = [];
    const full = await verifyLedger(db, undefined, { chunkIds: 3, onProgress: (d, t) => progress.push([d, t]) });
    expect(full.mismatches).toEqual([]);
    expect(full.checked).toBe(3);
    expect(full.entries).toBe(14);
    expect(progress.length).toBe(1 + 5); // 0, then each range of 3 ids over 14
    expect(progress.at(-1)![0]).toBe(progress.at(-1)![1]);
    const [{ max }] = await q<{ max: number }>(`select max(id)::int as max from ledger_entries`);
    expect(full.checkpoint_id).toBe(max);
    const cps = await q<{ merchant_id: number; available: number; entries: number }>(`select merchant_id::int, available::int, entries::int from ledger_checkpoints order by merchant_id`);
    expect(cps).toEqual([{ merchant_id: a, available: 710, entries: 9 }, { merchant_id: b, available: 150, entries: 5 }]);

    await entries(c, 4, 1, 7200);
    const inc = await verifyLedger(db, undefined, { incremental: true, chunkIds: 3 });
    expect(inc.mismatches).toEqual([]);
    expect(inc.from_id).toBe(max);
    expect(inc.entries).toBe(4); // the 4 of c
    expect(inc.checkpoint_id).toBeGreaterThan(max);

    // A balance that moved without its entry: found by the incremental run, and the checkpoint stays.
    await q(`update balances set available = available + 1 where merchant_id = $1`, [b]);
    const bad = await verifyLedger(db, undefined, { incremental: true });
    expect(bad.mismatches).toEqual([{ merchant_id: b, available: 151, hold: 0, ledger_available: 150, ledger_hold: 0 }]);
    expect(bad.checkpoint_id).toBe(inc.checkpoint_id);
    // The one-merchant form agrees.
    expect((await verifyLedger(db, b)).mismatches).toHaveLength(1);
  });
});
