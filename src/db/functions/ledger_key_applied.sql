-- A ledger key applied before (ledger_apply's check of a retried movement), by the unique index,
-- planned with sequential scans off whatever the statistics say: see purchase_tx_stored.sql.
create or replace function ledger_key_applied(p_key text) returns boolean
language sql stable set enable_seqscan = off as $$
  select exists (select 1 from ledger_entries where key = p_key)
$$;
