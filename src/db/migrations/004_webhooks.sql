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
  attempts integer not null default 0,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_events_merchant_idx on webhook_events (merchant_id, id desc);
create index webhook_events_record_idx on webhook_events (kind, record_id, id);
