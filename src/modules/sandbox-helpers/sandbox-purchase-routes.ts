// Sandbox test helpers for purchases (DESIGN 6): the user's side of the offer and the platform's
// hold. Each one reports an offer change through the platform port (ctx.platform.simulate), which
// the handler wired in context.ts applies like any platform report. Registered only when
// PLATFORM=sandbox, so they are 404 everywhere else.
import type { TypedPlugin } from '../../http/typed-routes.js';
import { Type, type Static } from '@sinclair/typebox';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { PurchaseSchema } from '../purchases/purchase-schemas.js';
import { SANDBOX_ACTIONS, helperChange, parseSandboxBody, simulatorOf, type SandboxAction, type SandboxDeps } from './sandbox-offer-change.js';

const Params = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }),
    action: Type.String({ enum: [...SANDBOX_ACTIONS] }),
  },
  { title: 'SandboxPurchaseParams' },
);

export const sandboxPurchaseRoutes = (ctx: SandboxDeps): TypedPlugin => async (app) => {
  const simulate = simulatorOf(ctx);
  if (!simulate) return;
  app.post<{ Params: Static<typeof Params>; Body: unknown }>(
    '/sandbox/purchase/:id/:action',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Sandbox: accept, decline, expire, cancel, release or revert a purchase offer',
        description:
          'accept {hold?}: hold (default: the game hold) or completed; decline: canceled canceled_by_user; expire: canceled buyer_too_slow; ' +
          'cancel (new, pending or active): canceled canceled_by_gateway; ' +
          'release: a hold ends now (completed); revert {by: user|gateway}: reverted. Canceled and reverted purchases are refunded in full. ' +
          '409 invalid transition when the status does not allow it.',
        security: merchantSecurity,
        params: Params,
        response: { 200: envelopeOf(PurchaseSchema) },
      },
    },
    async (request) => {
      const { id, action } = request.params;
      const body = parseSandboxBody(request.body, 'SandboxPurchaseRequest');
      return ok(await simulate(helperChange('purchase', request.merchant.id, id, action as SandboxAction, body)), 'purchase');
    },
  );
};
