-- A merchant's own rate limit on the merchant API (issue 22), in requests per minute per API key;
-- null: the gateway's default (RATE_LIMIT_MERCHANT_PER_MINUTE). Set by the operator (admin API,
-- CLI, console); counted per instance in memory (src/http/rate-limit.ts). Every change notifies
-- merchant_changed (the trigger of 008), so each instance's key cache reads the new value.
alter table merchants add column rate_limit_per_minute integer
  check (rate_limit_per_minute between 1 and 10000000);
