// TypeBox schemas of the hosted page's public JSON endpoints (authenticated by the hosted token).
import { Type, type Static } from '@sinclair/typebox';
import { GameEnum, Nullable, Partner, Token } from '../../http/schemas.js';
import { DEPOSIT_STATUSES } from '../../domain/deposit-state.js';

export const HostedTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { title: 'Params' });

export const AssetParams = Type.Object({ file: Type.String({ minLength: 1, maxLength: 100 }) }, { title: 'Params' });

export const HostedInventoryRequest = Type.Object(
  {
    partner: Type.Optional(Partner),
    token: Type.Optional(Token),
    game: Type.Optional(GameEnum),
  },
  { title: 'HostedInventoryRequest' },
);
export type HostedInventoryBody = Static<typeof HostedInventoryRequest>;

export const HostedDepositRequest = Type.Object(
  {
    asset_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 1000 }),
    partner: Type.Optional(Partner),
    token: Type.Optional(Token),
    game: Type.Optional(GameEnum),
  },
  { title: 'HostedDepositRequest' },
);
export type HostedDepositBody = Static<typeof HostedDepositRequest>;

/** What the hosted page reads: the intent and its deposit's state (HostedState). */
export const HostedStateSchema = Type.Object(
  {
    id: Type.Integer(),
    merchant_tx_id: Type.String(),
    merchant_name: Type.String(),
    status: Type.String({ enum: [...DEPOSIT_STATUSES] }),
    game: Type.Union([GameEnum, Type.Null()]),
    games: Type.Array(GameEnum),
    needs_trade_link: Type.Boolean({ description: 'true: the page must ask for the trade link' }),
    max_items: Type.Integer(),
    amount: Nullable(Type.Number()),
    bot_name: Nullable(Type.String()),
    trade_offer_id: Nullable(Type.String()),
    trade_offer_expiry_at: Nullable(Type.String()),
    hold_end_date: Nullable(Type.String()),
    fail_reason: Nullable(Type.String()),
    success_url: Nullable(Type.String()),
    fail_url: Nullable(Type.String()),
    server_time: Type.String({ format: 'date-time' }),
    expires_at: Nullable(Type.String({ format: 'date-time', description: 'when the link stops taking deposits (INTENT_TTL_SECONDS after create-intent)' })),
    expired: Type.Boolean({ description: 'true: the link expired before a deposit was made through it; nothing can be deposited' }),
    parent_origins: Type.Array(Type.String(), { description: 'origins the page posts its status to; empty: any parent' }),
  },
  { title: 'HostedState' },
);
