-- Status history of deposits and purchases (the detail page's timeline), written by triggers so
-- every writer of a status is covered without touching it. Statement-level, with transition
-- tables: a batch's statement (a batch of creations, of transitions) writes its history in one
-- insert, not one trigger call per record. An UPDATE trigger with transition tables cannot name
-- its columns, so it fires on every update of the table and keeps the rows whose status changed.
-- (Named apart from the row-level function it replaces, record_status_history_write, which is
-- dropped here: an older instance re-applying its own files brings that one back with its own
-- triggers instead of pointing its row-level triggers at this body.)
drop trigger if exists deposits_status_history on deposits;
drop trigger if exists purchases_status_history on purchases;
drop function if exists record_status_history_write();

create or replace function record_status_history_statement() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into record_status_history (kind, record_id, merchant_id, from_status, to_status, fail_reason)
    select tg_argv[0], n.id, n.merchant_id, null, n.status, n.fail_reason from new_rows n order by n.id;
  else
    insert into record_status_history (kind, record_id, merchant_id, from_status, to_status, fail_reason)
    select tg_argv[0], n.id, n.merchant_id, o.status, n.status, n.fail_reason
      from new_rows n join old_rows o on o.id = n.id
     where n.status is distinct from o.status
     order by n.id;
  end if;
  return null;
end $$;

drop trigger if exists deposits_status_history_insert on deposits;
create trigger deposits_status_history_insert after insert on deposits
  referencing new table as new_rows for each statement execute function record_status_history_statement('deposit');
drop trigger if exists deposits_status_history_update on deposits;
create trigger deposits_status_history_update after update on deposits
  referencing old table as old_rows new table as new_rows for each statement execute function record_status_history_statement('deposit');
drop trigger if exists purchases_status_history_insert on purchases;
create trigger purchases_status_history_insert after insert on purchases
  referencing new table as new_rows for each statement execute function record_status_history_statement('purchase');
drop trigger if exists purchases_status_history_update on purchases;
create trigger purchases_status_history_update after update on purchases
  referencing old table as old_rows new table as new_rows for each statement execute function record_status_history_statement('purchase');
