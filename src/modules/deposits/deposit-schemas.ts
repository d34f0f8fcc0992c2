// TypeBox schemas of the deposit endpoints (spec 4.2–4.7). Titles prefix field names in
// validation errors; unknown body fields are ignored, not rejected.
import { Type, type TSchema } from '@sinclair/typebox';
import { GameEnum as GameString, HttpUrl, MerchantTxId, Nullable, Partner, TextRule, Token } from '../../http/schemas.js';
import { isGame, type Game } from '../../domain/games.js';
import { withFastCheck } from '../../http/validation.js';
import { DEPOSIT_STATUSES } from '../../domain/deposit-state.js';
import { CUSTOM_CURRENCY_LIMITS as CC } from './deposit-rules.js';

/** One of the games, typed as Game for the service. */
const GameEnum = Type.Unsafe<Game>({ ...GameString });



const currencyFields = {
  custom_currency: Type.Optional(Type.String({ minLength: CC.minLen, maxLength: CC.maxLen, ...TextRule('line') })),
  custom_currency_multiplier: Type.Optional(Type.Number({ minimum: CC.minMultiplier, maximum: CC.maxMultiplier })),
  custom_currency_rate: Type.Optional(Type.Number({ minimum: CC.minRate, maximum: CC.maxRate })),
};

/**
 * A bound on list bodies against abuse, far above any merchant's max_items (the database caps
 * max_items at 1000): a longer list than the merchant's limit is refused by the service with the
 * spec's `deposit exceeds the maximum of N items per deposit` / too_many_items, not by the schema.
 */
const MAX_LIST_ITEMS = 10_000;
const urlFields = {
  result_url: Type.Optional(HttpUrl),
  success_url: Type.Optional(HttpUrl),
  fail_url: Type.Optional(HttpUrl),
};

export const InventoryRequest = Type.Object({ game: GameEnum, partner: Partner, token: Token }, { title: 'InventoryRequest' });

export const CreateDepositRequest = Type.Object(
  {
    merchant_tx_id: MerchantTxId,
    game: GameEnum,
    partner: Partner,
    token: Token,
    asset_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_LIST_ITEMS }),
    // DESIGN 8: request schemas must not reject min_prices. An object asset_id → minimum USD price
    // (number or numeric string); any other value, or a min_prices that is not an object, is ignored.
    min_prices: Type.Optional(
      Type.Unknown({ description: 'Object: asset_id → minimum USD price (number or numeric string). Values that are not prices, and values of 0 or below, are ignored.' }),
    ),
    from_preview: Type.Optional(Type.Boolean()),
    ...urlFields,
    ...currencyFields,
  },
  { title: 'CreateDepositRequest' },
);

const MAX_PRICE_NAMES = 2000;
const MAX_NAME_LENGTH = 512;

export const GetPricesRequest = withFastCheck(
  Type.Object(
    {
      game: GameEnum,
      marketHashNames: Type.Array(Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }), { minItems: 1, maxItems: MAX_PRICE_NAMES }),
      no_deposit_intent: Type.Optional(Type.Boolean({ default: false })),
    },
    { title: 'GetPricesRequest' },
  ),
  // One tight loop over the names instead of Ajv's per-item walk; anything doubtful (a name over
  // 512 UTF-16 units may still be 512 code points) goes to Ajv, which words the errors.
  (body) => {
    if (body === null || typeof body !== 'object') return false;
    const b = body as { game?: unknown; marketHashNames?: unknown; no_deposit_intent?: unknown };
    if (!isGame(b.game)) return false;
    const names = b.marketHashNames;
    if (!Array.isArray(names) || names.length < 1 || names.length > MAX_PRICE_NAMES) return false;
    for (let i = 0; i < names.length; i++) {
      const n: unknown = names[i];
      if (typeof n !== 'string' || n.length === 0 || n.length > MAX_NAME_LENGTH) return false;
    }
    if (b.no_deposit_intent === undefined) b.no_deposit_intent = false;
    else if (typeof b.no_deposit_intent !== 'boolean') return false;
    return true;
  },
);

export const CreateDepositByHashNameRequest = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }),
    merchant_tx_id: MerchantTxId,
    game: GameEnum,
    partner: Partner,
    token: Token,
    items: Type.Array(
      Type.Object({
        asset_id: Type.String({ pattern: '^[0-9]+$', minLength: 1, maxLength: 64 }),
        name: Type.String({ minLength: 1, maxLength: 512 }),
        min_price: Type.Optional(Nullable(Type.Number())),
      }),
      { minItems: 1, maxItems: MAX_LIST_ITEMS },
    ),
    ...urlFields,
    ...currencyFields,
  },
  { title: 'CreateDepositByHashNameRequest' },
);

export const DepositPreviewRequest = Type.Object(
  {
    game: GameEnum,
    partner: Type.Optional(Partner),
    token: Type.Optional(Token),
    items: Type.Optional(
      Type.Array(
        Type.Object({
          asset_id: Type.String({ minLength: 1, maxLength: 64 }),
          name: Type.String({ minLength: 1, maxLength: 512 }),
          icon_url: Type.String({ maxLength: 2048 }),
        }),
        { maxItems: 1000 },
      ),
    ),
  },
  { title: 'DepositPreviewRequest' },
);

export const DepositStatusQuery = Type.Object(
  {
    id: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991 })),
    merchant_tx_id: Type.Optional(MerchantTxId),
  },
  { title: 'DepositStatusQuery' },
);

// ---- responses (also the OpenAPI document) ----

const BotPlatformId = Nullable(
  Type.Integer({
    format: 'int64',
    description: '64-bit platform ID of the bot, a JSON integer as the spec says: above 2^53, so parse it with a big-integer-aware JSON reader to keep it exact',
  }),
);

export const InventoryItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  price: Type.Number(),
  image_url: Type.String(),
  exterior: Type.Optional(Type.String()),
  rarity: Type.Optional(Type.String()),
  rarity_color: Type.Optional(Type.String()),
  phase: Type.Optional(Type.String()),
});

export const InventoryResponse = Type.Object({
  items: Type.Array(InventoryItem),
  total: Type.Integer(),
  sum: Type.Number(),
  game: Type.String(),
  max_items: Type.Integer(),
});

/** Fields every deposit answer carries (create-deposit, hash-name commit, status). */
const DepositCore = {
  id: Type.Integer(),
  merchant_tx_id: Nullable(Type.String()),
  status: Type.String({ enum: [...DEPOSIT_STATUSES] }),
  amount: Type.Number(),
  bot_name: Nullable(Type.String()),
  bot_platform_id: BotPlatformId,
  trade_offer_id: Nullable(Type.String()),
  trade_offer_expiry_at: Nullable(Type.String()),
};

export const CommitResponse = Type.Object({
  ...DepositCore,
  fail_reason: Type.Optional(Nullable(Type.String())),
});

export const QuoteResponse = Type.Object({
  id: Type.Optional(Type.Integer()),
  total: Type.Integer(),
  sum: Type.Number(),
  items: Nullable(Type.Array(Type.Object({ name: Type.String(), price: Type.Number(), originalPrice: Type.Number() }))),
});

export const PreviewResponse = Type.Object({
  // With an items list only id, name, price and phase are returned, so the card fields are optional.
  items: Type.Array(Type.Object({ ...InventoryItem.properties, image_url: Type.Optional(Type.String()) })),
  total: Type.Integer(),
  sum: Type.Number(),
  game: Type.String(),
  max_items: Type.Integer(),
});

export const DepositStatusResponse = Type.Object({
  ...DepositCore,
  success_url: Type.Optional(Type.String()),
  fail_url: Type.Optional(Type.String()),
  hold_end_date: Type.Optional(Nullable(Type.String())),
  fail_reason: Nullable(Type.String()),
  custom_currency: Type.Optional(Nullable(Type.String())),
  custom_currency_multiplier: Type.Optional(Nullable(Type.Number())),
  custom_currency_rate: Type.Optional(Nullable(Type.Number())),
  custom_currency_sum: Type.Optional(Nullable(Type.Number())),
});
