-- A completed deposit reversed on the platform (offer.ts reversedAfterCompletion): its items left
-- the bot, so its listings still for sale are delisted (a reserved or sold one is a purchase's).
create or replace function catalogue_delist_deposit_items(p_deposit_id bigint) returns int language plpgsql as $$
declare
  v_n int;
begin
  update listings set status = 'delisted', updated_at = now()
   where id in (select deposit_listing_id(di.deposit_id, di.asset_id, row_number() over (order by di.id) - 1)
                  from deposit_items di where di.deposit_id = p_deposit_id)
     and status = 'live';
  get diagnostics v_n = row_count;
  return v_n;
end $$;
