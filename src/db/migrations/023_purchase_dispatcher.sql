-- Purchase dispatch by a per-instance dispatcher (src/modules/purchases/dispatcher.ts) instead of
-- one graphile-worker job per purchase (issue 12): the dispatcher claims due pending purchases in
-- batches (FOR UPDATE SKIP LOCKED) and leases each one by moving dispatch_next_at past the time
-- an attempt may take; a failed attempt sets it to the retry time. '-infinity': due at once (a
-- constant default, so adding the column rewrites nothing).
alter table purchases add column dispatch_next_at timestamptz not null default '-infinity';
-- Only pending purchases are in it, so it stays as small as the backlog.
create index purchases_dispatch_due_idx on purchases (dispatch_next_at, id) where status = 'pending';
