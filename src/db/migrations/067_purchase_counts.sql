-- GET /merchant/purchase answers `total`, the number of matching purchases (spec 4.10). Counting a
-- busy merchant's purchases reads a large share of the purchases table on every page, so the
-- counts per merchant and status are kept here (issue 26). Rows are deltas, written by the trigger
-- purchase_counts_write (src/db/functions) in the writer's transaction — inserts only, so no writer
-- ever waits on a counter row — and folded into one `base` row per merchant and status by the job
-- purchase_counts_fold (src/modules/retention). The count is the sum: exact in any snapshot.
create table purchase_counts (
  merchant_id bigint not null,
  status text not null,
  n bigint not null,
  base boolean not null default false
);
create index purchase_counts_merchant_idx on purchase_counts (merchant_id, status) include (n);
create unique index purchase_counts_base_key on purchase_counts (merchant_id, status) where base;

-- The counts of the purchases stored so far (the trigger counts every later write). The trigger is
-- created right after the migrations (src/db/functions); an instance of the previous version
-- writing purchases in between (a rolling upgrade) would go uncounted: upgrade one instance first
-- (docs/operations.md#upgrades).
insert into purchase_counts (merchant_id, status, n, base)
select merchant_id, status, count(*), true from purchases group by merchant_id, status;
