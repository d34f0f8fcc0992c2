-- The webhook dispatcher's fair-share claim (issue 12) reads due events merchant by merchant: the
-- merchants with claimable events by a loose scan of this index (one probe per merchant), then each
-- merchant's oldest due events, at most its free share, by a range scan of its part. The claim of
-- 493f29a scanned the due events of every merchant in due order and dropped those of merchants at
-- their cap: with one merchant's backlog of 10 000 due events at its cap, every claim walked all
-- of them to find nothing (23 ms and ≈ 80 000 buffers each; the backlog drained at 157/s).
create index webhook_events_claimable_idx on webhook_events
  (merchant_id, (greatest(coalesce(next_attempt_at, created_at), not_before)), id)
  where state = 'pending' and lease_until is null;
