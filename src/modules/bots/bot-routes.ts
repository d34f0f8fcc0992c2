// Operator API for bots: thin routes over the bot service.
import { Type } from '@sinclair/typebox';
import type { TypedPlugin } from '../../http/typed-routes.js';
import type { BotService } from './bot-service.js';
import type { BotStockSync } from '../catalogue/bot-stock.js';
import { adminSecurity, envelopeOf, IdParam, Paging } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { BotCheckSchema, BotSchema, BotSyncRequest, BotSyncSchema, CreateBotRequest, UpdateBotRequest, WebSessionRequest } from './bot-schemas.js';

export const botRoutes = (ctx: { bots: BotService; botStock: BotStockSync }): TypedPlugin => async (app) => {
  const common = { tags: ['admin'], security: adminSecurity };
  const one = { 200: envelopeOf(BotSchema) };

  app.post('/bots', { schema: { ...common, summary: 'Add a bot (secrets are stored encrypted and never shown)', body: CreateBotRequest, response: { 201: envelopeOf(BotSchema) } } }, async (req, reply) => {
    return reply.code(201).send(ok(await ctx.bots.add(req.body), 'bot added'));
  });
  app.get('/bots', { schema: { ...common, summary: 'List bots with their state and lease', querystring: Paging('ListBotsQuery'), response: { 200: envelopeOf(Type.Array(BotSchema)) } } }, async (req) => {
    return ok(await ctx.bots.list(req.query.limit, req.query.offset), 'bots listed');
  });
  app.post('/bots/sync', { schema: { ...common, summary: 'List the bots\' tradable items in the catalogue now, delist what left them (also runs every BOT_SYNC_SECONDS)', body: Type.Optional(BotSyncRequest), response: { 200: envelopeOf(BotSyncSchema) } } }, async (req) => {
    const body = req.body ?? {};
    return ok(await ctx.botStock.sync(body.bot_id !== undefined ? { botId: body.bot_id } : {}), 'bots synced');
  });
  app.get('/bots/:id', { schema: { ...common, summary: 'A bot', params: IdParam, response: one } }, async (req) => ok(await ctx.bots.show(req.params.id), 'bot found'));
  app.patch('/bots/:id', { schema: { ...common, summary: 'Update a bot (enabled: true puts it back in rotation)', params: IdParam, body: UpdateBotRequest, response: one } }, async (req) => {
    return ok(await ctx.bots.update(req.params.id, req.body), 'bot updated');
  });
  app.put('/bots/:id/web-session', { schema: { ...common, summary: 'Replace the stored web session (used at the next sign-in; stored encrypted)', params: IdParam, body: WebSessionRequest, response: one } }, async (req) => {
    return ok(await ctx.bots.setWebSession(req.params.id, req.body.web_cookies), 'web session stored');
  });
  app.post('/bots/:id/disable', { schema: { ...common, summary: 'Take a bot out of rotation', params: IdParam, response: one } }, async (req) => ok(await ctx.bots.update(req.params.id, { enabled: false }), 'bot disabled'));
  app.delete('/bots/:id', { schema: { ...common, summary: 'Remove a bot: out of rotation for good, secrets wiped', params: IdParam, response: one } }, async (req) => ok(await ctx.bots.remove(req.params.id), 'bot removed'));
  app.post('/bots/:id/check', { schema: { ...common, summary: 'Sign the bot in and report what it can do (steam)', params: IdParam, response: { 200: envelopeOf(BotCheckSchema) } } }, async (req) => ok(await ctx.bots.check(req.params.id), 'bot checked'));
};
