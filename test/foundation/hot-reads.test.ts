// The hot reads (balance, purchase/status, deposit/status) run as named prepared statements
// (src/db/prepared.ts `readPrepared`, straight on the pool): one round trip, parsed and planned once per connection, the
// merchant in the WHERE, the same answer as the general query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { getBalance } from '../../src/modules/ledger/ledger-moves.js';
import { findPurchase, findPurchaseWire, PURCHASE_WIRE_COLUMNS } from '../../src/modules/purchases/purchase-repo.js';
import { DEPOSIT_STATUS_COLUMNS, findDepositStatus, findMerchantDeposit } from '../../src/modules/deposits/deposit-repo.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { activeDeposit } from '../deposits/deposit-helpers.js';

let gw: TestGateway;
let pool: ReturnType<typeof createPool>;
let db: Db;
let A: { id: number; api_key: string };
let B: { id: number; api_key: string };
let purchase: { id: number; merchant_tx_id: string };
let deposit: { id: number; merchant_tx_id: string };

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  A = await gw.createMerchant({ name: 'Hot A' });
  B = await gw.createMerchant({ name: 'Hot B' });
  await gw.topUp(A.id, 1000);
  const listings = (await gw.merchant(A.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as { id: string }[];
  const p = await gw.merchant(A.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', asset_id: listings[0]!.id, merchant_tx_id: 'hot-p' });
  expect(p.status).toBe(200);
  purchase = { id: p.body.data.id, merchant_tx_id: 'hot-p' };
  const d = await activeDeposit(gw, A.api_key);
  deposit = { id: d.id, merchant_tx_id: d.merchant_tx_id };
  // One connection: the prepared statements below are this session's.
  pool = createPool(gw.databaseUrl, 1);
  db = createDb(pool);
});
afterAll(async () => {
  await db?.destroy();
  await gw?.stop();
});

const pick = (row: Record<string, unknown>, cols: readonly string[]) => Object.fromEntries(cols.map((c) => [c, row[c]]));

describe('hot reads', () => {
  it('answer what the general queries answer, by id, by merchant_tx_id and by both', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await getBalance(db, A.id)).toEqual({ available: 1_000_000 - (await findPurchase(db, A.id, { id: purchase.id }))!.amount, hold: 0 });
      for (const by of [{ id: purchase.id }, { merchantTxId: purchase.merchant_tx_id }, { id: purchase.id, merchantTxId: purchase.merchant_tx_id }]) {
        expect(await findPurchaseWire(db, A.id, by)).toEqual(pick((await findPurchase(db, A.id, by))!, PURCHASE_WIRE_COLUMNS));
      }
      for (const by of [{ id: deposit.id }, { merchantTxId: deposit.merchant_tx_id }, { id: deposit.id, merchantTxId: deposit.merchant_tx_id }]) {
        expect(await findDepositStatus(db, A.id, by)).toEqual(pick((await findMerchantDeposit(db, A.id, by))!, DEPOSIT_STATUS_COLUMNS));
      }
    }
  });

  it('find nothing of another merchant (and nothing for a mismatched id and merchant_tx_id)', async () => {
    expect(await findPurchaseWire(db, B.id, { id: purchase.id })).toBeUndefined();
    expect(await findPurchaseWire(db, B.id, { merchantTxId: purchase.merchant_tx_id })).toBeUndefined();
    expect(await findDepositStatus(db, B.id, { id: deposit.id })).toBeUndefined();
    expect(await findDepositStatus(db, B.id, { merchantTxId: deposit.merchant_tx_id })).toBeUndefined();
    expect(await findDepositStatus(db, A.id, { id: deposit.id, merchantTxId: 'other' })).toBeUndefined();
    expect(await getBalance(db, 987654)).toBeUndefined();
  });

  it('run as named prepared statements of the connection; other statements stay unnamed', async () => {
    await getBalance(db, A.id);
    await findPurchaseWire(db, A.id, { id: purchase.id });
    await findDepositStatus(db, A.id, { id: deposit.id });
    const r = await pool.query<{ name: string }>('select name from pg_prepared_statements order by name');
    const names = r.rows.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['balance', 'purchase_wire_by_id', 'purchase_wire_by_tx', 'purchase_wire_by_id_tx', 'deposit_status_by_id', 'deposit_status_by_tx', 'deposit_status_by_id_tx']));
    expect(names.every((n) => /^(balance|purchase_wire_|deposit_status_)/.test(n))).toBe(true);
  });

  it('read the same inside a transaction (through Kysely) on a connection that prepared them directly', async () => {
    const direct = await getBalance(db, A.id);
    const inTrx = await db.transaction().execute(async (trx) => {
      await trx.selectFrom('balances').select('available').where('merchant_id', '=', A.id).forUpdate().execute();
      return getBalance(trx, A.id);
    });
    expect(inTrx).toEqual(direct);
    const r = await pool.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where name = 'balance'");
    expect(r.rows[0].n).toBe(1);
  });

  it('over HTTP: the status reads answer 404 for another merchant', async () => {
    expect((await gw.merchant(B.api_key, 'GET', `/purchase/status?id=${purchase.id}`)).status).toBe(404);
    expect((await gw.merchant(B.api_key, 'GET', `/deposit/status?id=${deposit.id}`)).status).toBe(404);
    expect((await gw.merchant(A.api_key, 'GET', `/purchase/status?id=${purchase.id}`)).body.data).toMatchObject({ id: purchase.id, merchant_tx_id: 'hot-p' });
    expect((await gw.merchant(A.api_key, 'GET', `/deposit/status?id=${deposit.id}`)).body.data).toMatchObject({ id: deposit.id, status: 'active' });
  });
});
