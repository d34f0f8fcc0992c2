// Operator API for webhook deliveries (DESIGN 5): the delivery log per merchant and redelivery.
import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { WebhookService } from './webhook-service.js';
import { adminSecurity, envelopeOf, IdParam, StringEnum, WithDefaults } from '../../http/schemas.js';
import { WEBHOOK_STATES, WebhookDeliverySchema } from './webhook-schemas.js';
import { ok } from '../../http/envelope.js';

const ListQuery = WithDefaults(
  Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
      offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
      status: Type.Optional(StringEnum(WEBHOOK_STATES)),
    },
    { title: 'ListWebhookDeliveriesQuery' },
  ),
  'limit',
  'offset',
);

export const webhookAdminRoutes = (ctx: { webhooks: WebhookService }): TypedPlugin => async (app) => {
  const common = { tags: ['admin', 'webhooks'], security: adminSecurity };

  app.get(
    '/merchants/:id/webhook-deliveries',
    { schema: { ...common, summary: 'Webhook events of a merchant, newest first, with every attempt', params: IdParam, querystring: ListQuery, response: { 200: envelopeOf(Type.Array(WebhookDeliverySchema)) } } },
    async (req) => {
      return ok(await ctx.webhooks.listDeliveries(req.params.id, req.query), 'webhook deliveries listed');
    },
  );

  app.post(
    '/webhook-deliveries/:id/redeliver',
    { schema: { ...common, summary: 'Queue one more attempt of a webhook event now (any state)', params: IdParam, response: { 202: envelopeOf(WebhookDeliverySchema) } } },
    async (req, reply) => {
      return reply.code(202).send(ok(await ctx.webhooks.redeliver(req.params.id), 'redelivery queued'));
    },
  );
};
