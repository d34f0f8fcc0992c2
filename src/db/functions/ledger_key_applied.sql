-- A ledger key applied before (ledger_apply's check of a retried movement), by the unique index,
-- planned on its own with sequential scans off: a PL/pgSQL statement's plan is cached per
-- connection after five calls, and one cached while ledger_entries was empty or tiny (a fresh
-- install, ANALYZE of the empty tables, a bench's first seconds) read the whole ledger by a
-- sequential scan at every later check, for as long as the connection lived or until the next
-- ANALYZE (200 µs a check at 6 000 entries in bench/purchase-batch-cost.ts). The key is
-- the only column of the query, so its unique index is the one plan left.
create or replace function ledger_key_applied(p_key text) returns boolean
language sql stable set enable_seqscan = off as $$
  select exists (select 1 from ledger_entries where key = p_key)
$$;
