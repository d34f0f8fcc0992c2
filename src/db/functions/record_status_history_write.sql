-- Status history of deposits and purchases (the detail page's timeline), written by triggers so
-- every writer of a status is covered without touching it.
create or replace function record_status_history_write() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    insert into record_status_history (kind, record_id, merchant_id, from_status, to_status, fail_reason)
    values (tg_argv[0], new.id, new.merchant_id, case when tg_op = 'UPDATE' then old.status end, new.status, new.fail_reason);
  end if;
  return null;
end $$;

drop trigger if exists deposits_status_history on deposits;
create trigger deposits_status_history after insert or update of status on deposits
  for each row execute function record_status_history_write('deposit');
drop trigger if exists purchases_status_history on purchases;
create trigger purchases_status_history after insert or update of status on purchases
  for each row execute function record_status_history_write('purchase');
