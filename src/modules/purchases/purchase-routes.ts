// Purchase endpoints (spec 4.8–4.10). Thin: schemas and HTTP here, rules in purchase-service.ts.
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { PurchaseService } from './purchase-service.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { CreatePurchaseRequest, PurchaseHistoryQuery, PurchaseHistorySchema, PurchaseSchema, PurchaseStatusQuery } from './purchase-schemas.js';

export const purchaseRoutes = (ctx: { purchases: PurchaseService }): TypedPlugin => async (app) => {
  const common = { tags: ['purchases'], security: merchantSecurity };

  app.post(
    '/purchase',
    {
      schema: {
        ...common,
        summary: 'Buy a catalogue item by name (cheapest) or by listing ID; idempotent on merchant_tx_id',
        description:
          'Answers the purchase itself (initial status pending, or failed with a creation fail_reason). A repeated merchant_tx_id answers ' +
          'the stored purchase with HTTP 200 and creates nothing. Trade link problems are 400 validation errors with the code of spec 7.3.',
        body: CreatePurchaseRequest,
        response: { 200: envelopeOf(PurchaseSchema) },
      },
    },
    async (req) => {
      const { purchase, created } = await ctx.purchases.create(req.merchant, req.body);
      return ok(purchase, created ? 'purchase created' : 'purchase already exists');
    },
  );

  app.get(
    '/purchase/status',
    {
      schema: {
        ...common,
        summary: 'A purchase by id and/or merchant_tx_id',
        querystring: PurchaseStatusQuery,
        response: { 200: envelopeOf(PurchaseSchema) },
      },
    },
    async (req) => {
      const q = req.query;
      return ok(await ctx.purchases.status(req.merchant.id, { id: q.id, merchantTxId: q.merchant_tx_id }), 'purchase found');
    },
  );

  app.get(
    '/purchase',
    {
      schema: {
        ...common,
        summary: 'Purchase history: filters, sort, paging',
        querystring: PurchaseHistoryQuery,
        response: { 200: envelopeOf(PurchaseHistorySchema) },
      },
    },
    async (req) => {
      const q = req.query;
      return ok(
        await ctx.purchases.history(req.merchant.id, {
          limit: q.limit ?? 50,
          offset: q.offset ?? 0,
          status: q.status,
          dateRange: q.date_range,
          search: q.search,
          sort: q.sort ?? '-id',
        }),
        'purchases listed',
      );
    },
  );
};
