-- Issue 20, point 7: reconciliation against the platform. Each run (`gateway reconcile`, the daily
-- job, POST /api/admin/reconciliation/run) compares the bots' trade history and inventories with
-- the records and stores what disagrees, with what the operator should do; the latest finished run
-- is what the console, GET /api/admin/reconciliation and the metric show.
create table reconcile_runs (
  id bigserial primary key,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  since timestamptz not null,
  bots_read integer not null default 0,
  -- Bots (and games) whose trades or inventory could not be read: their records were not compared.
  read_errors jsonb not null default '[]',
  discrepancies integer not null default 0
);

create table reconcile_discrepancies (
  run_id bigint not null references reconcile_runs(id) on delete cascade,
  n integer not null,
  kind text not null,
  bot_id bigint,
  record_kind text,
  record_id bigint,
  merchant_id bigint,
  trade_id text,
  listing_id text,
  asset_id text,
  detail text not null,
  action text not null,
  primary key (run_id, n)
);
