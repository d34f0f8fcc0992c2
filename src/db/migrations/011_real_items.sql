-- Issue 9 (items 0 and 8).
--
-- Sandbox platform: what each deposit offer asks for, and the assets that left their user.
-- Inventories are generated deterministically from (partner, game); an asset handed over in an
-- accepted deposit offer (hold or completed) is recorded here and no longer belongs to the user
-- (a reverted trade gives it back). The sandbox refuses an offer for an asset the user does not hold.
alter table sandbox_deposit_offers add column game text;
alter table sandbox_deposit_offers add column partner bigint;
alter table sandbox_deposit_offers add column asset_ids text[] not null default '{}';

create table sandbox_departed_assets (
  game text not null,
  partner bigint not null,
  asset_id text not null,
  deposit_id bigint not null,
  departed_at timestamptz not null default now(),
  primary key (game, partner, asset_id)
);
create index sandbox_departed_assets_deposit_idx on sandbox_departed_assets (deposit_id);

-- Hosted links expire (INTENT_TTL_SECONDS, fixed when the intent is created). Intents created
-- before this migration get the default lifetime of one day from their creation.
alter table deposits add column hosted_expires_at timestamptz;
update deposits set hosted_expires_at = created_at + interval '1 day' where flow = 'intent';
