// The events API (beyond the spec): the merchant's webhook events. Thin: schemas and one service call.
import type { TypedPlugin } from '../../http/typed-routes.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import type { EventsService, ListEventsInput } from './events-service.js';
import { EventIdParam, EventListSchema, EventWithAttemptsSchema, ListEventsQuery } from './events-schemas.js';

export const eventsRoutes = (ctx: { events: EventsService }): TypedPlugin => async (app) => {
  const { events } = ctx;
  const common = { tags: ['events'], security: merchantSecurity };

  app.get(
    '/events',
    { schema: { ...common, summary: 'Your webhook events, newest first, with filters and a cursor', querystring: ListEventsQuery, response: { 200: envelopeOf(EventListSchema) } } },
    async (req) => ok(await events.list(req.merchant.id, req.query), 'events listed'),
  );

  app.get(
    '/events/:id',
    { schema: { ...common, summary: 'One of your webhook events with its delivery attempts', params: EventIdParam, response: { 200: envelopeOf(EventWithAttemptsSchema) } } },
    async (req) => ok(await events.get(req.merchant.id, req.params.id), 'event found'),
  );
};
