-- Issue 12 (part E): webhooks delivered by a per-instance dispatcher instead of one job per event.
--
-- The dispatcher claims due events in batches (the first pending event of each record only). An
-- event waiting behind an earlier one of its record that is itself waiting for a retry carries
-- that retry's time in not_before, so a long outage's blocked events stay out of the due scan
-- until the event they wait for is due again (the claim still checks the order itself; this
-- column only keeps the scan short).
alter table webhook_events add column not_before timestamptz;

-- The claim's scan: pending events without an attempt in flight, by the time they become due
-- (greatest() ignores a null not_before).
create index webhook_events_due_idx on webhook_events ((greatest(coalesce(next_attempt_at, created_at), not_before)))
  where state = 'pending' and lease_until is null;
-- An event's creation time is when its row was written, not when its transaction began (a status
-- change may wait on a balance row lock first): the delivery log, and the lag measured from it,
-- then start at the write.
alter table webhook_events alter column created_at set default clock_timestamp();
-- Replaced by webhook_events_due_idx (it served the per-job sweeper, which is gone).
drop index if exists webhook_events_overdue_idx;
