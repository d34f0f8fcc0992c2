// The data of `npm run bench:seed-year` (bench/seed-year.ts), as a function so that tests can grow
// a database the same way at a small scale (test/trust/grown-plans.test.ts). See seed-year.ts for
// what is generated and how.
import type pg from 'pg';
import { WEBHOOK_DEPOSIT_STATUSES, WEBHOOK_PURCHASE_STATUSES } from '../src/modules/webhooks/webhook-schemas.js';

/** A SQL list of fixed status names (our own constants, not input). */
const inList = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');

export const MERCHANTS = 100;

/** The tables the generator fills: their secondary indexes are dropped for the load, rebuilt after. */
export const TABLES = [
  'merchants', 'balances', 'top_ups', 'deposits', 'deposit_items', 'deposit_quotes', 'purchases', 'listings',
  'ledger_entries', 'record_status_history', 'webhook_events', 'webhook_attempts',
];

export interface SeedOptions {
  scale: number;
  /** Webhook events are written for the records of the last this many days (1..365). */
  webhookDays: number;
  /** ANALYZE at the end (tests leave the statistics of the empty database to check plans on stale ones). */
  analyze?: boolean;
  log?: (msg: string) => void;
}

export interface SeedTiming {
  step: string;
  ms: number;
  rows?: number;
}

export const countsOf = (scale: number) => ({
  D: Math.max(100, Math.round(8_400_000 * scale)),
  P: Math.max(100, Math.round(6_400_000 * scale)),
  Q: Math.max(10, Math.round(1_600_000 * scale)),
});

/** Fills an empty, migrated gateway database on `c` (a superuser's connection); returns the steps' timings. */
export async function seedYear(c: pg.ClientBase, opts: SeedOptions): Promise<{ timings: SeedTiming[]; indexes: number }> {
  const { scale, webhookDays } = opts;
  const log = opts.log ?? (() => {});
  const { D, P, Q } = countsOf(scale);
  const timings: SeedTiming[] = [];
  const q = (text: string, params: unknown[] = []) => c.query(text, params);
  const step = async (name: string, text: string, params: unknown[] = []) => {
    const t = Date.now();
    const r = await q(text, params);
    const ms = Date.now() - t;
    timings.push({ step: name, ms, rows: r.rowCount ?? undefined });
    log(`${name}: ${r.rowCount ?? ''} rows in ${(ms / 1000).toFixed(1)} s`);
    return r;
  };
  const existing = Number((await q('select count(*) as n from ledger_entries')).rows[0].n);
  if (existing > 0) throw new Error('the database already has ledger entries: seed-year fills an empty gateway database');
  log(`scale ${scale}: ${MERCHANTS} merchants, ${D} deposits, ${P} purchases, ${Q} drafts; webhook events of the last ${webhookDays} days`);
  await q(`set session_replication_role = replica`);
  await q(`set synchronous_commit = off`);
  await q(`set work_mem = '256MB'`);
  await q(`set maintenance_work_mem = '512MB'`);
  // Secondary indexes off during the load (kept: primary keys and unique constraints).
  const idx = await q(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
       from pg_index i join pg_class t on t.oid = i.indrelid
      where t.relname = any($1) and t.relnamespace = 'public'::regnamespace
        and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`,
    [TABLES],
  );
  for (const r of idx.rows) await q(`drop index ${r.name}`);
  log(`${idx.rowCount} secondary indexes dropped for the load`);

  // The year: t0 = a year ago; row g of n happens at t0 + g/n of the year (ids grow with time).
  await q(`create temp table seed_params as select now() - interval '365 days' as t0, now() as t1`);
  const at = (g: string, n: number) => `(select t0 from seed_params) + (${g}::float8 / ${n}) * interval '365 days'`;
  // u(x, salt): a uniform [0,1) from a hash (deterministic, so parent and child rows agree).
  const u = (x: string, salt: number) => `((hashint8extended(${x}::bigint, ${salt}) & 2147483647)::float8 / 2147483648)`;
  const merchantOf = (x: string) => `(select min(id) from merchants where name like 'seed-year %') + least(${MERCHANTS - 1}, floor(power(${MERCHANTS + 1}, ${u(x, 1)} ^ 2))::int - 1)`;
  const gameOf = (x: string) => `(case when ${u(x, 2)} < 0.70 then 'csgo' when ${u(x, 2)} < 0.85 then 'rust' when ${u(x, 2)} < 0.95 then 'dota2' else 'tf2' end)`;
  // A price in mills: ~$1 to ~$1 100, most under $50.
  const priceOf = (x: string) => `(exp(${u(x, 3)} * 7) * 1000)::bigint`;

  await step('merchants', `
    insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret, webhook_url)
    select 'seed-year ' || m, encode(sha256(convert_to('sk_seedyear_' || m || '_0123456789abcdef', 'UTF8')), 'hex'),
           'sk_seedyear_', md5('secret' || m), 'https://merchant-' || m || '.example/webhooks'
      from generate_series(1, ${MERCHANTS}) m`);
  const [{ base }] = (await q(`select nextval('record_ids') as base`)).rows as { base: string }[];
  const b = Number(base);
  await q(`select setval('record_ids', $1)`, [b + D + P + Q + 1]);
  const bot = (await q(`select min(id) as id from bots`)).rows[0].id as string | null;

  // Deposits: final statuses as the flows leave them; csgo deposits of the last 7 days are still in hold.
  await step('deposits', `
    insert into deposits (id, merchant_id, merchant_tx_id, flow, status, game, partner, token, platform_id, amount, bot_id,
                          trade_offer_id, fail_reason, created_at, updated_at)
    select id, m, 'dep-' || g, case when ${u('g', 4)} < 0.8 then 'inventory' else 'hash_name' end, st, game,
           10000000 + (${u('g', 5)} * 5000000)::int, 'abcdefgh', (76561197960265728 + 10000000 + (${u('g', 5)} * 5000000)::int)::text,
           case when st in ('failed', 'canceled') and ${u('g', 6)} < 0.5 then 0 else amount end, ${bot ?? 'null'},
           case when st <> 'failed' then (5000000000 + g)::text end,
           case st when 'failed' then 'service_unavailable' when 'canceled' then 'canceled_by_user' when 'reverted' then 'user_reverted' end,
           t, t + interval '5 minutes'
      from (select g, ${b} + g as id, ${merchantOf('g')} as m, ${gameOf('g')} as game, ${at('g', D)} as t,
                   ${priceOf('g')} * (1 + (${u('g', 7)} * 2.2)::int) as amount,
                   case when ${u('g', 8)} < 0.08 then 'failed' when ${u('g', 8)} < 0.16 then 'canceled' when ${u('g', 8)} < 0.17 then 'reverted'
                        when ${at('g', D)} > now() - interval '7 days' and ${gameOf('g')} = 'csgo' then 'hold' else 'completed' end as st
              from generate_series(1, ${D}) g) s`);
  // Items: 1–3 per deposit, the amount split between them (the last takes the remainder).
  await step('deposit_items', `
    insert into deposit_items (deposit_id, asset_id, market_hash_name, price, original_price, game, partner, image_url, exterior, rarity)
    select d.id, (d.id * 4 + i)::text, (array['AK-47 | Redline (Field-Tested)', 'AWP | Asiimov (Field-Tested)', 'M4A4 | Howl (Minimal Wear)',
                   'Glock-18 | Fade (Factory New)', 'USP-S | Kill Confirmed (Minimal Wear)', 'Desert Eagle | Blaze (Factory New)'])[1 + (d.id + i) % 6],
           case when i = k then d.amount - (d.amount / k) * (k - 1) else d.amount / k end, d.amount / k, d.game, d.partner,
           'https://community.cloudflare.steamstatic.com/economy/image/seed', 'Field-Tested', 'Covert'
      from (select id, amount, game, partner, 1 + (${u('id', 7)} * 2.2)::int as k from deposits where merchant_tx_id like 'dep-%') d,
           generate_series(1, d.k) i`);
  // get-prices drafts (never committed) with their packed quotes (24 bytes a line).
  await step('drafts', `
    insert into deposits (id, merchant_id, flow, status, game, amount, quote_expires_at, created_at, updated_at)
    select ${b + D + P} + g, ${merchantOf('g + 7777777')}, 'hash_name', 'new', ${gameOf('g')}, 0, ${at('g', Q)} + interval '5 minutes', ${at('g', Q)}, ${at('g', Q)}
      from generate_series(1, ${Q}) g`);
  await step('deposit_quotes', `
    insert into deposit_quotes (deposit_id, packed, price_version)
    select id, decode(repeat('00', 24 * (1 + (id % 3)::int)), 'hex'), 1 from deposits where status = 'new'`);
  await step('purchases', `
    insert into purchases (id, merchant_id, merchant_tx_id, status, fail_reason, game, partner, token, platform_id, amount,
                           listing_id, item_name, item_price, item_image_url, item_asset_id, bot_id, trade_offer_id,
                           created_at, updated_at, dispatch_attempts, dispatch_next_at)
    select id, m, 'pur-' || g, st,
           case st when 'failed' then 'provider_unavailable' when 'canceled' then 'buyer_too_slow' when 'reverted' then 'user_reverted' end,
           game, 10000000 + (${u('g', 15)} * 5000000)::int, 'abcdefgh', (76561197960265728 + 10000000 + (${u('g', 15)} * 5000000)::int)::text,
           amount, to_hex(id), 'AK-47 | Redline (Field-Tested)', amount, 'https://community.cloudflare.steamstatic.com/economy/image/seed',
           (9000000000 + g)::text, ${bot ?? 'null'}, case when st <> 'failed' then (7000000000 + g)::text end, t, t + interval '2 minutes', 1, '-infinity'
      from (select g, ${b + D} + g as id, ${merchantOf('g + 99999999')} as m, ${gameOf('g + 5')} as game, ${at('g', P)} as t,
                   ${priceOf('g + 11')} as amount,
                   case when ${u('g', 16)} < 0.10 then 'failed' when ${u('g', 16)} < 0.17 then 'canceled' when ${u('g', 16)} < 0.18 then 'reverted'
                        when ${at('g', P)} > now() - interval '7 days' and ${gameOf('g + 5')} = 'csgo' then 'hold' else 'completed' end as st
              from generate_series(1, ${P}) g) s`);
  // GET /purchase's kept counts (migration 067; its trigger is off during the load).
  await step('purchase_counts', `
    insert into purchase_counts (merchant_id, status, n, base)
    select merchant_id, status, count(*), true from purchases where merchant_tx_id like 'pur-%' group by merchant_id, status
    on conflict (merchant_id, status) where base do update set n = purchase_counts.n + excluded.n`);
  // The listing each delivered purchase bought, sold (canceled and failed ones went back on sale, bought again later).
  await step('listings', `
    insert into listings (id, game, name, base_price, image_url, asset_id, source, source_ref, status, reserved_by, created_at, updated_at)
    select listing_id, game, item_name, item_price, item_image_url, item_asset_id, 'deposit', 'seed-year', 'sold', id, created_at - interval '1 day', created_at
      from purchases where merchant_tx_id like 'pur-%' and status in ('completed', 'hold', 'reverted')`);

  // The ledger: every movement the flows make, in time order per merchant, with running balances.
  await step('top_ups', `
    insert into top_ups (merchant_id, amount, reference, created_at)
    select m.id, coalesce(sum(p.amount), 0) + 1000000, 'seed-year', (select t0 from seed_params) - interval '1 day'
      from merchants m left join purchases p on p.merchant_id = m.id where m.name like 'seed-year %' group by m.id`);
  await step('ledger_entries', `
    insert into ledger_entries (merchant_id, key, kind, available_delta, hold_delta, available_after, hold_after, ref_type, ref_id, created_at)
    select merchant_id, key, kind, a, h,
           sum(a) over w, sum(h) over w, ref_type, ref_id, t
      from (
        select merchant_id, 'topup:seed-year:' || id as key, 'topup' as kind, amount as a, 0::bigint as h, 'top_up' as ref_type, id as ref_id, created_at as t
          from top_ups where reference = 'seed-year'
        union all
        select merchant_id, 'deposit:' || id || ':hold', 'deposit_hold', 0, amount, 'deposit', id, created_at + interval '1 minute'
          from deposits where merchant_tx_id like 'dep-%' and game in ('csgo', 'rust') and status in ('completed', 'hold', 'reverted')
        union all
        select merchant_id, 'deposit:' || id || ':release', 'deposit_release', amount, -amount, 'deposit', id,
               created_at + case game when 'csgo' then interval '7 days' else interval '1 hour' end
          from deposits where merchant_tx_id like 'dep-%' and game in ('csgo', 'rust') and status = 'completed'
        union all
        select merchant_id, 'deposit:' || id || ':revert', 'deposit_revert', 0, -amount, 'deposit', id, created_at + interval '2 days'
          from deposits where merchant_tx_id like 'dep-%' and game in ('csgo', 'rust') and status = 'reverted'
        union all
        select merchant_id, 'deposit:' || id || ':credit', 'deposit_credit', amount, 0, 'deposit', id, created_at + interval '1 minute'
          from deposits where merchant_tx_id like 'dep-%' and game in ('dota2', 'tf2') and status = 'completed'
        union all
        select merchant_id, 'purchase:' || id || ':reserve', 'purchase_reserve', -amount, 0, 'purchase', id, created_at
          from purchases where merchant_tx_id like 'pur-%'
        union all
        select merchant_id, 'purchase:' || id || ':refund', 'purchase_refund', amount, 0, 'purchase', id, updated_at
          from purchases where merchant_tx_id like 'pur-%' and status in ('failed', 'canceled', 'reverted')
      ) e
    window w as (partition by merchant_id order by t, key)
    order by t, key`);
  await q(`select setval('ledger_entries_id_seq', (select max(id) from ledger_entries))`);
  await q(`select setval('top_ups_id_seq', (select max(id) from top_ups))`);
  await step('balances', `
    insert into balances (merchant_id, available, hold)
    select merchant_id, sum(available_delta), sum(hold_delta) from ledger_entries group by merchant_id
    on conflict (merchant_id) do update set available = excluded.available, hold = excluded.hold`);

  // Status history: each record's path through its machine.
  const path = (table: string, kind: string, like: string) => `
    select '${kind}' as kind, r.id as record_id, r.merchant_id, s.from_status, s.to_status,
           case when s.last then r.fail_reason end as fail_reason, r.created_at + s.after as at
      from ${table} r,
           lateral (values
             (null::text, 'pending'::text, interval '0', false, true),
             ('pending', 'active', interval '2 seconds', false, r.status <> 'failed'),
             ('active', 'hold', interval '1 minute', r.status = 'hold', r.status in ('hold', 'reverted') or (r.status = 'completed' and r.game in ('csgo', 'rust'))),
             (case when r.status = 'failed' then 'pending' when r.status = 'canceled' then 'active' else 'hold' end, r.status, interval '2 days', true,
              r.status in ('failed', 'canceled', 'reverted') or (r.status = 'completed' and r.game in ('csgo', 'rust'))),
             ('active', 'completed', interval '1 minute', true, r.status = 'completed' and r.game not in ('csgo', 'rust'))
           ) s(from_status, to_status, after, last, present)
     where r.merchant_tx_id like '${like}' and s.present`;
  // One statement for both kinds, in time order: ids grow with time, as the triggers write them.
  await step('status history', `
    insert into record_status_history (kind, record_id, merchant_id, from_status, to_status, fail_reason, at)
    select * from (${path('deposits', 'deposit', 'dep-%')} union all ${path('purchases', 'purchase', 'pur-%')}) h
     order by h.at`);

  // Webhook events: one per status change after creation, delivered (a few after retries,
  // a few exhausted), for the records of the last --webhook-days days.
  await step('webhook_events', `
    insert into webhook_events (merchant_id, kind, record_id, status, payload, target_url, state, attempts, max_attempts,
                                last_attempt_at, last_status_code, delivered_at, created_at, webhook_id)
    select h.merchant_id, h.kind, h.record_id, h.to_status,
           jsonb_build_object('id', h.record_id, 'status', h.to_status, 'merchant_tx_id', h.kind || '-' || h.record_id,
                              'amount', 12.5, 'fail_reason', h.fail_reason, 'last_update_at', h.at),
           'https://merchant-' || (h.merchant_id % 100) || '.example/webhooks',
           case when ${u('h.id', 20)} < 0.003 then 'exhausted' else 'delivered' end,
           case when ${u('h.id', 20)} < 0.003 then 8 when ${u('h.id', 20)} < 0.03 then 2 else 1 end, 8,
           h.at + interval '1 second', case when ${u('h.id', 20)} < 0.003 then 500 else 200 end,
           case when ${u('h.id', 20)} >= 0.003 then h.at + interval '1 second' end, h.at, md5(h.id::text)
      from record_status_history h
     where h.from_status is not null and h.at > now() - make_interval(days => ${webhookDays})
       and (h.kind = 'deposit' and h.to_status in (${inList(WEBHOOK_DEPOSIT_STATUSES)}) or h.kind = 'purchase' and h.to_status in (${inList(WEBHOOK_PURCHASE_STATUSES)}))
     order by h.id`);
  await step('webhook_attempts', `
    insert into webhook_attempts (event_id, attempt, attempted_at, target_url, status_code, latency_ms, error, response_excerpt)
    select e.id, a, e.created_at + (a - 1) * interval '5 seconds', e.target_url,
           case when a < e.attempts or e.state = 'exhausted' then 500 else 200 end, 20 + (e.id % 200)::int,
           null, case when a < e.attempts or e.state = 'exhausted' then 'internal error' else 'ok' end
      from webhook_events e, generate_series(1, e.attempts) a
     where e.target_url like 'https://merchant-%'`);

  await q(`set session_replication_role = origin`);
  // The foreign keys were not checked during the load (triggers off): prove them now.
  const fks = await q(`
    select k.conname, k.conrelid::regclass::text as child, a.attname as col, k.confrelid::regclass::text as parent, b.attname as pcol
      from pg_constraint k
      join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
      join pg_attribute b on b.attrelid = k.confrelid and b.attnum = k.confkey[1]
     where k.contype = 'f' and cardinality(k.conkey) = 1 and k.conrelid::regclass::text = any($1)`, [TABLES]);
  for (const fk of fks.rows) {
    const bad = await q(`select count(*) as n from ${fk.child} c where c.${fk.col} is not null and not exists (select 1 from ${fk.parent} p where p.${fk.pcol} = c.${fk.col})`);
    if (Number(bad.rows[0].n) > 0) throw new Error(`foreign key ${fk.conname}: ${bad.rows[0].n} rows of ${fk.child} without their ${fk.parent}`);
  }
  log(`${fks.rowCount} foreign keys hold`);
  for (const r of idx.rows) {
    const t = Date.now();
    await q(r.def);
    timings.push({ step: `index ${r.name}`, ms: Date.now() - t });
  }
  log(`${idx.rowCount} indexes rebuilt in ${(timings.filter((t) => t.step.startsWith('index ')).reduce((s, t) => s + t.ms, 0) / 1000).toFixed(1)} s`);
  const t = Date.now();
  // VACUUM as well: a year-old database has been vacuumed all along, a freshly loaded one has no
  // visibility map yet, and autovacuum then reads all of it during the first minute of a bench
  // (measured: the catalogue rows at 0.76 instead of 0.98 of their baselines while it ran).
  if (opts.analyze !== false) {
    await q('vacuum (analyze)');
    // And a checkpoint, so that a bench starts from a steady state rather than while the load's
    // dirty pages are written out. Needs superuser or pg_checkpoint; without it, said and skipped.
    await q('checkpoint').catch((err: Error) => log(`checkpoint skipped: ${err.message}`));
  }
  timings.push({ step: 'vacuum, analyze, checkpoint', ms: Date.now() - t });
  log(`vacuum, analyze and checkpoint in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  await q(`drop table seed_params`);
  return { timings, indexes: idx.rowCount ?? 0 };
}
