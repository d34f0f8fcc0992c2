-- Sign-in hardening (issue 21).
--
-- Attempts per address, counted BEFORE the password work: one INSERT … ON CONFLICT DO UPDATE per
-- attempt reserves a place in the address's window atomically, so parallel attempts cannot all pass
-- a check made before any of them was recorded. A successful sign-in gives its place back; failures
-- keep theirs. The window starts at the first counted attempt.
create table sign_in_address_attempts (
  ip text primary key,
  window_started_at timestamptz not null default now(),
  attempts integer not null check (attempts >= 0)
);

-- Server-side keys of the web pages, shared by every instance: `pre_sign_in` signs the form token
-- of the pre-sign-in double-submit cookie (a pair the gateway never issued is refused).
create table web_keys (
  name text primary key,
  key bytea not null check (length(key) = 32),
  created_at timestamptz not null default now()
);
