import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { LedgerService } from './ledger-service.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';

const BalanceSchema = Type.Object({ total: Type.Number(), hold: Type.Number(), available: Type.Number() });

export const balanceRoutes = (ctx: { ledger: LedgerService }): TypedPlugin => async (app) => {
  app.get(
    '/balance',
    {
      schema: {
        tags: ['balance'],
        summary: 'Merchant balance: available, hold and total (USD)',
        security: merchantSecurity,
        response: { 200: envelopeOf(BalanceSchema) },
      },
    },
    async (request) => ok(await ctx.ledger.balance(request.merchant.id), 'balance retrieved'),
  );
};
