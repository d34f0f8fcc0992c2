-- Webhook outbox: one row per event, written in the same transaction as the status change
-- that caused it; delivery attempts are recorded per event.

create table webhook_events (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  kind text not null check (kind in ('deposit', 'purchase')),
  record_id bigint not null,
  status text not null,
  -- the spec body without `sign` (signed at send time with the merchant's current secret)
  payload jsonb not null,
  target_url text not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'exhausted')),
  -- attempts made so far (all time, redeliveries included); numbers the rows of webhook_attempts
  attempts integer not null default 0,
  -- null: as many attempts as WEBHOOK_RETRY_SCHEDULE has entries; a redelivery sets attempts + 1
  max_attempts integer,
  -- when the next attempt is due (null: now); the job's run_at mirrors it
  next_attempt_at timestamptz,
  -- set while an attempt is in flight (claimed, not yet settled): claim time + WEBHOOK_TIMEOUT_MS +
  -- WEBHOOK_LEASE_MARGIN_MS. Past it the attempt is presumed lost (the worker died): the sweeper
  -- re-queues the event and the attempt is recorded as interrupted.
  lease_until timestamptz,
  -- bumped by every redelivery: an attempt that was in flight when it happened sees the change when
  -- it settles and leaves the event pending for the requested attempt instead of closing it
  redeliver_generation integer not null default 0,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_events_merchant_idx on webhook_events (merchant_id, id desc);
create index webhook_events_record_idx on webhook_events (kind, record_id, id);
-- the ordering check ("is an earlier event of this record still pending?") reads only pending rows
create index webhook_events_pending_idx on webhook_events (kind, record_id, id) where state = 'pending';
-- the sweeper: attempts whose lease ran out, and pending events overdue without an attempt in flight
create index webhook_events_lease_idx on webhook_events (lease_until) where state = 'pending' and lease_until is not null;
create index webhook_events_overdue_idx on webhook_events ((coalesce(next_attempt_at, created_at)))
  where state = 'pending' and lease_until is null;
-- retention: delivered events older than WEBHOOK_RETENTION_DAYS are pruned
create index webhook_events_delivered_idx on webhook_events (delivered_at) where state = 'delivered';

-- One row per HTTP attempt (or refused attempt): the delivery log operators read.
create table webhook_attempts (
  id bigserial primary key,
  event_id bigint not null references webhook_events(id) on delete cascade,
  attempt integer not null,
  attempted_at timestamptz not null default now(),
  target_url text not null,
  status_code integer,
  latency_ms integer not null default 0,
  error text,
  response_excerpt text,
  unique (event_id, attempt)
);
