-- Operator-managed bots for PLATFORM=steam (issue 11). The sandbox's seeded bots keep
-- account_name null; real bots carry their account and encrypted secrets (AES-256-GCM under
-- BOT_SECRETS_KEY: iv | tag | ciphertext). Refresh tokens and the trade-offer manager's poll data
-- live here, never on local disk, so any instance can take a bot over.
alter table bots
  add column account_name text,
  add column secrets bytea,
  add column refresh_token bytea,
  add column games text[] not null default '{csgo,rust,dota2,tf2}',
  add column inventory_capacity integer not null default 1000 check (inventory_capacity between 1 and 100000),
  -- ok: can trade; cannot_trade: out of rotation until an operator checks it (NewDevice, lock, ban…).
  add column trade_state text not null default 'ok' check (trade_state in ('ok', 'cannot_trade')),
  add column trade_state_reason text,
  -- One driving instance at a time: the lease is renewed while the instance lives and taken over
  -- by another once it has expired.
  add column lease_owner text,
  add column lease_expires_at timestamptz,
  add column poll_data jsonb not null default '{}',
  add column trade_protection_acknowledged_at timestamptz,
  -- Reversal detection: the newest trade (time_init, unix seconds) already read from GetTradeHistory.
  add column history_cursor bigint not null default 0,
  add column last_checked_at timestamptz,
  add column removed_at timestamptz,
  add column updated_at timestamptz not null default now();
create unique index bots_account_name_key on bots (lower(account_name)) where account_name is not null;

-- The offers the steam adapter sends: one per deposit or purchase (the primary key makes a second
-- send for the same record impossible). message embeds the record id, so an offer whose answer was
-- lost (eresult 16, timeout) is found on the platform before anything is sent again.
create table steam_offers (
  offer_kind text not null check (offer_kind in ('deposit', 'purchase')),
  record_id bigint not null,
  bot_id bigint not null references bots(id),
  message text not null,
  trade_offer_id text unique,
  trade_id text unique,
  -- Last ETradeOfferState seen on the platform, and the last one reported to the gateway.
  state integer,
  reported_state integer,
  escrow_ends_at timestamptz,
  reverted_at timestamptz,
  reversal_reported boolean not null default false,
  attempt_started_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (offer_kind, record_id)
);
create index steam_offers_unreported_idx on steam_offers (bot_id)
  where state is distinct from reported_state or (reverted_at is not null and not reversal_reported);

-- Items our bots received in deposit trades, with the asset ids the platform gave them on arrival
-- (GetTradeStatus: new_assetid / new_contextid; context 16 while CS2 trade protection lasts). A
-- deposit's catalogue listing (source_ref deposit:<id>:<original asset>) is offered from here.
create table steam_received_assets (
  deposit_id bigint not null,
  asset_id text not null,
  bot_id bigint not null references bots(id),
  trade_offer_id text not null,
  new_asset_id text not null,
  new_context_id text not null,
  created_at timestamptz not null default now(),
  primary key (deposit_id, asset_id)
);

-- Gateway instances driving bots (heartbeat every lease round): bots are shared out evenly among
-- the live ones, so every instance has bots to answer its merchants' requests with.
create table steam_instances (
  id text primary key,
  seen_at timestamptz not null default now()
);
