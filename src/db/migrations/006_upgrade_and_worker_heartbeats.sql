-- Migrations 002, 003 and 004 were edited in place after they had been applied somewhere, so a
-- database created by an earlier commit kept the old tables, triggers and functions. This brings
-- any such database to today's schema; on a database created from today's files it changes
-- nothing (every statement is idempotent); it also adds the worker heartbeats. From here on schema changes are new files only:
-- migrate.ts refuses an applied migration whose content changed.

-- 002 (f397a86): deposit items carry the user's trade key and reserve their asset while live.
do $$
begin
  if not exists (select 1 from information_schema.columns
                  where table_schema = current_schema() and table_name = 'deposit_items' and column_name = 'reserved') then
    alter table deposit_items add column game text, add column partner bigint,
      add column reserved boolean not null default false;
    update deposit_items i set game = d.game, partner = d.partner from deposits d where d.id = i.deposit_id;
    -- Live deposits of the old schema reserve their assets now (one row per asset if two clash).
    update deposit_items set reserved = true
     where id in (select distinct on (i.game, i.partner, i.asset_id) i.id
                    from deposit_items i join deposits d on d.id = i.deposit_id
                   where d.status in ('pending', 'active', 'hold') and i.asset_id is not null
                   order by i.game, i.partner, i.asset_id, i.id);
  end if;
end $$;
create unique index if not exists deposit_items_reserved_asset_key on deposit_items (game, partner, asset_id) where reserved;

-- 002 (fd8742f): the sandbox platform's record of deposit offers.
create table if not exists sandbox_deposit_offers (
  trade_offer_id text primary key,
  deposit_id bigint not null,
  bot_id bigint not null,
  expires_at timestamptz not null,
  canceled_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists sandbox_deposit_offers_deposit_idx on sandbox_deposit_offers (deposit_id);

-- 003 (bfc3b73): catalogue_clock.retained_from became pruned_through.
do $$
begin
  if exists (select 1 from information_schema.columns
              where table_schema = current_schema() and table_name = 'catalogue_clock' and column_name = 'retained_from') then
    alter table catalogue_clock rename column retained_from to pruned_through;
  end if;
  -- PostgreSQL 18 names NOT NULL constraints after the column they were created with.
  if exists (select 1 from pg_constraint where conname = 'catalogue_clock_retained_from_not_null'
                and conrelid = 'catalogue_clock'::regclass) then
    alter table catalogue_clock rename constraint catalogue_clock_retained_from_not_null to catalogue_clock_pruned_through_not_null;
  end if;
end $$;

-- 003 (d74ddb0, fd8742f): purchase dispatch marker and the sandbox record of purchase offers.
alter table purchases add column if not exists dispatch_attempts integer not null default 0;
alter table purchases add column if not exists dispatch_started_at timestamptz;
create table if not exists sandbox_purchase_offers (
  purchase_id bigint primary key,
  trade_offer_id text not null,
  bot_id bigint not null,
  expires_at timestamptz not null,
  canceled_at timestamptz,
  created_at timestamptz not null default now()
);
alter table sandbox_purchase_offers add column if not exists canceled_at timestamptz;

-- 003 (f4a6409): the 'visible change' condition as one function both trigger queries call.
create or replace function catalogue_visible_change(o listings, n listings) returns boolean
language sql immutable as $$
  select (o.status = 'live' or n.status = 'live')
    and (o.status is distinct from n.status
         or (o.name, o.base_price, o.image_url, o.exterior, o.rarity, o.rarity_color, o.class_id, o.instance_id,
             o.asset_id, o.float, o.paint_seed, o.inspect_url, o.phase)
            is distinct from
            (n.name, n.base_price, n.image_url, n.exterior, n.rarity, n.rarity_color, n.class_id, n.instance_id,
             n.asset_id, n.float, n.paint_seed, n.inspect_url, n.phase))
$$;

create or replace function catalogue_after_update() returns trigger language plpgsql as $$
declare
  base timestamptz;
  last_at timestamptz;
begin
  if not exists (
    select 1 from new_rows n join old_rows o on o.id = n.id
     where catalogue_visible_change(o, n)
  ) then return null; end if;
  select greatest(clock_timestamp(), date_trunc('milliseconds', last_event_at) + interval '1 millisecond')
    into base from catalogue_clock where id = 1 for update;
  with ch as (
    select n.id, n.game, n.page,
           case when n.status = 'live' then 'upsert' else 'remove' end as type,
           case when o.status = 'live' and n.status <> 'live' then -1
                when o.status <> 'live' and n.status = 'live' then 1 else 0 end as delta
      from new_rows n join old_rows o on o.id = n.id
     where catalogue_visible_change(o, n)
  ), ev as (
    insert into catalogue_events (at, game, page, listing_id, type)
    select base + (row_number() over (order by id) - 1) * interval '1 microsecond', game, page, id, type from ch
    returning at
  ), pg as (
    update catalogue_pages p
       set version = p.version + 1, live_count = p.live_count + d.delta, updated_at = date_trunc('milliseconds', base)
      from (select game, page, sum(delta)::int as delta from ch group by game, page) d
     where p.game = d.game and p.page = d.page
  )
  select max(at) into last_at from ev;
  update catalogue_clock set last_event_at = last_at where id = 1;
  return null;
end $$;

-- 004 (74fb6f4, ae1a80b): webhook retry bookkeeping, the attempt lease, redelivery generations,
-- the delivery log and the sweeper/retention indexes.
alter table webhook_events add column if not exists max_attempts integer;
alter table webhook_events add column if not exists next_attempt_at timestamptz;
alter table webhook_events add column if not exists lease_until timestamptz;
alter table webhook_events add column if not exists redeliver_generation integer not null default 0;
alter table webhook_events add column if not exists last_status_code integer;
alter table webhook_events add column if not exists last_error text;
create index if not exists webhook_events_pending_idx on webhook_events (kind, record_id, id) where state = 'pending';
create index if not exists webhook_events_lease_idx on webhook_events (lease_until) where state = 'pending' and lease_until is not null;
create index if not exists webhook_events_overdue_idx on webhook_events ((coalesce(next_attempt_at, created_at)))
  where state = 'pending' and lease_until is null;
create index if not exists webhook_events_delivered_idx on webhook_events (delivered_at) where state = 'delivered';
create table if not exists webhook_attempts (
  id bigserial primary key,
  event_id bigint not null references webhook_events(id) on delete cascade,
  attempt integer not null,
  attempted_at timestamptz not null default now(),
  target_url text not null,
  status_code integer,
  latency_ms integer not null default 0,
  error text,
  response_excerpt text,
  unique (event_id, attempt)
);

-- Worker liveness (src/db/job-locks.ts): every instance's job workers check in here, so the jobs
-- of a worker that died are unlocked after JOB_LOCK_TIMEOUT_MS instead of graphile-worker's four
-- hours.
create table if not exists worker_heartbeats (
  worker_id text primary key,
  instance_id text not null,
  heartbeat_at timestamptz not null default now()
);
