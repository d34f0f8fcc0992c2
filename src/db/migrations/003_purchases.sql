-- Catalogue (DESIGN 7, spec 2.6, 4.11) and purchases (spec 2.5, 3.2, 4.8–4.10).

-- ---------------------------------------------------------------------------------------------
-- Listings: one row per item the gateway can sell. The row stays after a sale (status 'sold') so
-- a purchase can still name it and a restarted sandbox seed (ON CONFLICT DO NOTHING) cannot bring
-- a sold listing back.
--
-- Price: base_price is the price before the BUYING merchant's purchase_markup; every read and
-- every sale shows/charges applyRate(base_price, merchant.purchase_markup). One catalogue, many
-- merchants with different markups.
--
-- Page: a pure function of the ID (first byte of md5(id) mod 16, plus 1), computed by the
-- database so every write path (seed, deposits, import) agrees; a walk over pages 1..16 therefore
-- never skips or repeats a listing, whatever else is added or sold meanwhile.
create table listings (
  id text primary key check (id ~ '^[0-9a-f]+$' and length(id) <= 300),
  game text not null check (game in ('csgo', 'rust', 'dota2', 'tf2')),
  name text not null check (length(name) between 1 and 512),
  base_price bigint not null check (base_price >= 0),
  image_url text not null default '',
  exterior text,
  rarity text,
  rarity_color text,
  class_id bigint,
  instance_id bigint,
  asset_id text,
  float double precision,
  paint_seed integer,
  inspect_url text,
  phase text,
  source text not null check (source in ('seed', 'deposit', 'import')),
  source_ref text,
  status text not null default 'live' check (status in ('live', 'reserved', 'sold', 'delisted')),
  reserved_by bigint,
  page smallint generated always as ((get_byte(decode(md5(id), 'hex'), 0) % 16) + 1) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index listings_page_idx on listings (game, page, id) where status = 'live';
create index listings_name_idx on listings (game, name, base_price, id) where status = 'live';
create index listings_live_idx on listings (game, id) where status = 'live';
create index listings_source_idx on listings (source, game);

-- Per (game, page): a content version (ETag), the live count (totals without count(*)) and the
-- time of the last change (the page's last_update_at). Maintained by the listings triggers.
create table catalogue_pages (
  game text not null,
  page smallint not null check (page between 1 and 16),
  version bigint not null default 0,
  live_count integer not null default 0 check (live_count >= 0),
  updated_at timestamptz not null default now(),
  primary key (game, page)
);
insert into catalogue_pages (game, page)
  select g, p from unnest(array['csgo', 'rust', 'dota2', 'tf2']) g, generate_series(1, 16) p;

-- Change feed behind GET /purchase/events. `at` is strictly increasing in commit order: every
-- writing statement takes the catalogue_clock row lock (held to commit, so catalogue writers are
-- serialised), starts a fresh millisecond after the last event (so a reader that has seen
-- millisecond M has seen every event of M) and spaces its rows one microsecond apart.
create table catalogue_events (
  id bigserial primary key,
  at timestamptz not null,
  game text not null,
  page smallint not null,
  listing_id text not null,
  type text not null check (type in ('upsert', 'remove'))
);
create index catalogue_events_at_idx on catalogue_events (at);
create index catalogue_events_game_at_idx on catalogue_events (game, at);

create table catalogue_clock (
  id integer primary key check (id = 1),
  last_event_at timestamptz not null default '-infinity',
  -- The newest pruned event: a `since` at or before it may have missed events → reset:true.
  pruned_through timestamptz not null default '-infinity'
);
insert into catalogue_clock (id) values (1);

-- Rebuild lease: while rebuilding_until is in the future, /purchase/available answers 503 with
-- Retry-After. A lease (not a flag) so a crashed instance cannot leave the catalogue closed.
create table catalogue_state (
  id integer primary key check (id = 1),
  rebuilding_until timestamptz,
  rebuild_reason text
);
insert into catalogue_state (id) values (1);

-- Statement-level triggers with transition tables: a 1000-row import batch costs one event insert
-- and one pages update, not 1000 of each.
create or replace function catalogue_after_insert() returns trigger language plpgsql as $$
declare
  base timestamptz;
  last_at timestamptz;
begin
  if not exists (select 1 from new_rows where status = 'live') then return null; end if;
  select greatest(clock_timestamp(), date_trunc('milliseconds', last_event_at) + interval '1 millisecond')
    into base from catalogue_clock where id = 1 for update;
  with ch as (
    select id, game, page, 'upsert'::text as type, 1 as delta from new_rows where status = 'live'
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

-- Whether an update of a listing is visible in the catalogue (and so versions its page and is an
-- event): it was or is live, and its status or any shown field changed. Inlined by the planner.
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

create or replace function catalogue_after_delete() returns trigger language plpgsql as $$
declare
  base timestamptz;
  last_at timestamptz;
begin
  if not exists (select 1 from old_rows where status = 'live') then return null; end if;
  select greatest(clock_timestamp(), date_trunc('milliseconds', last_event_at) + interval '1 millisecond')
    into base from catalogue_clock where id = 1 for update;
  with ch as (
    select id, game, page, 'remove'::text as type, -1 as delta from old_rows where status = 'live'
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

create trigger listings_changes_insert after insert on listings
  referencing new table as new_rows for each statement execute function catalogue_after_insert();
create trigger listings_changes_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function catalogue_after_update();
create trigger listings_changes_delete after delete on listings
  referencing old table as old_rows for each statement execute function catalogue_after_delete();

-- ---------------------------------------------------------------------------------------------
-- Purchases. The item is a snapshot (name, price, image at the time of purchase): the listing may
-- be re-priced or sold to someone else after a refund.
create table purchases (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  merchant_tx_id text,
  status text not null default 'pending'
    check (status in ('new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted')),
  fail_reason text,
  game text not null check (game in ('csgo', 'rust', 'dota2', 'tf2')),
  partner bigint not null,
  token text not null,
  platform_id text not null,
  platform_name text,
  platform_avatar_url text,
  -- The purchase amount (mills, spec 2.5): the item's price to this merchant. A purchase that failed
  -- at creation keeps the price it attempted to pay (0 when no listing was found) although nothing
  -- was reserved: no ledger entry exists for it, and refunds require `purchase:<id>:reserve`.
  amount bigint not null default 0 check (amount >= 0),
  listing_id text,
  item_name text,
  item_price bigint,
  item_image_url text,
  item_asset_id text,
  bot_id bigint,
  bot_name text,
  trade_offer_id text,
  offer_expires_at timestamptz,
  hold_end_date timestamptz,
  -- Dispatch marker: recorded (guarded on status pending) before every attempt to send the offer,
  -- so the pending watchdog never fails a purchase whose offer may be on its way.
  dispatch_attempts integer not null default 0,
  dispatch_started_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Idempotency by constraint: concurrent duplicates resolve here (ON CONFLICT), not by read-then-write.
  constraint purchases_merchant_tx_id_key unique (merchant_id, merchant_tx_id)
);
create index purchases_merchant_idx on purchases (merchant_id, id desc);
create index purchases_merchant_created_idx on purchases (merchant_id, created_at);
create index purchases_listing_idx on purchases (listing_id);

-- The sandbox platform's record of the purchase offers it sent: one per purchase, so a retried
-- dispatch (the offer went out but recording it failed) gets the same offer back, never a second
-- (a canceled one included: the platform answers with the offer it has).
create table sandbox_purchase_offers (
  purchase_id bigint primary key,
  trade_offer_id text not null,
  bot_id bigint not null,
  expires_at timestamptz not null,
  -- The gateway withdrew the offer (cancelOffer: its purchase had already failed).
  canceled_at timestamptz,
  created_at timestamptz not null default now()
);
