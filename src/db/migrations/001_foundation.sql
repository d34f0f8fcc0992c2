-- Merchants, their balance and the immutable ledger behind it.

create table merchants (
  id bigserial primary key,
  name text not null check (length(name) between 1 and 200),
  enabled boolean not null default true,
  -- sha256 of the API key; the key itself is shown once and never stored.
  api_key_hash text not null unique,
  api_key_prefix text not null,
  -- Needed in clear to sign webhooks (sign = base64(sha256(id + secret))), so it cannot be hashed.
  webhook_secret text not null,
  webhook_url text,
  ip_whitelist text[] not null default '{}',
  deposit_preview_enabled boolean not null default false,
  max_items integer not null default 50 check (max_items between 1 and 1000),
  deposit_multiplier numeric(10,6) not null default 1 check (deposit_multiplier > 0 and deposit_multiplier <= 10),
  purchase_markup numeric(10,6) not null default 1 check (purchase_markup > 0 and purchase_markup <= 10),
  frame_ancestors text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- One row per merchant; moved only together with a ledger entry, in one transaction.
create table balances (
  merchant_id bigint primary key references merchants(id),
  available bigint not null default 0 check (available >= 0),
  hold bigint not null default 0 check (hold >= 0),
  updated_at timestamptz not null default now()
);

-- Immutable: every balance movement, with a unique key so a retried job cannot move money twice.
create table ledger_entries (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  key text not null unique,
  kind text not null,
  available_delta bigint not null,
  hold_delta bigint not null,
  available_after bigint not null,
  hold_after bigint not null,
  ref_type text,
  ref_id bigint,
  created_at timestamptz not null default now()
);
create index ledger_entries_merchant_idx on ledger_entries (merchant_id, id desc);

create or replace function ledger_entries_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'ledger entries are immutable';
end $$;
create trigger ledger_entries_no_update before update or delete on ledger_entries
  for each row execute function ledger_entries_immutable();

create table withdrawals (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  amount bigint not null check (amount > 0),
  status text not null default 'pending' check (status in ('pending','completed','failed','canceled')),
  reference text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index withdrawals_merchant_idx on withdrawals (merchant_id, id desc);

-- Top-ups are idempotent by the operator's reference.
create table top_ups (
  id bigserial primary key,
  merchant_id bigint not null references merchants(id),
  amount bigint not null check (amount > 0),
  reference text not null,
  created_at timestamptz not null default now(),
  unique (merchant_id, reference)
);
