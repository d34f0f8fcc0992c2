// Deposit endpoints of the merchant API (spec 4.2–4.7). Thin: schema, auth (done by the
// merchant API scope), then one service call.
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { Static } from '@sinclair/typebox';
import type { DepositService } from './deposit-service.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { forbidden } from '../../domain/errors.js';
import * as S from './deposit-schemas.js';

const tags = ['deposits'];
const JSON_TYPE = 'application/json; charset=utf-8';

export const depositRoutes = (ctx: { deposits: DepositService }): TypedPlugin => async (app) => {
  app.post<{ Body: Static<typeof S.InventoryRequest> }>(
    '/inventory',
    {
      schema: {
        tags, security: merchantSecurity,
        summary: "The user's priced inventory; starts a pricing snapshot for create-deposit",
        body: S.InventoryRequest,
        response: { 200: envelopeOf(S.InventoryResponse) },
      },
    },
    async (request) => ok(await ctx.deposits.inventory(request.merchant, request.body), 'inventory loaded'),
  );

  app.post<{ Body: Static<typeof S.CreateDepositRequest> }>(
    '/create-deposit',
    {
      schema: {
        tags, security: merchantSecurity,
        summary: 'Creates a deposit of assets from the inventory snapshot and sends the trade offer',
        body: S.CreateDepositRequest,
        response: { 200: envelopeOf(S.CommitResponse) },
      },
    },
    async (request) => {
      const d = await ctx.deposits.createDeposit(request.merchant, request.body);
      return ok(d, d.status === 'failed' ? 'deposit failed' : 'deposit created');
    },
  );

  app.post<{ Body: Static<typeof S.GetPricesRequest> }>(
    '/get-prices',
    {
      schema: {
        tags, security: merchantSecurity,
        summary: 'Quotes items by market hash name; a draft trade locks the quote',
        body: S.GetPricesRequest,
        response: { 200: envelopeOf(S.QuoteResponse) },
      },
    },
    // The envelope comes as JSON text built from cached fragments (quote-wire.ts); the schema
    // above still documents it.
    async (request, reply) => reply.type(JSON_TYPE).send(await ctx.deposits.getPrices(request.merchant, request.body)),
  );

  app.post<{ Body: Static<typeof S.CreateDepositByHashNameRequest> }>(
    '/create-deposit-by-hash-name',
    {
      schema: {
        tags, security: merchantSecurity,
        summary: 'Commits a get-prices draft with per-item price floors and sends the trade offer',
        body: S.CreateDepositByHashNameRequest,
        response: { 200: envelopeOf(S.CommitResponse) },
      },
    },
    async (request) => {
      const d = await ctx.deposits.createDepositByHashName(request.merchant, request.body);
      return ok(d, d.status === 'failed' ? 'deposit failed' : 'deposit created');
    },
  );

  app.post<{ Body: Static<typeof S.DepositPreviewRequest> }>(
    '/deposit-preview',
    {
      // 403 before the body is even looked at: the feature is off for this merchant.
      preValidation: async (request) => {
        if (!request.merchant.deposit_preview_enabled) throw forbidden('deposit preview is not enabled for this merchant');
      },
      schema: {
        tags, security: merchantSecurity,
        summary: 'Side-effect-free display quote of a list of items or of the user inventory',
        body: S.DepositPreviewRequest,
        response: { 200: envelopeOf(S.PreviewResponse) },
      },
    },
    async (request) => ok(await ctx.deposits.preview(request.merchant, request.body), 'preview quoted'),
  );

  app.get<{ Querystring: Static<typeof S.DepositStatusQuery> }>(
    '/deposit/status',
    {
      schema: {
        tags, security: merchantSecurity,
        summary: 'A deposit by id and/or merchant_tx_id',
        querystring: S.DepositStatusQuery,
        response: { 200: envelopeOf(S.DepositStatusResponse) },
      },
    },
    async (request) => ok(await ctx.deposits.status(request.merchant, request.query), 'deposit found'),
  );
};
