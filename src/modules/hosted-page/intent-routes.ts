// POST /merchant/create-intent (spec 4.1), under /api/v1/merchant (authenticated).
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { IntentService } from './intent-service.js';
import { ok } from '../../http/envelope.js';
import { merchantSecurity } from '../../http/schemas.js';
import { CreateIntentRequest, CreateIntentResponse } from './intent-schemas.js';

export const intentRoutes = (ctx: { intents: IntentService }): TypedPlugin => async (app) => {
  const { intents } = ctx;
  app.post(
    '/create-intent',
    {
      schema: {
        tags: ['deposits'],
        summary: 'Create a deposit intent (redirect flow): answers the hosted deposit page URL',
        security: merchantSecurity,
        body: CreateIntentRequest,
        response: { 200: CreateIntentResponse },
      },
    },
    async (req) => ok(await intents.create(req.merchant, req.body), 'intent created'),
  );
};
