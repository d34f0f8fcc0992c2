-- Audit log entries are never changed or deleted.
create or replace function audit_log_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'audit log entries are immutable';
end $$;

drop trigger if exists audit_log_no_update on audit_log;
create trigger audit_log_no_update before update or delete on audit_log
  for each row execute function audit_log_immutable();
