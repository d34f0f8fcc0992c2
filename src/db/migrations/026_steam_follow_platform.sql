-- Issue 20: records follow the platform.
-- An offer send whose answer was ambiguous (eresult 16, a timeout, a hang-up): the offer may exist
-- or appear later. Such a claim is never taken over by a new send; the record waits until the offer
-- is found or the settle window has passed with none on the platform (then any late offer is
-- canceled on sight, and a late acceptance is followed by the record).
alter table steam_offers add column uncertain_since timestamptz;
