-- Deposits (spec 2.1, 3.1): bots, deposit records (drafts, intents and committed trades), their
-- items, hash-name quotes and inventory pricing snapshots.

-- The bots that send and receive trade offers. The sandbox seeds a small named pool.
create table bots (
  id bigserial primary key,
  name text not null unique,
  platform_id text not null unique,
  enabled boolean not null default true,
  created_at timestamptz not null default now()
);
insert into bots (name, platform_id) values
  ('Sandbox Bot Alpha', '76561199000000101'),
  ('Sandbox Bot Bravo', '76561199000000102'),
  ('Sandbox Bot Charlie', '76561199000000103'),
  ('Sandbox Bot Delta', '76561199000000104'),
  ('Sandbox Bot Echo', '76561199000000105');

-- Sandbox trade offer IDs come from the database so several instances never repeat one.
create sequence sandbox_trade_offer_seq start with 6100000001;

-- The sandbox platform's record of the deposit offers it sent (the trade offer ID comes from the
-- sequence above in the same statement). canceled_at: the gateway withdrew the offer (cancelOffer,
-- e.g. an offer that answered after DEPOSIT_TIMEOUT_MS had already failed its deposit).
create table sandbox_deposit_offers (
  trade_offer_id text primary key,
  deposit_id bigint not null,
  bot_id bigint not null,
  expires_at timestamptz not null,
  canceled_at timestamptz,
  created_at timestamptz not null default now()
);
create index sandbox_deposit_offers_deposit_idx on sandbox_deposit_offers (deposit_id);

create table deposits (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  merchant_tx_id text,
  flow text not null check (flow in ('inventory', 'hash_name', 'intent')),
  status text not null default 'new'
    check (status in ('new', 'pending', 'active', 'hold', 'completed', 'failed', 'canceled', 'reverted')),
  game text check (game in ('csgo', 'rust', 'dota2', 'tf2')),
  partner bigint,
  token text,
  -- The user's 64-bit platform ID (webhook platform_id), known once the trade link is.
  platform_id text,
  amount bigint not null default 0 check (amount >= 0),
  bot_id bigint references bots(id),
  bot_name text,
  bot_platform_id text,
  trade_offer_id text,
  trade_offer_expiry_at timestamptz,
  hold_end_date timestamptz,
  fail_reason text,
  result_url text,
  success_url text,
  fail_url text,
  custom_currency text,
  custom_currency_multiplier numeric,
  custom_currency_rate numeric,
  -- Hash-name drafts: the quote is valid until this moment.
  quote_expires_at timestamptz,
  from_preview boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Idempotency by constraint: concurrent duplicates resolve here, not by read-then-write.
  constraint deposits_merchant_tx_id_key unique (merchant_id, merchant_tx_id)
);
create index deposits_merchant_idx on deposits (merchant_id, id desc);
create index deposits_status_idx on deposits (status) where status in ('active', 'hold');

-- Items of a committed deposit, priced when it was committed.
create table deposit_items (
  id bigserial primary key,
  deposit_id bigint not null references deposits(id) on delete cascade,
  asset_id text,
  market_hash_name text not null,
  price bigint not null check (price >= 0),
  original_price bigint,
  min_price bigint,
  image_url text,
  exterior text,
  rarity text,
  rarity_color text,
  phase text,
  -- The user's asset is reserved while its deposit is not terminal (pending, active, hold): the
  -- same asset cannot be in two live deposits of the same user (game, partner), whichever merchant.
  -- Set on insert (the deposit is pending), cleared by the transition to a terminal status, in
  -- the same transactions; concurrent deposits of one asset resolve on the index below.
  game text,
  partner bigint,
  reserved boolean not null default false
);
create index deposit_items_deposit_idx on deposit_items (deposit_id);
create unique index deposit_items_reserved_asset_key on deposit_items (game, partner, asset_id) where reserved;

-- get-prices quote lines of a hash-name draft: the prices the commit settles at.
create table deposit_quote_items (
  deposit_id bigint not null references deposits(id) on delete cascade,
  market_hash_name text not null,
  price bigint not null check (price >= 0),
  original_price bigint not null check (original_price >= 0),
  primary key (deposit_id, market_hash_name)
);

-- The inventory flow's pricing snapshot: what /inventory answered, valid QUOTE_TTL_SECONDS.
create table inventory_snapshots (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  game text not null,
  partner bigint not null,
  items jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  unique (merchant_id, partner, game)
);
