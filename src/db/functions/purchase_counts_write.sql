-- The kept counts of GET /merchant/purchase's `total` (migration 067): every purchase written and
-- every change of its status adds a delta row in the writer's transaction, so the sum per merchant
-- (and status) is exact in any snapshot. Inserts only: no counter row is locked, so creations and
-- transitions of one merchant never queue on it (purchase_counts_fold folds the deltas).
create or replace function purchase_counts_write() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into purchase_counts (merchant_id, status, n) values (new.merchant_id, new.status, 1);
  else
    insert into purchase_counts (merchant_id, status, n) values (old.merchant_id, old.status, -1), (new.merchant_id, new.status, 1);
  end if;
  return null;
end $$;

drop trigger if exists purchases_counts_insert on purchases;
create trigger purchases_counts_insert after insert on purchases
  for each row execute function purchase_counts_write();
drop trigger if exists purchases_counts_update on purchases;
create trigger purchases_counts_update after update of status, merchant_id on purchases
  for each row when (old.status is distinct from new.status or old.merchant_id is distinct from new.merchant_id)
  execute function purchase_counts_write();
