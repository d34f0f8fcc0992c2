-- The kept counts of GET /merchant/purchase's `total` (purchase_counts): every purchase written and
-- every change of its status adds a delta row in the writer's transaction, so the sum per merchant
-- (and status) is exact in any snapshot. Inserts only: no counter row is locked, so creations and
-- transitions of one merchant never queue on it (purchase_counts_fold folds the deltas).
-- Statement-level, with transition tables: one delta row per merchant and status a statement (a
-- batch of 50 creations of one merchant is one row, not 50). The UPDATE trigger cannot name its
-- columns (transition tables), so it fires on every update and keeps the status changes.
-- (Named apart from the row-level function it replaces, purchase_counts_write, dropped here with
-- its triggers, for the reason record_status_history_statement gives.)
drop trigger if exists purchases_counts_insert on purchases;
drop trigger if exists purchases_counts_update on purchases;
drop function if exists purchase_counts_write();

create or replace function purchase_counts_statement() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into purchase_counts (merchant_id, status, n)
    select merchant_id, status, count(*) from new_rows group by merchant_id, status order by merchant_id, status;
  else
    insert into purchase_counts (merchant_id, status, n)
    select d.merchant_id, d.status, sum(d.n)
      from old_rows o join new_rows x on x.id = o.id
     cross join lateral (values (o.merchant_id, o.status, -1), (x.merchant_id, x.status, 1)) d (merchant_id, status, n)
     where o.status is distinct from x.status or o.merchant_id is distinct from x.merchant_id
     group by d.merchant_id, d.status
    having sum(d.n) <> 0
     order by d.merchant_id, d.status;
  end if;
  return null;
end $$;

drop trigger if exists purchases_counts_statement_insert on purchases;
create trigger purchases_counts_statement_insert after insert on purchases
  referencing new table as new_rows for each statement execute function purchase_counts_statement();
drop trigger if exists purchases_counts_statement_update on purchases;
create trigger purchases_counts_statement_update after update on purchases
  referencing old table as old_rows new table as new_rows for each statement execute function purchase_counts_statement();
