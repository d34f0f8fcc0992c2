// Operator API of reconciliation: the latest run's discrepancies, and a run now.
import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import { adminSecurity, envelopeOf, IsoDate, Nullable, Paging } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import type { ReconcileService } from './reconcile-service.js';

const DiscrepancySchema = Type.Object(
  {
    n: Type.Integer(),
    kind: Type.String({ description: 'trade_without_record, deposit_trade_not_credited, purchase_trade_not_recorded, reversed_trade_still_credited, reversed_purchase_not_recorded, credit_without_trade, purchase_without_trade, listed_item_missing' }),
    bot_id: Nullable(Type.Integer()),
    record_kind: Nullable(Type.String()),
    record_id: Nullable(Type.Integer()),
    merchant_id: Nullable(Type.Integer()),
    trade_id: Nullable(Type.String()),
    listing_id: Nullable(Type.String()),
    asset_id: Nullable(Type.String()),
    detail: Type.String(),
    action: Type.String({ description: 'what the operator should do' }),
  },
  { title: 'Discrepancy' },
);

export const ReconcileReportSchema = Type.Object(
  {
    run_id: Type.Integer(),
    started_at: IsoDate(),
    finished_at: IsoDate(),
    since: IsoDate('trades and records from this time on were compared'),
    bots_read: Type.Integer(),
    read_errors: Type.Array(Type.Object({ bot_id: Type.Integer(), what: Type.String(), error: Type.String() }), { description: 'what could not be read: those records were not judged' }),
    total: Type.Integer({ description: 'discrepancies found by the run' }),
    discrepancies: Type.Array(DiscrepancySchema),
  },
  { title: 'ReconcileReport' },
);

export const reconcileRoutes = (ctx: { reconcile: ReconcileService }): TypedPlugin => async (app) => {
  const common = { tags: ['admin'], security: adminSecurity };
  app.get('/reconciliation', { schema: { ...common, summary: 'The latest reconciliation against the platform: its discrepancies, with what to do (404 before the first run)', querystring: Paging('ReconcileQuery'), response: { 200: envelopeOf(ReconcileReportSchema) } } }, async (req) => {
    return ok(await ctx.reconcile.report(undefined, req.query.limit, req.query.offset), 'reconciliation report');
  });
  app.post('/reconciliation/run', { schema: { ...common, summary: 'Reconcile now: the bots\' trade history and inventories against the records (also runs every RECONCILE_SECONDS)', response: { 200: envelopeOf(ReconcileReportSchema) } } }, async () => {
    return ok(await ctx.reconcile.run(), 'reconciliation done');
  });
};
