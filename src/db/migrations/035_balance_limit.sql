-- A merchant's balance stays within what the service reads exactly (issue 21): amounts are integer
-- mills parsed as JavaScript numbers, so available + hold (the total the API shows) must not pass
-- 2^53 − 1 mills (9 007 199 254 740.991 USD). A movement past it is refused by this constraint
-- (a top-up answers 400 naming the limit) instead of failing to be read back.
alter table balances add constraint balances_within_safe_range
  check (available + hold <= 9007199254740991);
