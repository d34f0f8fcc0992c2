-- Issue 25: every credit explained. A price basis is what the price engine computed for one item
-- (the reference, the deposit and sale prices, the flags and each source's reading); a row is
-- written only when an item's basis changes, so the history is append-only and small for items
-- whose prices hold still. A deposit item names the basis it was credited at; a get-prices quote
-- stores the highest basis id published when it was made (its items' bases are the newest at or
-- below it), one bigint instead of an id per quoted name.
create table price_bases (
  id bigserial primary key,
  game text not null,
  market_hash_name text not null,
  reference bigint,
  deposit_price bigint,
  sale_price bigint,
  flags text[] not null default '{}',
  -- [{source, role, price, as_of, liquidity, status: used|outlier|stale|illiquid|guard}]
  readings jsonb not null,
  computed_at timestamptz not null
);
create index price_bases_item_idx on price_bases (game, market_hash_name, id);

-- The operator's override list: a pinned price, or a blocked item (never credited nor sold).
create table price_overrides (
  game text not null,
  market_hash_name text not null,
  action text not null check (action in ('pin', 'block')),
  price bigint check (price > 0),
  reason text not null default '',
  set_by text not null,
  set_at timestamptz not null default now(),
  primary key (game, market_hash_name),
  check ((action = 'pin') = (price is not null))
);

-- No foreign keys: bases are append-only and these are hot inserts.
alter table deposit_items add column price_basis_id bigint;
alter table deposit_quotes add column price_version bigint;
