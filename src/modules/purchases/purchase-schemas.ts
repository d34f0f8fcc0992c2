// TypeBox schemas of the purchase endpoints (spec 4.8–4.10). Titles prefix field names in
// validation errors (CreatePurchaseRequest.token …).
import { Type } from '@sinclair/typebox';
import { GameEnum, MerchantTxId, Partner, StringEnum, Token, Usd } from '../../http/schemas.js';
import { PURCHASE_FAIL_REASONS, PURCHASE_STATUSES } from '../../domain/purchase-state.js';
import { SORTS } from './purchase-repo.js';

export const CreatePurchaseRequest = Type.Object(
  {
    partner: Partner,
    token: Token,
    game: GameEnum,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'item market name; either name or asset_id' })),
    asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'catalogue listing ID (id from purchase/available); either name or asset_id' })),
    merchant_tx_id: Type.Optional(MerchantTxId),
    max_price: Type.Optional({ ...Usd, description: 'maximum price accepted (USD, at most 3 decimals)' }),
  },
  { title: 'CreatePurchaseRequest' },
);

export const PurchaseStatusQuery = Type.Object(
  {
    id: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991 })),
    merchant_tx_id: Type.Optional(MerchantTxId),
  },
  { title: 'PurchaseStatusRequest' },
);

export const DATE_RANGES = [1, 7, 30, 90, 365] as const;

export const PurchaseHistoryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
    status: Type.Optional(StringEnum(PURCHASE_STATUSES)),
    date_range: Type.Optional(Type.Integer({ enum: [...DATE_RANGES], description: 'days to look back: 1, 7, 30, 90 or 365' })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'matches merchant_tx_id or item name' })),
    sort: Type.Optional(StringEnum(SORTS, { default: '-id' })),
  },
  { title: 'PurchaseHistoryRequest' },
);

const PurchaseItem = Type.Object({ id: Type.String(), name: Type.String(), price: Type.Number(), image_url: Type.String() });

export const PurchaseSchema = Type.Object(
  {
    id: Type.Integer(),
    merchant_tx_id: Type.Optional(Type.String()),
    status: Type.String({ enum: [...PURCHASE_STATUSES] }),
    fail_reason: Type.Optional(Type.String({ enum: PURCHASE_FAIL_REASONS, description: 'when failed, canceled or reverted (spec 3.3)' })),
    platform_id: Type.String(),
    platform_name: Type.Optional(Type.String()),
    platform_avatar_url: Type.Optional(Type.String()),
    amount: Type.Number(),
    trade_offer_id: Type.Optional(Type.String()),
    hold_end_date: Type.Optional(Type.String()),
    date: Type.String(),
    item: Type.Optional(PurchaseItem),
  },
  { title: 'Purchase' },
);

export const PurchaseHistorySchema = Type.Object({ data: Type.Array(PurchaseSchema), total: Type.Integer() });
