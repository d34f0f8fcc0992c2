-- A purchase's merchant_tx_id stored before (purchase_create_batch's probe of a repeat), by the
-- unique index. One of the two keyed probes of the money functions (with ledger_key_applied.sql).
-- Each is a function of its own so that it is planned on its own, with sequential scans off: a
-- PL/pgSQL statement's plan is cached per connection after five calls, and one cached while its table was empty or tiny
-- (a fresh install, a bench's first seconds) reads the whole table by a sequential scan for as
-- long as the connection lives or until the next ANALYZE — every probe a scan of a growing table
-- (POST purchase fell from ≈ 1 700/s to 840/s in the bench's first run on such a plan: stop 38).
-- With sequential scans off the unique index is the plan whatever the statistics say.
create or replace function purchase_tx_stored(p_merchant bigint, p_tx text) returns boolean
language sql stable set enable_seqscan = off as $$
  select exists (select 1 from purchases where merchant_id = p_merchant and merchant_tx_id = p_tx)
$$;
