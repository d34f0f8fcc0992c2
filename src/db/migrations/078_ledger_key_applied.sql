-- ledger_apply's check of a key applied before is a function of its own planned with sequential
-- scans off (src/db/functions/ledger_key_applied.sql: issue 26, stop 38). No schema change. This
-- file exists so that a version older than this one, which would apply its own older function
-- files, refuses this database (migrate.ts checkApplied).
select 1;
