-- Issue 20: a deposit or purchase that fails after its retries within the deadline keeps the real
-- cause beside the spec's fail_reason (service_unavailable, timeout_error…): what the platform last
-- answered and how many attempts were made ("rate limited (send), 4 attempts in 9.8 s"). Operator
-- information only (console, logs); never on the merchant API.
alter table deposits add column fail_cause text;
alter table purchases add column fail_cause text;
