-- Issue 26 point 4: a purchase's offer expiry was a graphile-worker job per purchase, added when its
-- offer went out (an outbox row, the relay, add_jobs, the worker's fetches: about a fifth of a
-- purchase's PostgreSQL time, bench/RESULTS.md § "Stop 37") and moot for every purchase that moves
-- on first. The purchase dispatcher now sweeps the active purchases whose offer expired
-- (dispatch.ts sweepExpiredOffers): this index finds them. expiry_next_at is the next look at one
-- whose expiry a sweep took up (a lease against other instances' sweeps) or could not finish (the
-- platform has not shown the offer withdrawn yet, or its call failed).
alter table purchases add column expiry_next_at timestamptz;
create index purchases_offer_expiry_idx on purchases ((coalesce(expiry_next_at, offer_expires_at))) where status = 'active';
