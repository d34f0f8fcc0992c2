-- Every change of a merchant row (key rotation, disable, whitelist, settings) tells every instance
-- in the same transaction: listeners drop their cached API key entries for that merchant.
create or replace function merchants_notify_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('merchant_changed', old.id::text);
  return null;
end $$;

drop trigger if exists merchants_changed on merchants;
create trigger merchants_changed after update or delete on merchants
  for each row execute function merchants_notify_change();
