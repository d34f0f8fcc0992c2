// Operator API for bots (issue 11): thin routes over the bot service.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { BotService } from './bot-service.js';
import type { BotStockSync } from '../catalogue/bot-stock.js';
import { adminSecurity, envelopeOf, IdParam, Paging } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import { BotCheckSchema, BotSchema, BotSyncRequest, BotSyncSchema, CreateBotRequest, UpdateBotRequest, WebSessionRequest } from './bot-schemas.js';

export const botRoutes = (ctx: { bots: BotService; botStock: BotStockSync }): FastifyPluginAsync => async (app) => {
  const common = { tags: ['admin'], security: adminSecurity };
  const one = { 200: envelopeOf(BotSchema) };
  const id = (req: { params: unknown }) => (req.params as { id: number }).id;

  app.post('/bots', { schema: { ...common, summary: 'Add a bot (secrets are stored encrypted and never shown)', body: CreateBotRequest, response: { 201: envelopeOf(BotSchema) } } }, async (req, reply) => {
    return reply.code(201).send(ok(await ctx.bots.add(req.body as typeof CreateBotRequest.static), 'bot added'));
  });
  app.get('/bots', { schema: { ...common, summary: 'List bots with their state and lease', querystring: Paging('ListBotsQuery'), response: { 200: envelopeOf(Type.Array(BotSchema)) } } }, async (req) => {
    const q = req.query as { limit: number; offset: number };
    return ok(await ctx.bots.list(q.limit, q.offset), 'bots listed');
  });
  app.post('/bots/sync', { schema: { ...common, summary: 'List the bots\' tradable items in the catalogue now, delist what left them (also runs every BOT_SYNC_SECONDS)', body: Type.Optional(BotSyncRequest), response: { 200: envelopeOf(BotSyncSchema) } } }, async (req) => {
    const body = (req.body ?? {}) as typeof BotSyncRequest.static;
    return ok(await ctx.botStock.sync(body.bot_id !== undefined ? { botId: body.bot_id } : {}), 'bots synced');
  });
  app.get('/bots/:id', { schema: { ...common, summary: 'A bot', params: IdParam, response: one } }, async (req) => ok(await ctx.bots.show(id(req)), 'bot found'));
  app.patch('/bots/:id', { schema: { ...common, summary: 'Update a bot (enabled: true puts it back in rotation)', params: IdParam, body: UpdateBotRequest, response: one } }, async (req) => {
    return ok(await ctx.bots.update(id(req), req.body as typeof UpdateBotRequest.static), 'bot updated');
  });
  app.put('/bots/:id/web-session', { schema: { ...common, summary: 'Replace the stored web session (used at the next sign-in; stored encrypted)', params: IdParam, body: WebSessionRequest, response: one } }, async (req) => {
    return ok(await ctx.bots.setWebSession(id(req), (req.body as typeof WebSessionRequest.static).web_cookies), 'web session stored');
  });
  app.post('/bots/:id/disable', { schema: { ...common, summary: 'Take a bot out of rotation', params: IdParam, response: one } }, async (req) => ok(await ctx.bots.update(id(req), { enabled: false }), 'bot disabled'));
  app.delete('/bots/:id', { schema: { ...common, summary: 'Remove a bot: out of rotation for good, secrets wiped', params: IdParam, response: one } }, async (req) => ok(await ctx.bots.remove(id(req)), 'bot removed'));
  app.post('/bots/:id/check', { schema: { ...common, summary: 'Sign the bot in and report what it can do (steam)', params: IdParam, response: { 200: envelopeOf(BotCheckSchema) } } }, async (req) => ok(await ctx.bots.check(id(req)), 'bot checked'));
};
