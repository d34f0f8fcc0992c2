// Sandbox test helpers for deposits (DESIGN 6): drive the user's side of a trade offer.
// Registered only when PLATFORM=sandbox, so they are 404 everywhere else.
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { validationError, type FieldError } from '../../http/errors.js';
import { DepositStatusResponse } from '../deposits/deposit-schemas.js';

const Params = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }),
    action: Type.String({ enum: ['accept', 'decline', 'expire', 'release', 'revert'] }),
  },
  { title: 'SandboxDepositParams' },
);
type Body = { hold?: boolean; by?: 'user' | 'gateway' };

/** The body is optional (POST without one is fine), so it is checked here rather than by a schema. */
function parseBody(raw: unknown): Body {
  if (raw == null || raw === '') return {};
  const b = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof raw !== 'object' || Array.isArray(raw)) throw validationError([{ field: 'SandboxDepositRequest', code: 'type', message: 'body must be an object' }]);
  if (b.hold !== undefined && typeof b.hold !== 'boolean') errors.push({ field: 'SandboxDepositRequest.hold', code: 'type', message: 'hold must be a boolean' });
  if (b.by !== undefined && b.by !== 'user' && b.by !== 'gateway') errors.push({ field: 'SandboxDepositRequest.by', code: 'oneof', message: 'by must be one of: user, gateway' });
  if (errors.length) throw validationError(errors);
  return { hold: b.hold as boolean | undefined, by: b.by as Body['by'] };
}

export const sandboxDepositRoutes = (ctx: AppContext): FastifyPluginAsync => async (app) => {
  if (ctx.config.platform !== 'sandbox') return;
  app.post<{ Params: Static<typeof Params>; Body: unknown }>(
    '/sandbox/deposit/:id/:action',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Sandbox: accept, decline, expire, release or revert a deposit trade offer',
        security: merchantSecurity,
        params: Params,
        response: { 200: envelopeOf(DepositStatusResponse) },
      },
    },
    async (request) => {
      const { id, action } = request.params;
      const data = await ctx.deposits.sandboxAction(request.merchant, id, action as 'accept', parseBody(request.body));
      return ok(data, 'deposit');
    },
  );
};
