-- A deposited item's float (wear) and paint seed (pattern), as the platform told them when it was
-- deposited (Steam: the inventory's asset properties, else its inspect link), carried to the
-- item's listing at completion (catalogue_add_deposit_items), as a listing imported with an
-- inspect link carries them. Null where the platform did not tell them (unpainted items).
alter table deposit_items
  add column float double precision,
  add column paint_seed integer;
