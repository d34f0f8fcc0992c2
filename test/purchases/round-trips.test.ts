// Statements per purchase creation (issue 12): a purchase that succeeds is one statement with its
// own commit (purchase_create_batch, shared with the purchases asked for at the same time), with no
// lookup of its merchant_tx_id first (the creation tells a repeat: issue 26); one that fails is
// created alone by the same function in a transaction (BEGIN, the call, the failure's webhook, COMMIT). Nothing touches
// graphile-worker (the jobs go to the outbox). Counted on the pool's clients
// (no worker runs; the relay, the catalogue stamper and the listeners are told apart by their SQL).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { salePrice } from '../../src/modules/catalogue/catalogue-views.js';
import { createCreationBatcher } from '../../src/modules/purchases/create-batcher.js';
import type { CreationInput } from '../../src/modules/purchases/create-repo.js';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { statementLog } from '../statement-log.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
let recorder: ReturnType<typeof statementLog>;

beforeAll(async () => {
  gw = await startTestGateway({}, { worker: false });
  m = await gw.createMerchant({ name: 'Counted' });
  await gw.topUp(m.id, 1_000);
  recorder = statementLog(gw.ctx.pool);
});
afterAll(async () => gw?.stop());

async function counted(body: Record<string, unknown>) {
  const { result: res, statements } = await recorder.during(() => gw.merchant(m.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', ...body }));
  return { res, statements };
}

async function liveListing() {
  const res = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true');
  return res.body.data.items[0] as { id: string; name: string; price: number };
}

describe('a purchase creation, statement by statement', () => {
  it('by asset_id with a merchant_tx_id: one statement (its own commit), no lookup first: no transaction, no graphile_worker', async () => {
    const l = await liveListing();
    const before = (await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available;
    const { res, statements } = await counted({ asset_id: l.id, merchant_tx_id: 'rt-1' });
    expect(res.body.data).toMatchObject({ status: 'pending', amount: l.price, item: { id: l.id, price: l.price } });
    expect(statements, statements.join("\n")).toHaveLength(1);
    expect(statements[0]).toMatch(/^\/\* purchases:pending \*\/\s+select r\.r_idx, r\.r_outcome, \(r\.r_purchase\)\.\* from purchase_create_batch\(/);
    expect(statements.join('\n')).not.toMatch(/graphile_worker|savepoint|pg_notify|^begin/m);
    // what it did: the debit with its ledger key, the listing reserved
    expect((await gw.merchant(m.api_key, 'GET', '/balance')).body.data.available).toBeCloseTo(before - l.price, 3);
    const id = res.body.data.id as number;
    const entry = await gw.ctx.db.selectFrom('ledger_entries').select(['key', 'available_delta']).where('ref_id', '=', id).where('ref_type', '=', 'purchase').execute();
    expect(entry).toEqual([{ key: `purchase:${id}:reserve`, available_delta: -Math.round(l.price * 1000) }]);
    expect((await gw.ctx.db.selectFrom('listings').select(['status', 'reserved_by']).where('id', '=', l.id).executeTakeFirstOrThrow())).toEqual({ status: 'reserved', reserved_by: id });
    await gw.flushJobs();
    const jobs = await sql<{ key: string; payload: unknown }>`select key, payload from graphile_worker._private_jobs where key like ${`%:${id}`} order by key`.execute(gw.ctx.db);
    // no job: the dispatcher sends pending purchases and sweeps for stuck ones (purchases/dispatcher.ts)
    expect(jobs.rows).toEqual([]);
    // the same merchant_tx_id again: the creation meets the stored one at the unique constraint
    // (its listing is reserved now, so it goes the transaction path, whose insert is refused);
    // then the stored purchase is read and answered, 200, nothing written
    const ledgerBefore = await gw.ctx.db.selectFrom('ledger_entries').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const again = await counted({ asset_id: l.id, merchant_tx_id: 'rt-1' });
    expect(again.res.status).toBe(200);
    expect(again.res.body.data).toMatchObject({ id, status: 'pending', merchant_tx_id: 'rt-1' });
    expect(again.statements.at(-1)).toMatch(/^select \* from "purchases" where "merchant_id" = \(select \$1::bigint\) and "merchant_tx_id" = \$2/);
    expect(await gw.ctx.db.selectFrom('ledger_entries').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).toEqual(ledgerBefore);
    expect(await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', m.id).where('merchant_tx_id', '=', 'rt-1').execute()).toEqual([{ id }]);
  });

  it('by name without a merchant_tx_id: one statement', async () => {
    const l = await liveListing();
    const { res, statements } = await counted({ name: l.name });
    expect(res.body.data.status).toBe('pending');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/purchase_create_batch/);
  });

  it('insufficient balance: the batch writes nothing for it; created alone, the same function stores the failure (BEGIN, the call, the webhook, COMMIT)', async () => {
    const poor = await gw.createMerchant({ name: 'Poor' });
    const l = await liveListing();
    await gw.merchant(poor.api_key, 'GET', '/balance'); // its key now cached (and its last use written)
    const { result: res, statements } = await recorder.during(() => gw.merchant(poor.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', asset_id: l.id }));
    expect(res.body.data).toMatchObject({ status: 'failed', fail_reason: 'insufficient_balance', amount: l.price });
    expect(statements[0]).toMatch(/purchase_create_batch/);
    expect(statements.slice(1, 3).map((s) => s.slice(0, 12))).toEqual(['begin', '/* purchases']);
    expect(statements[2]).toMatch(/purchase_create_batch\(/);
    expect(statements[3]).toMatch(/webhook_events/);
    expect(statements[4]).toBe('commit');
    expect(statements.join('\n')).not.toMatch(/savepoint|graphile_worker/);
    expect((await gw.ctx.db.selectFrom('ledger_entries').select('id').where('merchant_id', '=', poor.id).execute()).length).toBe(0);
    expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l.id).executeTakeFirstOrThrow()).status).toBe('live');
    expect(await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', poor.id).execute()).toHaveLength(1);
    await gw.flushJobs();
    const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs where key like ${`%:${res.body.data.id}`}`.execute(gw.ctx.db);
    expect(jobs.rows[0].n).toBe(0); // a failed purchase has no jobs (no watchdog)
  });
});

describe('sale_price (SQL) charges what salePrice (TypeScript) shows', () => {
  it('for every markup step and prices around the rounding edges', async () => {
    const markups = ['1', '0.5', '0.999999', '1.05', '1.1', '1.15', '1.333333', '2.5', '0.000001', '9.999999', '0.123457', '3.141593'];
    const bases = [0, 1, 2, 3, 5, 7, 10, 99, 100, 101, 333, 499, 500, 501, 999, 1_000, 1_001, 12_345, 99_999, 1_000_000, 123_456_789, 2 ** 40 + 1];
    for (let i = 0; i < 300; i++) bases.push(Math.floor(Math.random() * 10 ** (1 + (i % 9))));
    const pairs = markups.flatMap((mk) => bases.map((b) => [b, mk] as const));
    const r = await sql<{ base: number; markup: string; price: number }>`
      select base, markup, sale_price(base, markup::numeric::float8) as price
        from jsonb_to_recordset(${JSON.stringify(pairs.map(([base, markup]) => ({ base, markup })))}::jsonb) as x(base bigint, markup text)`.execute(gw.ctx.db);
    expect(r.rows).toHaveLength(pairs.length);
    for (const row of r.rows) expect([row.base, row.markup, row.price]).toEqual([row.base, row.markup, salePrice(row.base, { purchase_markup: row.markup })]);
  });
});

describe('purchases asked for at the same time share a batch (one statement, one commit)', () => {
  it('24 at once: fewer batch statements than purchases; each created once, with its debit; the ledger chain of available_after holds', async () => {
    const b = await gw.createMerchant({ name: 'Batched' });
    await gw.topUp(b.id, 100_000);
    const items = ((await gw.merchant(b.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string; price: number }>).slice(0, 24);
    expect(items).toHaveLength(24);
    const { result: results, statements } = await recorder.during(() =>
      Promise.all(items.map((l, i) => gw.merchant(b.api_key, 'POST', '/purchase', { partner: 12345678, token: 'abcdEFGH', game: 'csgo', asset_id: l.id, merchant_tx_id: `batch-${i}` }))),
    );
    for (const [i, r] of results.entries()) expect(r.body.data).toMatchObject({ status: 'pending', merchant_tx_id: `batch-${i}`, item: { id: items[i].id } });
    const batches = statements.filter((s) => s.includes('purchase_create_batch'));
    expect(batches.length).toBeGreaterThanOrEqual(1);
    expect(batches.length).toBeLessThan(24);
    expect(statements.filter((s) => s === 'begin')).toHaveLength(0); // no purchase took the transaction path

    const entries = await gw.ctx.db.selectFrom('ledger_entries').select(['available_delta', 'available_after']).where('merchant_id', '=', b.id).orderBy('id').execute();
    expect(entries).toHaveLength(25); // the top-up and 24 debits
    for (let i = 1; i < entries.length; i++) expect(Number(entries[i].available_after)).toBe(Number(entries[i - 1].available_after) + Number(entries[i].available_delta));
    const balance = await gw.ctx.db.selectFrom('balances').select('available').where('merchant_id', '=', b.id).executeTakeFirstOrThrow();
    expect(Number(balance.available)).toBe(Number(entries.at(-1)!.available_after));
    expect(Number(balance.available)).toBe(100_000_000 - items.reduce((s, l) => s + Math.round(l.price * 1000), 0));
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });

  it('one batch, mixed outcomes: created, a twin in the same batch, over max_price, no such item — each answered as it would be alone', async () => {
    const b = await gw.createMerchant({ name: 'Mixed' });
    await gw.topUp(b.id, 10_000);
    const [a, c, e] = (await gw.merchant(b.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string; name: string; price: number }>;
    const user = { partner: 12345678, token: 'abcdEFGH', game: 'csgo' };
    const [first, twin, over, missing, byName] = await Promise.all([
      gw.merchant(b.api_key, 'POST', '/purchase', { ...user, asset_id: a.id, merchant_tx_id: 'mix-1' }),
      gw.merchant(b.api_key, 'POST', '/purchase', { ...user, asset_id: a.id, merchant_tx_id: 'mix-1' }),
      gw.merchant(b.api_key, 'POST', '/purchase', { ...user, asset_id: c.id, max_price: Math.max(0, c.price - 0.01) }),
      gw.merchant(b.api_key, 'POST', '/purchase', { ...user, asset_id: 'no-such-asset-9' }),
      gw.merchant(b.api_key, 'POST', '/purchase', { ...user, name: e.name }),
    ]);
    expect(first.body.data).toMatchObject({ status: 'pending', item: { id: a.id } });
    expect(twin.body.data.id).toBe(first.body.data.id);
    expect(over.body.data).toMatchObject({ status: 'failed', fail_reason: 'price_changed' });
    expect(missing.body.data).toMatchObject({ status: 'failed', fail_reason: 'item_not_available' });
    expect(byName.body.data).toMatchObject({ status: 'pending', item: { name: e.name } });
    const debits = await gw.ctx.db.selectFrom('ledger_entries').select('key').where('merchant_id', '=', b.id).where('kind', '=', 'purchase_reserve').execute();
    expect(debits.map((d) => d.key).sort()).toEqual([`purchase:${first.body.data.id}:reserve`, `purchase:${byName.body.data.id}:reserve`].sort());
    expect(await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', b.id).execute()).toHaveLength(4);
  });

  it('one batch written together: two by one name get two listings, one asset twice is taken once, a committed twin reserves nothing', async () => {
    const b = await gw.createMerchant({ name: 'Together' });
    await gw.topUp(b.id, 1_000);
    await sql`insert into listings (id, game, name, base_price, image_url, source)
              values ('7a0a', 'csgo', 'Together Name', 1000, '/a.svg', 'seed'), ('7a0b', 'csgo', 'Together Name', 1200, '/b.svg', 'seed'),
                     ('7a0c', 'csgo', 'Together Asset', 2000, '/c.svg', 'seed'), ('7a0d', 'csgo', 'Together Twin', 3000, '/d.svg', 'seed'),
                     ('7a0e', 'csgo', 'Together Name', 1500, '/e.svg', 'seed')`.execute(gw.ctx.db);
    const batcher = createCreationBatcher(gw.ctx.db, { maxBatch: 8, inFlight: 1 });
    const input = (choice: { assetId: string } | { name: string }, tx: string): CreationInput => ({
      purchase: { merchant_id: b.id, merchant_tx_id: tx, game: 'csgo', partner: 12345678, token: 'abcdEFGH', platform_id: '76561198000000000', platform_name: null, platform_avatar_url: null, created_at: new Date() },
      choice: { ...choice, game: 'csgo' },
      markup: 1,
    });
    const stored = await batcher.create(input({ assetId: '7a0c' }, 'tg-stored')); // committed before the batch
    expect(stored).toMatchObject({ listing_id: '7a0c', status: 'pending' });
    const out = await Promise.all([
      batcher.create(input({ name: 'Together Name' }, 'tg-1')),
      batcher.create(input({ name: 'Together Name' }, 'tg-2')),
      batcher.create(input({ assetId: '7a0d' }, 'tg-3')),
      batcher.create(input({ assetId: '7a0d' }, 'tg-4')),
      batcher.create(input({ name: 'Together Name' }, 'tg-stored')), // its merchant_tx_id is stored: 7a0e stays live
    ]);
    const listingOf = (x: unknown) => (typeof x === 'object' && x ? (x as { listing_id: string }).listing_id : x);
    expect(out.map(listingOf)).toEqual(['7a0a', '7a0b', '7a0d', 'fallback', 'twin']);
    const ids = out.slice(0, 3).map((x) => Number((x as { id: number }).id));
    const listings = await sql<{ id: string; status: string; reserved_by: string | null }>`
      select id, status, reserved_by from listings where id like '7a0%' order by id`.execute(gw.ctx.db);
    expect(listings.rows.map((l) => [l.id, l.status, l.reserved_by === null ? null : Number(l.reserved_by)])).toEqual([
      ['7a0a', 'reserved', ids[0]], ['7a0b', 'reserved', ids[1]], ['7a0c', 'reserved', Number((stored as { id: number }).id)], ['7a0d', 'reserved', ids[2]], ['7a0e', 'live', null],
    ]);
    // Four debits (the stored one and three), each of its purchase's amount; the chain holds.
    const debits = await gw.ctx.db.selectFrom('ledger_entries').select(['key', 'available_delta']).where('merchant_id', '=', b.id).where('kind', '=', 'purchase_reserve').orderBy('id').execute();
    const purchases = await gw.ctx.db.selectFrom('purchases').select(['id', 'amount']).where('merchant_id', '=', b.id).orderBy('id').execute();
    expect(purchases).toHaveLength(4);
    expect(debits.map((d) => [d.key, Number(d.available_delta)])).toEqual(purchases.map((p) => [`purchase:${p.id}:reserve`, -Number(p.amount)]));
    expect((await gw.ctx.ledger.verify()).mismatches).toEqual([]);
  });

  it('a merchant_tx_id being created elsewhere (its advisory lock held) is not waited for by the batch: fallback, at once', async () => {
    const b = await gw.createMerchant({ name: 'InFlight' });
    await gw.topUp(b.id, 1_000);
    const [l] = (await gw.merchant(b.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string }>;
    const other = await gw.ctx.pool.connect(); // stands for the transaction path of a twin, between its lock and its commit
    try {
      await other.query('begin');
      await other.query('select pg_advisory_xact_lock(22, purchase_tx_lock_key($1, $2))', [b.id, 'in-flight-1']);
      const batcher = createCreationBatcher(gw.ctx.db, { maxBatch: 8, inFlight: 1 });
      const out = await batcher.create({
        purchase: { merchant_id: b.id, merchant_tx_id: 'in-flight-1', game: 'csgo', partner: 12345678, token: 'abcdEFGH', platform_id: '76561198000000000', platform_name: null, platform_avatar_url: null, created_at: new Date() },
        choice: { assetId: l.id, game: 'csgo' },
        markup: 1,
      });
      // It answers while the lock is still held (released only below): a wait for it would never end.
      expect(out).toBe('fallback');
      expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l.id).executeTakeFirstOrThrow()).status).toBe('live');
    } finally {
      await other.query('rollback');
      other.release();
    }
  });

  it('a batch PostgreSQL refuses as a whole is rolled back and each of its creations falls back (alone too)', async () => {
    const b = await gw.createMerchant({ name: 'Refused' });
    await gw.topUp(b.id, 1_000);
    const [l] = (await gw.merchant(b.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items as Array<{ id: string }>;
    const batcher = createCreationBatcher(gw.ctx.db, { maxBatch: 8, inFlight: 1 });
    const input = (game: string, choice: { assetId: string } | { name: string }, tx: string): CreationInput => ({
      purchase: { merchant_id: b.id, merchant_tx_id: tx, game: game as 'csgo', partner: 12345678, token: 'abcdEFGH', platform_id: '76561198000000000', platform_name: null, platform_avatar_url: null, created_at: new Date() },
      choice: { ...choice, game: game as 'csgo' },
      markup: 1,
    });
    // Test-only fault: the second creation's purchase row is refused after the first creation was
    // fully written: the statement fails as a whole.
    await sql`create function test_refuse_purchase() returns trigger language plpgsql as $$
      begin raise exception 'injected: purchase refused'; end $$`.execute(gw.ctx.db);
    await sql`create trigger test_refuse_purchase before insert on purchases for each row
      when (new.merchant_tx_id = 'refused-2') execute function test_refuse_purchase()`.execute(gw.ctx.db);
    const [l2] = (await gw.merchant(b.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items.slice(1) as Array<{ id: string }>;
    const broken = input('csgo', { assetId: l2.id }, 'refused-2');
    const [good, bad] = await Promise.all([batcher.create(input('csgo', { assetId: l.id }, 'refused-1')), batcher.create(broken)]);
    expect([good, bad]).toEqual(['fallback', 'fallback']);
    expect(await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', b.id).execute()).toHaveLength(0);
    expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l.id).executeTakeFirstOrThrow()).status).toBe('live');
    expect(await batcher.create(broken)).toBe('fallback'); // alone too: the transaction path decides
    expect((await gw.ctx.db.selectFrom('listings').select('status').where('id', '=', l2.id).executeTakeFirstOrThrow()).status).toBe('live');
    expect(await gw.ctx.db.selectFrom('purchases').select('id').where('merchant_id', '=', b.id).execute()).toHaveLength(0);
  });
});
