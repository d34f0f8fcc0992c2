// Sandbox test helpers for purchases (DESIGN 6): the user's side of the offer and the platform's
// hold. Registered only when PLATFORM=sandbox, so they are 404 everywhere else.
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { validationError, type FieldError } from '../../http/errors.js';
import { PurchaseSchema } from '../purchases/purchase-schemas.js';
import type { SandboxPurchaseAction } from '../purchases/purchase-service.js';

const Params = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }),
    action: Type.String({ enum: ['accept', 'decline', 'expire', 'release', 'revert'] }),
  },
  { title: 'SandboxPurchaseParams' },
);
type Body = { hold?: boolean; by?: 'user' | 'gateway' };

/** The body is optional (POST without one is fine), so it is checked here rather than by a schema. */
function parseBody(raw: unknown): Body {
  if (raw == null || raw === '') return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw validationError([{ field: 'SandboxPurchaseRequest', code: 'type', message: 'body must be an object' }]);
  }
  const b = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (b.hold !== undefined && typeof b.hold !== 'boolean') errors.push({ field: 'SandboxPurchaseRequest.hold', code: 'type', message: 'hold must be a boolean' });
  if (b.by !== undefined && b.by !== 'user' && b.by !== 'gateway') errors.push({ field: 'SandboxPurchaseRequest.by', code: 'oneof', message: 'by must be one of: user, gateway' });
  if (errors.length) throw validationError(errors);
  return { hold: b.hold as boolean | undefined, by: b.by as Body['by'] };
}

export const sandboxPurchaseRoutes = (ctx: AppContext): FastifyPluginAsync => async (app) => {
  if (ctx.config.platform !== 'sandbox') return;
  app.post<{ Params: Static<typeof Params>; Body: unknown }>(
    '/sandbox/purchase/:id/:action',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Sandbox: accept, decline, expire, release or revert a purchase offer',
        description:
          'accept {hold?}: hold (default: the game hold) or completed; decline: canceled canceled_by_user; expire: canceled buyer_too_slow; ' +
          'release: a hold ends now (completed); revert {by: user|gateway}: reverted. 409 invalid transition when the status does not allow it.',
        security: merchantSecurity,
        params: Params,
        response: { 200: envelopeOf(PurchaseSchema) },
      },
    },
    async (request) => {
      const { id, action } = request.params;
      return ok(await ctx.purchases.sandboxAction(request.merchant.id, id, action as SandboxPurchaseAction, parseBody(request.body)), 'purchase');
    },
  );
};
