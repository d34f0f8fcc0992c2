// Retention (issue 26) against the real database: what is past its cutoff goes, in batches of
// RETENTION_BATCH statements that skip locked rows; recent rows and the money records stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createDb, createPool, type Db } from '../../src/db/database.js';
import { pruneAll, type RetentionConfig } from '../../src/modules/retention/retention-service.js';
import { freshDatabase } from '../helpers.js';

let pool: pg.Pool;
let db: Db;
let url: string;
let merchantId: number;

const config = (batchSize = 1000): RetentionConfig => {
  const c = loadConfig({ RETENTION_BATCH: String(batchSize) });
  return { retention: c.retention, webhookRetentionDays: c.webhookRetentionDays, platform: c.platform };
};
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[];
const count = async (table: string, where = 'true') => Number((await q<{ n: string }>(`select count(*) as n from ${table} where ${where}`))[0].n);

beforeAll(async () => {
  url = await freshDatabase();
  pool = createPool(url, 4);
  db = createDb(pool);
  [{ id: merchantId }] = await q<{ id: number }>(
    `insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('m', 'h', 'p', 's') returning id::int`,
  );
});
afterAll(async () => {
  await db.destroy();
});

describe('retention', () => {
  it('prunes old rows of every kind in batches, keeps recent rows and never touches money', async () => {
    const old = `now() - interval '400 days'`;
    // Money records, all a year old: a completed deposit, a purchase, a top-up, ledger entries, a withdrawal.
    await q(`insert into balances (merchant_id, available, hold) values ($1, 1000, 0)`, [merchantId]);
    await q(`insert into top_ups (merchant_id, amount, reference, created_at) values ($1, 1000, 'r', ${old})`, [merchantId]);
    await q(`insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, created_at)
             values ($1, 'topup:1', 'topup', 1000, 0, 1000, 0, ${old})`, [merchantId]);
    await q(`insert into withdrawals (merchant_id, amount, status, created_at) values ($1, 1, 'completed', ${old})`, [merchantId]);
    await q(`insert into deposits (merchant_id, flow, status, game, amount, created_at, updated_at) values ($1, 'inventory', 'completed', 'csgo', 500, ${old}, ${old})`, [merchantId]);
    await q(`insert into purchases (merchant_id, status, game, partner, token, platform_id, amount, created_at, updated_at)
             values ($1, 'completed', 'csgo', 12345678, 'abcdefgh', '1', 100, ${old}, ${old})`, [merchantId]);
    // Drafts: one expired 10 days ago (goes), one 1 day ago (kept: DRAFT_RETENTION_DAYS 7).
    const [draftOld] = await q<{ id: string }>(`insert into deposits (merchant_id, flow, status, game, quote_expires_at, created_at)
             values ($1, 'hash_name', 'new', 'csgo', now() - interval '10 days', now() - interval '10 days') returning id`, [merchantId]);
    const [draftNew] = await q<{ id: string }>(`insert into deposits (merchant_id, flow, status, game, quote_expires_at)
             values ($1, 'hash_name', 'new', 'csgo', now() - interval '1 day') returning id`, [merchantId]);
    // Status history: 2 500 rows a year old, then 10 recent ones (the triggers above wrote some recent ones too).
    await q(`delete from record_status_history`);
    await q(`insert into record_status_history (kind, record_id, merchant_id, to_status, at)
             select 'purchase', g, $1, 'completed', ${old} from generate_series(1, 2500) g`, [merchantId]);
    await q(`insert into record_status_history (kind, record_id, merchant_id, to_status, at)
             select 'purchase', g, $1, 'completed', now() from generate_series(1, 10) g`, [merchantId]);
    // Inventory snapshots, sessions, sandbox rows, exhausted events, job history: one old, one recent each.
    await q(`insert into inventory_snapshots (merchant_id, game, partner, items, expires_at) values
             ($1, 'csgo', 1, '[]', now() - interval '10 days'), ($1, 'csgo', 2, '[]', now() + interval '5 minutes')`, [merchantId]);
    const [{ id: userId }] = await q<{ id: number }>(`insert into dashboard_users (merchant_id, email, role) values ($1, 'a@b.c', 'owner') returning id::int`, [merchantId]);
    await q(`insert into dashboard_sessions (id_hash, user_id, csrf_token, expires_at) values
             ('old', $1, 'c', now() - interval '40 days'), ('revoked', $1, 'c', now() + interval '1 day'), ('live', $1, 'c', now() + interval '1 day')`, [userId]);
    await q(`update dashboard_sessions set revoked_at = now() - interval '31 days' where id_hash = 'revoked'`);
    await q(`insert into sandbox_trades (trade_offer_id, offer_kind, record_id, bot_id, accepted_at) values
             ('t-old', 'purchase', 1, 1, ${old}), ('t-new', 'purchase', 2, 1, now())`);
    await q(`insert into sandbox_purchase_offers (purchase_id, trade_offer_id, bot_id, expires_at, created_at) values
             (1, 'o1', 1, ${old}, ${old}), (2, 'o2', 1, now(), now())`);
    await q(`insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state, attempts, last_attempt_at) values
             ($1, 'purchase', 1, 'completed', '{}', 'http://x', 'exhausted', 8, now() - interval '31 days'),
             ($1, 'purchase', 2, 'completed', '{}', 'http://x', 'exhausted', 8, now() - interval '1 day')`, [merchantId]);
    await q(`insert into job_outbox_failed (id, task, payload, preserve_run_at, error, failed_at) values
             (1, 't', '{}', false, 'e', now() - interval '15 days'), (2, 't', '{}', false, 'e', now())`);

    const run = await pruneAll(db, config(1000));

    expect(run.deleted.status_history).toBe(2500);
    // Batches of 1000: 1000, 1000, then 500 deleted of the 510 taken (the recent rows stop the walk).
    expect(run.batchesOf.status_history).toBe(3);
    expect(await count('record_status_history', `at < now() - interval '1 day'`)).toBe(0);
    expect(await count('record_status_history', `kind = 'purchase' and at > now() - interval '1 day'`)).toBeGreaterThanOrEqual(10);
    expect(run.deleted.drafts).toBe(1);
    expect(await count('deposits', `id = ${draftOld.id}`)).toBe(0);
    expect(await count('record_status_history', `kind = 'deposit' and record_id = ${draftOld.id}`)).toBe(0);
    expect(await count('deposits', `id = ${draftNew.id}`)).toBe(1);
    expect(await count('inventory_snapshots')).toBe(1);
    expect((await q<{ id_hash: string }>(`select id_hash from dashboard_sessions`)).map((r) => r.id_hash)).toEqual(['live']);
    expect((await q<{ trade_offer_id: string }>(`select trade_offer_id from sandbox_trades`)).map((r) => r.trade_offer_id)).toEqual(['t-new']);
    expect(await count('sandbox_purchase_offers')).toBe(1);
    expect(await count('webhook_events')).toBe(1);
    expect(await count('job_outbox_failed')).toBe(1);
    // The money stays, however old.
    expect(await count('ledger_entries')).toBe(1);
    expect(await count('top_ups')).toBe(1);
    expect(await count('withdrawals')).toBe(1);
    expect(await count('balances')).toBe(1);
    expect(await count('deposits', `status = 'completed'`)).toBe(1);
    expect(await count('purchases')).toBe(1);

    // A second run finds nothing more.
    const again = await pruneAll(db, config(1000));
    expect(Object.values(again.deleted).every((n) => n === 0)).toBe(true);
  });

  it('skips rows another transaction holds instead of waiting for them, and 0 days keeps a kind', async () => {
    await q(`delete from record_status_history`);
    await q(`insert into record_status_history (kind, record_id, merchant_id, to_status, at)
             select 'deposit', g, $1, 'completed', now() - interval '400 days' from generate_series(1, 50) g`, [merchantId]);
    const [{ id: lockedId }] = await q<{ id: string }>(`select min(id) as id from record_status_history`);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from record_status_history where id = $1 for update', [lockedId]);
      const kept = loadConfig({ STATUS_HISTORY_DAYS: '0' });
      const none = await pruneAll(db, { retention: kept.retention, webhookRetentionDays: 30, platform: 'sandbox' }, ['status_history']);
      expect(none.deleted.status_history).toBeUndefined();
      const run = await pruneAll(db, config(20), ['status_history']);
      expect(run.deleted.status_history).toBe(49);
      await holder.query('commit');
    } finally {
      await holder.end();
    }
    expect((await q<{ id: string }>(`select id from record_status_history`)).map((r) => r.id)).toEqual([lockedId]);
  });

  it('a run whose stop has come deletes nothing more (stopped), and the next run takes it all', async () => {
    await q(`delete from record_status_history`);
    await q(`insert into record_status_history (kind, record_id, merchant_id, to_status, at)
             select 'deposit', g, $1, 'completed', now() - interval '400 days' from generate_series(1, 50) g`, [merchantId]);
    const stop = new AbortController();
    stop.abort(); // as the job's abortSignal does at a stop
    const cut = await pruneAll(db, config(20), ['status_history'], stop.signal);
    expect(cut.stopped).toBe(true);
    expect(cut.batches).toBe(0);
    expect(await count('record_status_history')).toBe(50);
    const rest = await pruneAll(db, config(20), ['status_history']);
    expect(rest.stopped).toBe(false);
    expect(rest.batches).toBe(3); // 20 + 20 + 10, no pause after the last
    expect(rest.deleted.status_history).toBe(50);
    expect(await count('record_status_history')).toBe(0);
  });
});
