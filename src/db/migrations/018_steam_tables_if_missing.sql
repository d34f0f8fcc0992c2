-- 010_steam_bots.sql was extended twice on its feature branch (issue-11) before it reached main
-- (steam_received_assets at 6c73dc3, steam_instances at 4fa72fe). main only ever had the final file,
-- but a database created from that branch in between applied an earlier content of 010 and lacks
-- one or both tables. migrate.ts accepts those earlier checksums (HISTORICAL_CHECKSUMS) and this
-- file creates what they lacked, exactly as today's 010 defines it. A no-op everywhere else.
create table if not exists steam_received_assets (
  deposit_id bigint not null,
  asset_id text not null,
  bot_id bigint not null references bots(id),
  trade_offer_id text not null,
  new_asset_id text not null,
  new_context_id text not null,
  created_at timestamptz not null default now(),
  primary key (deposit_id, asset_id)
);

create table if not exists steam_instances (
  id text primary key,
  seen_at timestamptz not null default now()
);
