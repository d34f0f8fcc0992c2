-- Issue 24 (request logs off the hot path): the btree on request_logs.at was one of five indexes
-- every logged request writes into, for a prune that runs once an hour. Rows arrive in time order,
-- so a BRIN index (a few pages for the whole table, touched only when a block range is summarised)
-- finds the old rows as well; the prune takes any old rows, not the oldest first.
drop index if exists request_logs_at_idx;
create index request_logs_at_brin on request_logs using brin (at) with (autosummarize = on);
