-- A completed deposit reversed on the platform (offer.ts reversedAfterCompletion): its items left
-- the bot. Every listing of it is marked withdrawn (listings.withdrawn_at) and those still for sale are
-- delisted; a reserved one stays its purchase's, and goes to 'delisted' instead of back on sale if
-- that purchase fails (purchase-repo.ts releaseListing). A sold one is the buyer's. Returns how
-- many it marked (0 when replayed).
create or replace function catalogue_delist_deposit_items(p_deposit_id bigint) returns int language plpgsql as $$
declare
  v_n int;
begin
  update listings
     set status = case when status = 'live' then 'delisted' else status end, withdrawn_at = now(), updated_at = now()
   where id in (select deposit_listing_id(di.deposit_id, di.asset_id, row_number() over (order by di.id) - 1)
                  from deposit_items di where di.deposit_id = p_deposit_id)
     and status in ('live', 'reserved') and withdrawn_at is null;
  get diagnostics v_n = row_count;
  return v_n;
end $$;
