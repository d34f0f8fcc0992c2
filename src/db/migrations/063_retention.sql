-- Retention (issue 26). Plain schema only; the pruning is the retention_prune job's SQL
-- (src/modules/retention/retention-repo.ts).

-- Uncommitted drafts (get-prices quotes, intents) are few at any time: a partial index lets the
-- job find expired ones without reading the deposits table (rows leave it on commit).
create index deposits_drafts_idx on deposits (id) where status = 'new';

-- Exhausted webhook events are pruned by age like delivered ones (webhook_events_delivered_idx).
create index webhook_events_exhausted_idx on webhook_events (last_attempt_at) where state = 'exhausted';

-- `gateway ledger verify --incremental`: per merchant, the sums of its entries with id <= through_id,
-- proved equal to the balance by the run that wrote them. The next run adds only newer entries.
-- Entries are immutable (ledger_entries_no_update), so a checkpoint stays true.
create table ledger_checkpoints (
  merchant_id bigint primary key references merchants(id),
  through_id bigint not null,
  available bigint not null,
  hold bigint not null,
  entries bigint not null,
  verified_at timestamptz not null default now()
);
