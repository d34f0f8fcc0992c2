// The purchase creation's keyed reads go by their unique indexes whatever the statistics say:
// ledger_apply's key check (src/db/functions/ledger_key_applied.sql) and a repeat's merchant_tx_id
// (the INSERT's unique constraint). A PL/pgSQL statement's plan is cached per connection after five
// calls; one cached while its table was empty (a fresh install, ANALYZE of empty tables) scanned the
// whole table at every later call (stop 38). Counted by the tables' sequential scans
// (pg_stat_user_tables), on one connection, with statistics taken on the empty tables and the
// tables grown since.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';

let gw: TestGateway;
let c: pg.Client;
let merchantId: number;

beforeAll(async () => {
  gw = await startTestGateway({}, { databaseUrl: await freshDatabase(), worker: false });
  merchantId = (await gw.createMerchant({ name: 'Probes' })).id;
  c = new pg.Client(gw.ctx.pool.options);
  await c.connect();
  await c.query('analyze purchases, ledger_entries'); // both empty: statistics of 0 rows
  await gw.topUp(merchantId, 1_000_000);
  await c.query(`insert into listings (id, game, name, base_price, source) select 'ab' || to_hex(g), 'csgo', 'Probe Item', 1000, 'seed' from generate_series(1, 40) g`);
});
afterAll(async () => {
  await c?.end();
  await gw?.stop();
});

let n = 0;
/** One purchase_create_batch call of two creations by name, on the test's one connection. */
async function createTwo(): Promise<void> {
  const items = [0, 1].map((i) => ({
    i, merchant_id: merchantId, merchant_tx_id: `probe-${n++}`, game: 'csgo', partner: 12345678, token: 'abcdEFGH', platform_id: '76561198000000000',
    platform_name: null, platform_avatar_url: null, at: new Date().toISOString(), name: 'Probe Item', markup: 1, max_price: null,
  }));
  const r = await c.query('select r_outcome from purchase_create_batch($1::json)', [JSON.stringify(items)]);
  expect(r.rows.map((x) => x.r_outcome)).toEqual(['created', 'created']);
}

async function seqScans(): Promise<{ purchases: number; ledger_entries: number }> {
  await c.query('select pg_stat_force_next_flush()'); // this connection's counts are flushed when it goes idle
  await c.query('select 1');
  const r = await c.query(`select relname, seq_scan::int as n from pg_stat_user_tables where relname in ('purchases', 'ledger_entries')`);
  return Object.fromEntries(r.rows.map((x) => [x.relname, x.n])) as { purchases: number; ledger_entries: number };
}

describe('keyed probes on statistics of empty tables', () => {
  it('a creation reads neither purchases nor the ledger by a sequential scan after the tables grow', async () => {
    for (let k = 0; k < 6; k++) await createTwo(); // past the five calls that decide a cached plan, tables tiny
    await c.query(`insert into purchases (merchant_id, merchant_tx_id, game, partner, token, platform_id, status)
                   select $1, 'bulk-' || g, 'csgo', 12345678, 'abcdEFGH', '76561198000000000', 'failed' from generate_series(1, 20000) g`, [merchantId]);
    await c.query(`insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after)
                   select $1, 'bulk:' || g, 'adjustment', 0, 0, 0, 0 from generate_series(1, 20000) g`, [merchantId]);
    const before = await seqScans();
    for (let k = 0; k < 6; k++) await createTwo();
    const after = await seqScans();
    expect(after.purchases - before.purchases).toBe(0);
    expect(after.ledger_entries - before.ledger_entries).toBe(0);
  });
});
