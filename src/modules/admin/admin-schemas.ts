// Response schemas of the operator API (DESIGN 5): what the document shows and what Fastify
// serialises. The request schemas stay next to their routes in admin-routes.ts.
import { Type } from '@sinclair/typebox';
import { IsoDate, Nullable, UsdAmount } from '../../http/schemas.js';

const Balance = Type.Object({
  available: UsdAmount('spendable now (USD)'),
  hold: UsdAmount('reserved by purchases in flight (USD)'),
  total: UsdAmount('available + hold (USD)'),
});

const merchantFields = {
  id: Type.Integer(),
  name: Type.String(),
  enabled: Type.Boolean(),
  api_key_prefix: Type.String({ description: 'the first 10 characters of the current API key, to recognise it' }),
  webhook_url: Nullable(Type.String()),
  ip_whitelist: Type.Array(Type.String(), { description: 'exact IP addresses; empty: any' }),
  deposit_preview_enabled: Type.Boolean(),
  max_items: Type.Integer(),
  deposit_multiplier: Type.Number({ description: 'deposit prices are multiplied by this' }),
  purchase_markup: Type.Number({ description: 'catalogue prices are multiplied by this' }),
  frame_ancestors: Type.Array(Type.String(), { description: 'origins allowed to embed the hosted page' }),
  rate_limit_per_minute: Nullable(Type.Integer({ description: "the merchant's own rate limit on the merchant API (requests per minute per API key); null: the gateway's RATE_LIMIT_MERCHANT_PER_MINUTE" })),
  created_at: IsoDate(),
  updated_at: IsoDate(),
};

export const MerchantSchema = Type.Object(merchantFields, { title: 'Merchant' });
export const MerchantWithBalanceSchema = Type.Object({ ...merchantFields, balance: Balance }, { title: 'MerchantWithBalance' });
export const MerchantUpdatedSchema = Type.Union([MerchantSchema, MerchantWithBalanceSchema], {
  description: 'the merchant; an empty patch answers the merchant with its balance',
});
export const CreatedMerchantSchema = Type.Object(
  {
    ...merchantFields,
    api_key: Type.String({ description: 'shown once: store it now' }),
    webhook_secret: Type.String({ description: 'shown once: `whsec_` + standard base64 of 32 random bytes (as the Standard Webhooks libraries expect)' }),
  },
  { title: 'CreatedMerchant' },
);
export const RotatedKeySchema = Type.Object({ id: Type.Integer(), api_key: Type.String(), api_key_prefix: Type.String() });
export const RotatedSecretSchema = Type.Object({ id: Type.Integer(), webhook_secret: Type.String() });

export const TopUpSchema = Type.Object({
  id: Type.Integer(),
  amount: UsdAmount(),
  reference: Type.String({ description: 'the given reference, or a generated `auto-…` one' }),
  duplicate: Type.Boolean({ description: 'true: this reference was already recorded; nothing moved' }),
  balance: Balance,
});

export const WithdrawalSchema = Type.Object(
  {
    id: Type.Integer(),
    merchant_id: Type.Integer(),
    amount: UsdAmount(),
    status: Type.String({ enum: ['pending', 'completed', 'failed', 'canceled'] }),
    reference: Nullable(Type.String()),
    created_at: IsoDate(),
    updated_at: IsoDate(),
  },
  { title: 'Withdrawal' },
);

export const LedgerEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    key: Type.String({ description: 'unique per movement, e.g. purchase:42:reserve' }),
    kind: Type.String(),
    available_delta: UsdAmount(),
    hold_delta: UsdAmount(),
    available_after: UsdAmount(),
    hold_after: UsdAmount(),
    ref_type: Nullable(Type.String()),
    ref_id: Nullable(Type.Integer()),
    created_at: IsoDate(),
  },
  { title: 'LedgerEntry' },
);

export const LedgerVerifySchema = Type.Object({
  ok: Type.Boolean({ description: 'true when every balance equals the sum of its entries' }),
  checked: Type.Integer({ description: 'balances checked' }),
  mismatches: Type.Array(
    Type.Object({
      merchant_id: Type.Integer(),
      available: Type.Integer({ description: 'mills (1/1000 USD)' }),
      hold: Type.Integer(),
      ledger_available: Type.Integer(),
      ledger_hold: Type.Integer(),
    }),
  ),
  entries: Type.Optional(Type.Integer({ description: 'entries read by this run (an incremental run reads only those past its checkpoint)' })),
  from_id: Type.Optional(Type.Integer({ description: 'the checkpoint this run started from (0: none)' })),
  checkpoint_id: Type.Optional(Type.Integer({ description: 'the checkpoint stored after this run (unchanged on a mismatch)' })),
  incremental: Type.Optional(Type.Boolean({ description: 'true when the run started from the stored checkpoint' })),
});
