// Sandbox test helpers for deposits (DESIGN 6): drive the user's side of a trade offer. Each one
// reports an offer change through the platform port (ctx.platform.simulate), which the handler
// wired in context.ts applies like any platform report. Registered only when PLATFORM=sandbox,
// so they are 404 everywhere else.
import type { TypedPlugin } from '../../http/typed-routes.js';
import { Type, type Static } from '@sinclair/typebox';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { DepositStatusResponse } from '../deposits/deposit-schemas.js';
import { SANDBOX_ACTIONS, helperChange, parseSandboxBody, simulatorOf, type SandboxAction, type SandboxDeps } from './sandbox-offer-change.js';

const Params = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }),
    action: Type.String({ enum: [...SANDBOX_ACTIONS] }),
  },
  { title: 'SandboxDepositParams' },
);

export const sandboxDepositRoutes = (ctx: SandboxDeps): TypedPlugin => async (app) => {
  const simulate = simulatorOf(ctx);
  if (!simulate) return;
  app.post<{ Params: Static<typeof Params>; Body: unknown }>(
    '/sandbox/deposit/:id/:action',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Sandbox: accept, decline, expire, cancel, release or revert a deposit trade offer',
        description:
          'accept {hold?}: hold (default: the game hold) or completed; decline: canceled canceled_by_user; expire, cancel: canceled canceled_by_gateway; ' +
          'release: a hold ends now (completed); revert {by: user|gateway}: reverted. 409 invalid transition when the status does not allow it.',
        security: merchantSecurity,
        params: Params,
        response: { 200: envelopeOf(DepositStatusResponse) },
      },
    },
    async (request) => {
      const { id, action } = request.params;
      const body = parseSandboxBody(request.body, 'SandboxDepositRequest');
      const data = await simulate(helperChange('deposit', request.merchant.id, id, action as SandboxAction, body));
      return ok(data, 'deposit');
    },
  );
};
