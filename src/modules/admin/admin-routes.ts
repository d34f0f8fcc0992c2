// Operator API (DESIGN 5): merchants, keys, balances, withdrawals and the ledger.
import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { MerchantService } from '../merchants/merchant-service.js';
import type { LedgerService } from '../ledger/ledger-service.js';
import { adminSecurity, envelopeOf, HttpUrl, IdParam, Paging } from '../../http/schemas.js';
import * as R from './admin-schemas.js';
import { ok } from '../../http/envelope.js';
import { usdToMills, usdTextToMills, MoneyError } from '../../domain/money.js';
import { validationError } from '../../domain/errors.js';
import { MERCHANT_NAME_MAX, MIN_RATE } from '../merchants/merchant-service.js';
import { RATE_LIMIT_MAX_PER_MINUTE } from '../../config.js';

const MerchantFields = {
  webhook_url: Type.Optional(Type.Union([HttpUrl, Type.Null()])),
  ip_whitelist: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
  deposit_preview_enabled: Type.Optional(Type.Boolean()),
  max_items: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  enabled: Type.Optional(Type.Boolean()),
  deposit_multiplier: Type.Optional(Type.Number({ minimum: MIN_RATE, maximum: 10 })),
  purchase_markup: Type.Optional(Type.Number({ minimum: MIN_RATE, maximum: 10 })),
  frame_ancestors: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 50 })),
  rate_limit_per_minute: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: RATE_LIMIT_MAX_PER_MINUTE }), Type.Null()], {
      description: "requests per minute per API key on the merchant API; null: the gateway's default (RATE_LIMIT_MERCHANT_PER_MINUTE)",
    }),
  ),
};
// Operator writes take only these fields: an unknown one (a typo, or a column such as
// api_key_hash, webhook_secret, id or created_at) is refused, never ignored or stored.
const CreateMerchant = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: MERCHANT_NAME_MAX }), ...MerchantFields },
  { title: 'CreateMerchantRequest', additionalProperties: false },
);
const PatchMerchant = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: MERCHANT_NAME_MAX })), ...MerchantFields },
  { title: 'UpdateMerchantRequest', additionalProperties: false },
);
const AmountBody = (title: string) =>
  Type.Object(
    {
      amount: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000 }),
      reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    },
    { title, additionalProperties: false },
  );

/** USD from the wire to mills, with the money rules reported as a validation error on `amount`. */
export function amountToMills(amount: number, field = 'amount'): number {
  try {
    return usdToMills(amount);
  } catch (err) {
    if (err instanceof MoneyError) throw validationError([{ field, code: err.code, message: `${field}: ${err.message}` }]);
    throw err;
  }
}

/** A positive USD amount typed as text (forms, the CLI) → mills, decided on the text as typed. */
export function amountTextToMills(text: string, field = 'amount'): number {
  let mills: number;
  try {
    mills = usdTextToMills(text, field);
  } catch (err) {
    if (err instanceof MoneyError) throw validationError([{ field, code: err.code, message: err.message }]);
    throw err;
  }
  if (mills <= 0) throw validationError([{ field, code: 'min', message: `${field} must be a positive number of USD` }]);
  return mills;
}

export const adminRoutes = (ctx: { merchants: MerchantService; ledger: LedgerService }): TypedPlugin => async (app) => {
  const common = { tags: ['admin'], security: adminSecurity };

  app.post('/merchants', { schema: { ...common, summary: 'Create a merchant (answers the API key and webhook secret once)', body: CreateMerchant, response: { 201: envelopeOf(R.CreatedMerchantSchema) } } }, async (req, reply) => {
    return reply.code(201).send(ok(await ctx.merchants.create(req.body), 'merchant created'));
  });

  app.get('/merchants', { schema: { ...common, summary: 'List merchants', querystring: Paging('ListMerchantsQuery'), response: { 200: envelopeOf(Type.Array(R.MerchantSchema)) } } }, async (req) => {
    return ok(await ctx.merchants.list(req.query.limit, req.query.offset), 'merchants listed');
  });

  app.get('/merchants/:id', { schema: { ...common, summary: 'A merchant with its balance', params: IdParam, response: { 200: envelopeOf(R.MerchantWithBalanceSchema) } } }, async (req) => {
    return ok(await ctx.merchants.get(req.params.id), 'merchant found');
  });

  app.patch('/merchants/:id', { schema: { ...common, summary: 'Update a merchant', params: IdParam, body: PatchMerchant, response: { 200: envelopeOf(R.MerchantUpdatedSchema) } } }, async (req) => {
    return ok(await ctx.merchants.update(req.params.id, req.body), 'merchant updated');
  });

  app.post('/merchants/:id/rotate-key', { schema: { ...common, summary: 'Issue a new API key; the old one stops working at once', params: IdParam, response: { 200: envelopeOf(R.RotatedKeySchema) } } }, async (req) => {
    return ok(await ctx.merchants.rotateKey(req.params.id), 'API key rotated');
  });

  app.post('/merchants/:id/rotate-webhook-secret', { schema: { ...common, summary: 'Issue a new webhook secret', params: IdParam, response: { 200: envelopeOf(R.RotatedSecretSchema) } } }, async (req) => {
    return ok(await ctx.merchants.rotateWebhookSecret(req.params.id), 'webhook secret rotated');
  });

  app.post('/merchants/:id/top-ups', { schema: { ...common, summary: 'Credit available balance (idempotent by reference)', params: IdParam, body: AmountBody('TopUpRequest'), response: { 200: envelopeOf(R.TopUpSchema), 201: envelopeOf(R.TopUpSchema) } } }, async (req, reply) => {
    const body = req.body;
    const result = await ctx.ledger.topUp(req.params.id, amountToMills(body.amount), body.reference);
    return reply.code(result.duplicate ? 200 : 201).send(ok(result, result.duplicate ? 'top-up already recorded' : 'top-up recorded'));
  });

  app.post('/merchants/:id/withdrawals', { schema: { ...common, summary: 'Withdraw from available balance (pending until completed)', params: IdParam, body: AmountBody('WithdrawalRequest'), response: { 201: envelopeOf(R.WithdrawalSchema) } } }, async (req, reply) => {
    const body = req.body;
    return reply.code(201).send(ok(await ctx.ledger.createWithdrawal(req.params.id, amountToMills(body.amount), body.reference), 'withdrawal created'));
  });

  app.get('/merchants/:id/withdrawals', { schema: { ...common, summary: 'List withdrawals', params: IdParam, querystring: Paging('ListWithdrawalsQuery'), response: { 200: envelopeOf(Type.Array(R.WithdrawalSchema)) } } }, async (req) => {
    return ok(await ctx.ledger.listWithdrawals(req.params.id, req.query.limit, req.query.offset), 'withdrawals listed');
  });

  for (const action of ['complete', 'fail', 'cancel'] as const) {
    app.post(`/withdrawals/:id/${action}`, { schema: { ...common, summary: `Mark a pending withdrawal ${action}`, params: IdParam, response: { 200: envelopeOf(R.WithdrawalSchema) } } }, async (req) => {
      return ok(await ctx.ledger.transitionWithdrawal(req.params.id, action), `withdrawal ${action}d`.replace('eed', 'ed'));
    });
  }

  app.get('/merchants/:id/ledger', { schema: { ...common, summary: 'Ledger entries, newest first', params: IdParam, querystring: Paging('ListLedgerQuery'), response: { 200: envelopeOf(Type.Array(R.LedgerEntrySchema)) } } }, async (req) => {
    return ok(await ctx.ledger.entries(req.params.id, req.query.limit, req.query.offset), 'ledger entries listed');
  });

  app.get('/ledger/verify', { schema: { ...common, summary: 'Reconcile every balance with the sum of its ledger entries', response: { 200: envelopeOf(R.LedgerVerifySchema) } } }, async () => {
    const r = await ctx.ledger.verify();
    return ok({ ok: r.mismatches.length === 0, ...r }, r.mismatches.length === 0 ? 'ledger balances' : 'ledger mismatch');
  });
};

