-- Accounts: what a disable ends for good, and invitations of an address that has an account elsewhere.
--
-- disabled_at: when the user was last disabled (kept when enabled again). A session, a password
-- reset link, an invitation link or a mail job made before it never works again, even once the
-- user is enabled: the disable also ends them in its own transaction, and every check compares
-- with this stamp as well (a link being minted by a mail job while the disable commits included).
alter table dashboard_users add column disabled_at timestamptz;

-- account_elsewhere: an owner invited an address that already has an account (at another merchant
-- or as an operator). The invitation is recorded on the owner's team as a pending user like any
-- other, so the owner learns nothing, but it can never be accepted: one address, one account. Such a
-- row never has a password and is never looked up by address (sign-in, "forgot your password?").
alter table dashboard_users add column account_elsewhere boolean not null default false;
alter table dashboard_users add constraint dashboard_users_elsewhere_pending
  check (not account_elsewhere or (password_hash is null and merchant_id is not null));

-- One account per address still (sign-in by address stays unambiguous); the pending invitations of
-- an address elsewhere are one per team.
drop index dashboard_users_email_key;
create unique index dashboard_users_email_key on dashboard_users (lower(email)) where not account_elsewhere;
create unique index dashboard_users_elsewhere_key on dashboard_users (merchant_id, lower(email)) where account_elsewhere;
