-- purchase_create_batch (src/db/functions/purchase_create_batch.sql) answers a merchant_tx_id stored
-- before as 'twin' before it takes a listing: the gateway no longer looks one up before creating
-- (issue 26, stop 38). No schema change. This file exists so that a version older than this one,
-- which would apply its own older function files, refuses this database (migrate.ts checkApplied).
select 1;
