// TypeBox schema of POST /merchant/create-intent (spec 4.1). The title prefixes validation fields:
// `CreateIntentRequest.merchant_tx_id`. Unknown fields are ignored.
import { Type, type Static } from '@sinclair/typebox';
import { GameEnum, HttpUrl, MerchantTxId, Partner, Token, envelopeOf } from '../../http/schemas.js';
import { CUSTOM_CURRENCY_LIMITS } from '../deposits/deposit-rules.js';

export const CreateIntentRequest = Type.Object(
  {
    merchant_tx_id: MerchantTxId,
    game: Type.Optional(GameEnum),
    partner: Type.Optional(Partner),
    token: Type.Optional(Token),
    result_url: Type.Optional(HttpUrl),
    success_url: Type.Optional(HttpUrl),
    fail_url: Type.Optional(HttpUrl),
    custom_currency: Type.Optional(Type.String({ minLength: 1, maxLength: 4, description: '1 to 4 characters; all three currency fields together' })),
    custom_currency_multiplier: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2 })),
    custom_currency_rate: Type.Optional(Type.Number({ minimum: CUSTOM_CURRENCY_LIMITS.minRate, maximum: CUSTOM_CURRENCY_LIMITS.maxRate })),
  },
  { title: 'CreateIntentRequest' },
);
export type CreateIntentBody = Static<typeof CreateIntentRequest>;

export const CreateIntentResponse = envelopeOf(
  Type.Object({
    id: Type.Integer(),
    merchant_tx_id: Type.String(),
    url: Type.String({ description: 'Address of the hosted deposit page' }),
  }),
);
