// Operator API for prices: flagged items, an item's basis, a stored basis, the sources'
// poll state, the override list (pin / block, audited) and jump confirmation. Prices in USD.
import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import { adminSecurity, envelopeOf, GameEnum, IdParam, Nullable, StringEnum, WithDefaults } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { notFound } from '../../domain/errors.js';
import { millsToUsd } from '../../domain/money.js';
import type { Game } from '../../domain/games.js';
import { clientIp } from '../../http/client-ip.js';
import { amountToMills } from '../admin/admin-routes.js';
import { LISTED_FLAGS, type ItemBasisView, type PricingService } from './pricing-service.js';
import type { PriceActor, PriceAdminService } from './price-admin-service.js';

const Usd = Nullable(Type.Number());
const ReadingSchema = Type.Object({
  source: Type.String(),
  role: Type.String(),
  price: Type.Number(),
  as_of: Type.String(),
  liquidity: Type.Optional(Type.Integer()),
  status: Type.String({ description: 'used, outlier, stale, illiquid or guard' }),
});
const BasisSchema = Type.Object(
  {
    game: Type.String(),
    market_hash_name: Type.String(),
    basis_id: Nullable(Type.Integer()),
    computed_at: Nullable(Type.String()),
    reference: Usd,
    deposit_price: Usd,
    sale_price: Usd,
    flags: Type.Array(Type.String()),
    pending_jump: Usd,
    readings: Type.Array(ReadingSchema),
  },
  { title: 'PriceBasis' },
);
const ItemQuery = Type.Object({ game: GameEnum, market_hash_name: Type.String({ minLength: 1, maxLength: 512 }) }, { title: 'PriceItemQuery', additionalProperties: false });
const FlaggedQuery = WithDefaults(
  Type.Object(
    {
      flag: Type.Optional(StringEnum(LISTED_FLAGS)),
      game: Type.Optional(GameEnum),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
      offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
    },
    { title: 'FlaggedPricesQuery' },
  ),
  'limit',
  'offset',
);
const OverrideBody = Type.Object(
  {
    game: GameEnum,
    market_hash_name: Type.String({ minLength: 1, maxLength: 512 }),
    action: StringEnum(['pin', 'block'] as const),
    price: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'USD; pins only' })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { title: 'PriceOverrideRequest', additionalProperties: false },
);
const OverrideSchema = Type.Object({
  game: Type.String(),
  market_hash_name: Type.String(),
  action: Type.String(),
  price: Usd,
  reason: Type.String(),
  set_by: Type.String(),
  set_at: Type.String(),
});
const SourceSchema = Type.Object({
  id: Type.String(),
  failures: Type.Integer(),
  last_success_at: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  next_poll_at: Nullable(Type.String()),
});
const RefreshSchema = Type.Object(
  {
    running: Type.Boolean({ description: 'a market source is being polled or its readings taken, or bases are still being written' }),
    polling: Type.Array(Type.String(), { description: 'market sources polling now' }),
    bases_pending: Type.Integer({ description: 'price bases published and not yet written (written in the background)' }),
  },
  { title: 'PriceRefreshState' },
);

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
const usd = (m: number | null) => (m === null ? null : millsToUsd(m));

/** A basis with its prices in USD. */
export function basisWire(b: ItemBasisView) {
  return { ...b, reference: usd(b.reference), deposit_price: usd(b.deposit_price), sale_price: usd(b.sale_price), pending_jump: usd(b.pending_jump), readings: b.readings.map((r) => ({ ...r, price: millsToUsd(r.price) })) };
}

export const priceAdminRoutes = (ctx: { pricing: PricingService; priceAdmin: PriceAdminService }): TypedPlugin => async (app) => {
  const admin = ctx.priceAdmin;
  const common = { tags: ['admin'], security: adminSecurity };
  const by = (req: Parameters<typeof clientIp>[0]): PriceActor => ({ actor: 'admin-token', userId: null, ip: clientIp(req) });

  app.get('/prices/flagged', { schema: { ...common, summary: 'Items whose price is flagged (outlier, jump, too_few_sources, stale, illiquid, guard, pinned, blocked)', querystring: FlaggedQuery, response: { 200: envelopeOf(Type.Array(BasisSchema)) } } }, async (req) => {
    return ok(ctx.pricing.flagged(req.query).map(basisWire), 'flagged prices listed');
  });
  app.get('/prices/item', { schema: { ...common, summary: "An item's price basis now: each source's reading and what the rules made of it", querystring: ItemQuery, response: { 200: envelopeOf(BasisSchema) } } }, async (req) => {
    const b = ctx.pricing.basis(req.query.game, req.query.market_hash_name);
    if (!b) throw notFound();
    return ok(basisWire(b), 'price basis found');
  });
  app.get('/prices/bases/:id', { schema: { ...common, summary: 'A stored price basis (what a deposit item or quote was priced at)', params: IdParam, response: { 200: envelopeOf(BasisSchema) } } }, async (req) => {
    const row = await admin.findBasis(req.params.id);
    if (!row) throw notFound();
    const view: ItemBasisView = {
      game: row.game as Game,
      market_hash_name: row.market_hash_name,
      basis_id: Number(row.id),
      computed_at: new Date(row.computed_at).toISOString(),
      reference: row.reference === null ? null : Number(row.reference),
      deposit_price: row.deposit_price === null ? null : Number(row.deposit_price),
      sale_price: row.sale_price === null ? null : Number(row.sale_price),
      flags: row.flags as ItemBasisView['flags'],
      pending_jump: null,
      readings: row.readings,
    };
    return ok(basisWire(view), 'price basis found');
  });
  app.get('/prices/sources', { schema: { ...common, summary: "Price sources and their poll state (never their keys)", response: { 200: envelopeOf(Type.Array(SourceSchema)) } } }, async () => {
    return ok(ctx.pricing.sources().map((s) => ({ id: s.id, failures: s.failures, last_success_at: iso(s.lastSuccessAt), last_error: s.lastError ?? null, next_poll_at: iso(s.nextPollAt) })), 'price sources listed');
  });
  const refreshState = () => {
    const r = ctx.pricing.refreshState();
    return { running: r.running, polling: r.polling, bases_pending: r.basesPending };
  };
  app.get('/prices/refresh', { schema: { ...common, summary: 'Whether a price refresh runs (sources polling, bases being written)', response: { 200: envelopeOf(RefreshSchema) } } }, async () => {
    return ok(refreshState(), 'price refresh state');
  });
  app.post('/prices/refresh', { schema: { ...common, summary: 'Poll every market source now, in the background (a poll already running is not doubled)', response: { 202: envelopeOf(RefreshSchema) } } }, async (_req, reply) => {
    ctx.pricing.refreshInBackground();
    return reply.code(202).send(ok(refreshState(), 'price refresh started'));
  });
  app.get('/prices/overrides', { schema: { ...common, summary: "The operator's override list", response: { 200: envelopeOf(Type.Array(OverrideSchema)) } } }, async () => {
    const rows = await admin.listOverrides();
    return ok(rows.map((o) => ({ ...o, price: usd(o.price === null ? null : Number(o.price)), set_at: new Date(o.set_at).toISOString() })), 'price overrides listed');
  });
  app.put('/prices/overrides', { schema: { ...common, summary: 'Pin an item at a price, or block it (audited)', body: OverrideBody, response: { 200: envelopeOf(OverrideSchema) } } }, async (req) => {
    const b = req.body;
    const o = await admin.setOverride(
      { game: b.game, market_hash_name: b.market_hash_name, action: b.action, ...(b.price !== undefined ? { price: amountToMills(b.price, 'price') } : {}), ...(b.reason !== undefined ? { reason: b.reason } : {}) },
      by(req),
    );
    return ok({ ...o, price: usd(o.price === null ? null : Number(o.price)), set_at: new Date(o.set_at).toISOString() }, 'price override stored');
  });
  app.delete('/prices/overrides', { schema: { ...common, summary: 'Remove an item from the override list (audited)', querystring: ItemQuery, response: { 200: envelopeOf(Type.Null()) } } }, async (req) => {
    await admin.removeOverride(req.query.game, req.query.market_hash_name, by(req));
    return ok(null, 'price override removed');
  });
  app.post('/prices/confirm', { schema: { ...common, summary: 'Confirm a held price jump: the new price is credited from now (audited)', body: ItemQuery, response: { 200: envelopeOf(BasisSchema) } } }, async (req) => {
    return ok(basisWire(await admin.confirmJump(req.body.game, req.body.market_hash_name, by(req))), 'price jump confirmed');
  });
};
