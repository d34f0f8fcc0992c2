-- Issue 20: a bot's session as it really is. `signed_in` in the bot view means a live session —
-- the last call the platform answered signed in (written by the driving instance, at most every
-- 10 s) — not a stored refresh token; session_error says why a bot has none (out of rotation until
-- a sign-in, retried with backoff, works again).
alter table bots
  add column last_authenticated_at timestamptz,
  add column session_error text;
