-- Password reset links and the team's second-factor rule (issue 24).
--
-- A reset link is issued by an owner (for a user of the merchant) or an operator (for anyone) and
-- given to the user; only the SHA-256 of its random token is stored. It works once (used_at, set by
-- a guarded UPDATE), until expires_at; issuing a new one ends the user's earlier unused links.
create table dashboard_password_resets (
  id bigserial primary key,
  user_id bigint not null references dashboard_users(id) on delete cascade,
  token_hash text not null unique,
  issued_by text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index dashboard_password_resets_user_idx on dashboard_password_resets (user_id) where used_at is null;

-- An owner may require an authenticator (TOTP) of everyone on the team; operators always need one.
create table team_settings (
  merchant_id bigint primary key references merchants(id) on delete cascade,
  require_totp boolean not null default false,
  updated_at timestamptz not null default now()
);
