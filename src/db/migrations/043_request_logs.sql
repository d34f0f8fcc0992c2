-- Issue 24 (request logs): each merchant's own API requests of the last REQUEST_LOG_DAYS, for the
-- dashboard. Written in batches after the answers (src/modules/request-logs/recorder.ts), pruned
-- by age. No foreign key: a batch insert must not wait on merchant rows.
create table request_logs (
  id bigserial primary key,
  merchant_id bigint not null,
  at timestamptz not null,
  method text not null,
  path text not null,
  status integer not null,
  duration_ms integer not null,
  request_id text not null,
  key_prefix text not null,
  client_ip text not null,
  merchant_tx_id text,
  -- the answer's body when status >= 400 (at most 2 KiB)
  error_body text
);
-- the page: newest first per merchant, by id cursor
create index request_logs_merchant_idx on request_logs (merchant_id, id desc);
-- the searches
create index request_logs_request_id_idx on request_logs (merchant_id, request_id);
create index request_logs_tx_idx on request_logs (merchant_id, merchant_tx_id) where merchant_tx_id is not null;
-- pruning by age
create index request_logs_at_idx on request_logs (at);
