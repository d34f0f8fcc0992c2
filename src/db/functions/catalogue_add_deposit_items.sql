-- The items of completed deposits become listings (DESIGN 7: at price × purchase_markup, the
-- markup applied when read), written by deposit_transition_batch in the transaction that completes
-- them, one insert for the batch (job catalogue_add_deposit_items, which did it per deposit, calls
-- it too for the jobs an older version queued). Replayable: a listing's id is deposit_listing_id's
-- and an existing id is left alone. The float and paint seed are those the platform told when the
-- item was deposited (deposit_items, 084), null where it told none. An item the listings table
-- cannot take (a name outside 1–512 characters, a deposit without a game) is not listed: the
-- completion, which is money, never fails on the catalogue.
create or replace function catalogue_add_deposit_items(p_deposit_ids bigint[]) returns int language plpgsql as $$
declare
  v_n int;
begin
  insert into listings (id, game, name, base_price, image_url, exterior, rarity, rarity_color, phase, float, paint_seed, source, source_ref)
  select deposit_listing_id(d.id, i.asset_id, i.n),
         d.game, i.market_hash_name, greatest(coalesce(i.original_price, i.price), 0), coalesce(i.image_url, ''),
         nullif(i.exterior, ''), nullif(i.rarity, ''), nullif(i.rarity_color, ''), nullif(i.phase, ''), i.float, i.paint_seed,
         'deposit', 'deposit:' || d.id || ':' || coalesce(i.asset_id, i.n::text)
    from deposits d
   cross join lateral (select di.*, row_number() over (order by di.id) - 1 as n from deposit_items di where di.deposit_id = d.id) i
   where d.id = any(p_deposit_ids) and d.status = 'completed' and d.game is not null and length(i.market_hash_name) between 1 and 512
   order by 1
  on conflict (id) do nothing;
  get diagnostics v_n = row_count;
  return v_n;
end $$;
