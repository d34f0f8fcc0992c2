-- Dashboard and operator console: users (merchant users and operators), invitations, sessions,
-- the audit log, the status history of deposits and purchases, and the indexes the dashboard's
-- filtered keyset lists need.

create table dashboard_users (
  id bigserial primary key,
  -- null: an operator (console); else a user of that merchant (dashboard)
  merchant_id bigint references merchants(id),
  email text not null check (length(email) between 3 and 254),
  role text not null check (role in ('owner', 'developer', 'viewer', 'operator')),
  -- scrypt, "scrypt$N$r$p$salt$hash"; null until the invitation is accepted
  password_hash text,
  -- base32 TOTP secret (RFC 6238); enabled once confirmed with a code
  totp_secret text,
  totp_enabled boolean not null default false,
  -- the last accepted time step: a code is accepted once (no replay within its window)
  totp_last_step bigint not null default 0,
  failed_sign_ins integer not null default 0,
  locked_until timestamptz,
  disabled boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((role = 'operator') = (merchant_id is null))
);
-- One account per e-mail address: sign-in by address is unambiguous.
create unique index dashboard_users_email_key on dashboard_users (lower(email));
create index dashboard_users_merchant_idx on dashboard_users (merchant_id);

create table dashboard_invitations (
  id bigserial primary key,
  user_id bigint not null references dashboard_users(id),
  -- sha256 of the one-time token in the link; the token itself is shown once
  token_hash text not null unique,
  invited_by text not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  created_at timestamptz not null default now()
);
create index dashboard_invitations_user_idx on dashboard_invitations (user_id);

create table dashboard_sessions (
  -- sha256 of the cookie value
  id_hash text primary key,
  user_id bigint not null references dashboard_users(id),
  csrf_token text not null,
  ip text,
  user_agent text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index dashboard_sessions_user_idx on dashboard_sessions (user_id) where revoked_at is null;

-- Every change made through the dashboard, the console, the admin API's account endpoints and
-- sign-in failures: who, when, from where. Append-only like the ledger.
create table audit_log (
  id bigserial primary key,
  merchant_id bigint references merchants(id),
  user_id bigint references dashboard_users(id),
  actor text not null,
  action text not null,
  detail jsonb not null default '{}',
  ip text,
  at timestamptz not null default now()
);
create index audit_log_merchant_idx on audit_log (merchant_id, id desc);
create index audit_log_id_idx on audit_log (id desc);
-- sign-in throttling per client address counts the recent failures from it
create index audit_log_sign_in_failed_idx on audit_log (ip, at) where action = 'sign_in_failed';

create or replace function audit_log_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'audit log entries are immutable';
end $$;
create trigger audit_log_no_update before update or delete on audit_log
  for each row execute function audit_log_immutable();

-- Status history of deposits and purchases (the detail page's timeline), written by triggers so
-- every writer of a status is covered without touching it.
create table record_status_history (
  id bigserial primary key,
  kind text not null check (kind in ('deposit', 'purchase')),
  record_id bigint not null,
  merchant_id bigint not null,
  from_status text,
  to_status text not null,
  fail_reason text,
  at timestamptz not null default clock_timestamp()
);
create index record_status_history_record_idx on record_status_history (kind, record_id, id);

create or replace function record_status_history_write() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    insert into record_status_history (kind, record_id, merchant_id, from_status, to_status, fail_reason)
    values (tg_argv[0], new.id, new.merchant_id, case when tg_op = 'UPDATE' then old.status end, new.status, new.fail_reason);
  end if;
  return null;
end $$;
create trigger deposits_status_history after insert or update of status on deposits
  for each row execute function record_status_history_write('deposit');
create trigger purchases_status_history after insert or update of status on purchases
  for each row execute function record_status_history_write('purchase');

-- Dashboard lists: newest first per merchant, filtered by status or game, keyset on id; with a
-- date filter, keyset on (created_at, id). The overview's 30-day volume reads (merchant,
-- created_at) with the amount and status in the index (index-only).
create index deposits_merchant_status_idx on deposits (merchant_id, status, id desc);
create index deposits_merchant_game_idx on deposits (merchant_id, game, id desc);
create index deposits_merchant_created_id_idx on deposits (merchant_id, created_at, id) include (amount, status);
create index purchases_merchant_status_idx on purchases (merchant_id, status, id desc);
create index purchases_merchant_game_idx on purchases (merchant_id, game, id desc);
create index purchases_merchant_created_id_idx on purchases (merchant_id, created_at, id) include (amount, status);
create index withdrawals_pending_idx on withdrawals (id) where status = 'pending';

-- When each API key was last used (per key prefix, so a rotated key starts unused): written at
-- most once a minute per key and instance, after the answer, never in the request's path.
create table api_key_usage (
  merchant_id bigint not null references merchants(id),
  key_prefix text not null,
  last_used_at timestamptz not null,
  last_ip text,
  primary key (merchant_id, key_prefix)
);
