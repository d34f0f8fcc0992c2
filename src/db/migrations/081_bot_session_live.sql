-- A bot's session as its driver sees it, written on every change so that the operator's view, the
-- console, the metrics and the picker read one state: session_live is true only once a signed-in
-- call went through with the current session (a sign-in alone proves nothing); sign_in_retry_at is
-- when the next sign-in may be tried (a failed or rate-limited one backs off); web_session is the
-- driver's last working web session, sealed, so that a restart, a lease move or a re-enable uses it
-- instead of signing in again.
alter table bots
  add column session_live boolean not null default false,
  add column sign_in_retry_at timestamptz,
  add column web_session bytea;
