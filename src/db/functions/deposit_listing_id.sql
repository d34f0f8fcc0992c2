-- The listing id of a deposited item (catalogue_add_deposit_items, catalogue_delist_deposit_items):
-- the first 40 hex digits of sha256('deposit:<deposit id>:<asset>'), <asset> the item's asset id
-- or '#<place>' for one without (place: its 0-based place among the deposit's items by item id).
-- Deterministic: listing a deposit's items again finds the same ids.
create or replace function deposit_listing_id(p_deposit_id bigint, p_asset_id text, p_place bigint) returns text language sql immutable as $$
  select left(encode(sha256(convert_to('deposit:' || p_deposit_id || ':' || coalesce(p_asset_id, '#' || p_place), 'UTF8')), 'hex'), 40)
$$;
