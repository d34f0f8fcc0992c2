-- A bot's own outbound proxy (http://, https:// or socks5:// URL, credentials included), sealed with
-- BOT_SECRETS_KEY like the bot's other secrets: every call of the bot (sign-in, token renewal, the
-- trading libraries) leaves through it, since the platform's limits are per address. Null: direct.
alter table bots add column proxy bytea;
