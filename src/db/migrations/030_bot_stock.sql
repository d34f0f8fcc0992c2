-- Issue 20, point 6: the bots' stock is the catalogue. A sync lists the tradable items the bots
-- hold (source 'bot', source_ref bot:<bot id>:<asset id>, asset_id the bot's asset) and delists
-- those that left their bot; a listing per (bot, asset), so a replayed sync changes nothing.
alter table listings drop constraint listings_source_check;
alter table listings add constraint listings_source_check check (source in ('seed', 'deposit', 'import', 'bot'));
create index listings_bot_stock_idx on listings (source_ref) where source = 'bot';

-- The sandbox platform's own record of what its bots hold and of the trades they made: the
-- platform's side that the sync and reconciliation (point 7) read, apart from the gateway's records.
-- Written by the sandbox adapter as offers are accepted or reversed (and by its operator helper that
-- puts items into a bot). tradable_after: the trade protection of an item received with a hold.
create table sandbox_bot_items (
  bot_id bigint not null,
  game text not null,
  asset_id text not null,
  market_hash_name text not null,
  paint_index integer,
  tradable_after timestamptz,
  deposit_id bigint,
  received_at timestamptz not null default now(),
  -- Left the bot (given in a purchase trade, or a deposit trade reversed); a reversed purchase brings it back.
  gone_at timestamptz,
  gone_trade_offer_id text,
  primary key (bot_id, game, asset_id)
);
create index sandbox_bot_items_deposit_idx on sandbox_bot_items (deposit_id) where deposit_id is not null;

create table sandbox_trades (
  trade_id bigserial primary key,
  trade_offer_id text not null unique,
  offer_kind text not null check (offer_kind in ('deposit', 'purchase')),
  record_id bigint not null,
  bot_id bigint not null,
  accepted_at timestamptz not null default now(),
  reverted_at timestamptz
);
create index sandbox_trades_bot_idx on sandbox_trades (bot_id, accepted_at);
