// Wire shapes of the operator's bots API: the request bodies (unknown fields refused,
// as on every operator write) and the answers (what the document shows and Fastify serialises).
// Secrets are write-only: no answer schema has a field for them.
import { Type } from '@sinclair/typebox';
import { GameEnum, IsoDate, Nullable } from '../../http/schemas.js';

const Fields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  games: Type.Optional(Type.Array(GameEnum, { minItems: 1, maxItems: 4, uniqueItems: true })),
  inventory_capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
};

const Proxy = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'the bot\'s own outbound proxy: http://, https://, socks4://, socks5:// or socks5h:// URL, credentials allowed (user:pass@host:port); every call of the bot, its sign-in included, leaves through it; stored encrypted, shown only as "set"; takes effect at the bot\'s next start (disable then enable, a restart)',
});

const WebCookies = Type.Array(Type.String({ minLength: 3, maxLength: 4096 }), {
  minItems: 1,
  maxItems: 20,
  description: 'a stored web session: steamcommunity cookies, one of them steamLoginSecure=<steamid>%7C%7C<access token>; used as is (no login host needed), stored encrypted',
});

export const WebSessionRequest = Type.Object({ web_cookies: WebCookies }, { title: 'WebSessionRequest', additionalProperties: false });

export const CreateBotRequest = Type.Object(
  {
    account_name: Type.String({ minLength: 3, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
    shared_secret: Type.String({ minLength: 28, maxLength: 28, description: 'base64 of 20 bytes (the maFile value)' }),
    identity_secret: Type.String({ minLength: 28, maxLength: 28, description: 'base64 of 20 bytes (the maFile value)' }),
    platform_id: Type.String({ minLength: 17, maxLength: 17, description: 'the 17-digit 64-bit account ID (7656119…)' }),
    web_cookies: Type.Optional(WebCookies),
    proxy: Type.Optional(Proxy),
    ...Fields,
  },
  { title: 'CreateBotRequest', additionalProperties: false },
);

export const UpdateBotRequest = Type.Object(
  { ...Fields, enabled: Type.Optional(Type.Boolean({ description: 'true also clears cannot_trade' })), proxy: Type.Optional(Nullable(Proxy)) },
  { title: 'UpdateBotRequest', additionalProperties: false },
);

export const BotSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    account_name: Nullable(Type.String()),
    platform_id: Type.String({ description: 'the 64-bit account ID, as a string' }),
    status: Type.String({ enum: ['active', 'disabled', 'cannot_trade', 'removed'] }),
    enabled: Type.Boolean(),
    trade_state: Type.String({ enum: ['ok', 'cannot_trade'] }),
    trade_state_reason: Nullable(Type.String()),
    games: Type.Array(GameEnum),
    inventory_capacity: Type.Integer(),
    signed_in: Type.Boolean({ description: 'a live session: a signed-in call went through with the bot\'s current session (a sign-in alone is not enough), the last within the last few poll intervals (last_authenticated_at)' }),
    last_authenticated_at: Nullable(IsoDate()),
    session_error: Nullable(Type.String({ description: 'why the bot has no live session, or why its last sign-in failed (sign-in retried with backoff)' })),
    proxy: Nullable(Type.String({ description: '"set" when the bot has its own outbound proxy (its URL is never shown), else null' })),
    sign_in_retry_at: Nullable(IsoDate('while a failed or rate-limited sign-in backs off: when the next one may be tried')),
    rotation: Type.String({ enum: ['in', 'draining', 'out'], description: 'in: takes new offers (the picker decides by the same rule); draining: disabled, still settling its open offers; out: neither' }),
    rotation_reason: Nullable(Type.String({ description: 'why the bot is not in: disabled, cannot trade, not driven yet, no live session (with the sign-in error and the next attempt)' })),
    lease_owner: Nullable(Type.String({ description: 'the instance driving the bot, while its lease runs' })),
    lease_expires_at: Nullable(IsoDate()),
    trade_protection_acknowledged_at: Nullable(IsoDate()),
    last_checked_at: Nullable(IsoDate()),
    created_at: IsoDate(),
    removed_at: Nullable(IsoDate()),
  },
  { title: 'Bot' },
);

export const BotCheckSchema = Type.Object(
  {
    bot: BotSchema,
    check: Type.Object(
      {
        signed_in: Type.Boolean(),
        platform_id: Type.Optional(Type.String()),
        can_trade: Type.Boolean(),
        trade_protection_acknowledged: Type.Boolean(),
        confirmations_reachable: Type.Boolean(),
        inventory: Type.Optional(Type.Record(Type.String(), Type.Integer(), { description: 'tradable items per game the bot serves' })),
        listed_but_missing: Type.Optional(Type.Array(Type.String(), { description: 'asset ids of listings for sale the bot no longer holds' })),
        problems: Type.Array(Type.String()),
      },
      { title: 'BotCheckReport' },
    ),
  },
  { title: 'BotCheck' },
);

const SkippedCounts = Type.Object(
  {
    protected: Type.Integer({ description: 'in trade protection or a cooldown' }),
    in_offer: Type.Integer({ description: 'in one of the bot\'s active offers' }),
    deposit: Type.Integer({ description: 'arrived in a deposit: listed by its completion' }),
    listed: Type.Integer({ description: 'already listed (an import)' }),
    unpriced: Type.Integer({ description: 'no price (or no known phase of a phase-priced item)' }),
    filtered: Type.Integer({ description: 'outside BOT_SYNC_MIN_PRICE / BOT_SYNC_MAX_PRICE' }),
  },
  { title: 'BotSyncSkipped' },
);

export const BotSyncRequest = Type.Object(
  { bot_id: Type.Optional(Type.Integer({ minimum: 1, description: 'only this bot (default: every bot)' })) },
  { title: 'BotSyncRequest', additionalProperties: false },
);

export const BotSyncSchema = Type.Object(
  {
    bots: Type.Array(
      Type.Object({
        bot_id: Type.Integer(),
        game: Type.String(),
        items: Type.Integer({ description: 'items the platform shows in the bot\'s inventory' }),
        listed: Type.Integer({ description: 'listings added, repriced or listed again' }),
        delisted: Type.Integer({ description: 'listings whose item left the bot (or may not be sold now)' }),
        skipped: SkippedCounts,
        error: Type.Optional(Type.String({ description: 'the inventory could not be read: the bot\'s listings were left as they are' })),
      }, { title: 'BotSyncBot' }),
    ),
    listed: Type.Integer(),
    delisted: Type.Integer(),
    errors: Type.Integer(),
  },
  { title: 'BotSync' },
);
