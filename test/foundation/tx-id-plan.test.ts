// Lookups by merchant_tx_id when the statistics do not know the merchant (src/db/merchant-of-lookup.ts).
//
// A merchant onboarded, or grown, since the last ANALYZE has about no rows in the statistics; on a
// table of millions the next ANALYZE is days away. With its id in view, every index starting with
// merchant_id looked as good as the unique (merchant_id, merchant_tx_id) one, and the lookup read
// the merchant's history through (merchant_id, id): POST purchase's idempotency check took 4–7 ms
// and 6 000 buffers at 5 000 purchases on the year's database. Counted here in buffers: a probe by
// merchant_tx_id reads a handful, a walk of the merchant's 5 000 records over a hundred.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers.js';
import { freezeStatistics, mostBuffers } from '../plan-buffers.js';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { ownRecordStatement } from '../../src/db/prepared.js';
import { purchaseLookup, PURCHASE_WIRE_COLUMNS } from '../../src/modules/purchases/purchase-repo.js';
import { DEPOSIT_STATUS_COLUMNS, merchantDepositLookup } from '../../src/modules/deposits/deposit-repo.js';
import { recordsQuery } from '../../src/modules/web/dashboard/dashboard-repo.js';

const RECORDS = 5_000; // of the merchant the statistics do not know
const OLD_RECORDS = 1_500; // of each of the 100 merchants they know (at 100 the tables were too small for the two indexes to differ)

let pool: pg.Pool;
let db: Db;
let merchantId: number;

beforeAll(async () => {
  pool = createPool(await freshDatabase(), 2);
  db = createDb(pool);
  // the rows alone: no status history or counts (their triggers), as bench/seed-year loads them
  const setup = await pool.connect();
  await setup.query('set session_replication_role = replica');
  const ins = async (merchants: string, n: number, prefix: string) => {
    await setup.query(
      `insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, status, amount)
       select m, '${prefix}p-' || m || '-' || r, 'csgo', 12345678, 'abcdEFGH', '76561198000000000', 'completed', 1000
         from (${merchants}) ms(m), generate_series(1, ${n}) r`,
    );
    await setup.query(
      `insert into deposits (merchant_id, merchant_tx_id, flow, game, partner, token, status, amount)
       select m, '${prefix}d-' || m || '-' || r, 'inventory', 'csgo', 12345678, 'abcdEFGH', 'completed', 1000
         from (${merchants}) ms(m), generate_series(1, ${n}) r`,
    );
  };
  await pool.query(
    `insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret)
     select 'm' || i, 'h' || i, 'sk_', 's' from generate_series(1, 100) i`,
  );
  await ins('select id from merchants', OLD_RECORDS, 'old');
  await freezeStatistics(pool, ['purchases', 'deposits']);
  const m = await pool.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('new', 'hn', 'sk_', 's') returning id`);
  merchantId = Number(m.rows[0].id);
  await ins(`select ${merchantId}::bigint`, RECORDS, 'new');
  setup.release(true);
}, 60_000);
afterAll(async () => pool?.end());

const buffersOf = (text: string, values: readonly unknown[]) => mostBuffers(pool, text, values);

describe('a lookup by merchant_tx_id of a merchant the statistics do not know probes it', () => {
  const txId = `newp-0-${RECORDS}`; // not this merchant's: the lookup finds nothing, as a first POST does
  it('purchase (POST purchase’s idempotency check)', async () => {
    const q = purchaseLookup(db, merchantId, { merchantTxId: txId }).compile();
    expect(await buffersOf(q.sql, q.parameters)).toBeLessThan(20); // ≈ 3 (the walk of the merchant's index: ≈ 140)
  });
  it('deposit', async () => {
    const q = merchantDepositLookup(db, merchantId, { merchantTxId: txId }).compile();
    expect(await buffersOf(q.sql, q.parameters)).toBeLessThan(20);
  });
  it('the prepared status reads', async () => {
    for (const from of [
      { table: 'purchases', columns: PURCHASE_WIRE_COLUMNS, statement: 'purchase_wire' },
      { table: 'deposits', columns: DEPOSIT_STATUS_COLUMNS, statement: 'deposit_status' },
    ]) {
      const s = ownRecordStatement(from, merchantId, { merchantTxId: txId });
      expect(await buffersOf(s.text, s.values), from.table).toBeLessThan(20);
    }
  });
  it('the dashboard’s filter by merchant_tx_id, alone and with the other filters', async () => {
    for (const kind of ['purchase', 'deposit'] as const) {
      for (const f of [{}, { status: 'completed', game: 'csgo' }, { from: '2020-01-01', to: '2999-12-31' }, { before: 2 ** 40 }]) {
        const q = recordsQuery(db, kind, merchantId, { ...f, merchant_tx_id: txId }).compile();
        expect(await buffersOf(q.sql, q.parameters), `${kind} ${JSON.stringify(f)}`).toBeLessThan(20);
      }
    }
  });
  it('and still finds the record, only the merchant’s own', async () => {
    const mine = `new${'p'}-${merchantId}-17`;
    expect((await purchaseLookup(db, merchantId, { merchantTxId: mine }).executeTakeFirst())?.merchant_tx_id).toBe(mine);
    expect(await purchaseLookup(db, merchantId - 1, { merchantTxId: mine }).executeTakeFirst()).toBeUndefined();
    expect((await recordsQuery(db, 'purchase', merchantId, { merchant_tx_id: mine, status: 'completed' }).execute()).map((r) => r.merchant_tx_id)).toEqual([mine]);
    expect(await recordsQuery(db, 'purchase', merchantId, { merchant_tx_id: mine, status: 'failed' }).execute()).toEqual([]);
    expect(await recordsQuery(db, 'purchase', merchantId - 1, { merchant_tx_id: mine }).execute()).toEqual([]);
  });
});
