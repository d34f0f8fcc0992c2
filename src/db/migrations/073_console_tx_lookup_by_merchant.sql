-- Issue 26 point 4 (write amplification): the operator console's lookup by merchant_tx_id (057)
-- probes each merchant's unique (merchant_id, merchant_tx_id) key instead (console-repo.ts
-- lookupRecords: a probe per merchant, for an operator's search box). These two indexes cost every
-- purchase and deposit a b-tree entry on its insert and on each of its status updates.
drop index if exists purchases_merchant_tx_id_idx;
drop index if exists deposits_merchant_tx_id_idx;
