-- Ledger entries are never changed or deleted (the balance is their sum).
create or replace function ledger_entries_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'ledger entries are immutable';
end $$;

drop trigger if exists ledger_entries_no_update on ledger_entries;
create trigger ledger_entries_no_update before update or delete on ledger_entries
  for each row execute function ledger_entries_immutable();
