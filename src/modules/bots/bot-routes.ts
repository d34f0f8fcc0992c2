// Operator API for bots (issue 11): thin routes over the bot service.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import { adminSecurity, GameEnum, IdParam, Paging } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';

const Fields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  games: Type.Optional(Type.Array(GameEnum, { minItems: 1, maxItems: 4, uniqueItems: true })),
  inventory_capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
};
const CreateBot = Type.Object(
  {
    account_name: Type.String({ minLength: 3, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
    shared_secret: Type.String({ minLength: 28, maxLength: 28 }),
    identity_secret: Type.String({ minLength: 28, maxLength: 28 }),
    platform_id: Type.String({ minLength: 17, maxLength: 17 }),
    ...Fields,
  },
  { title: 'CreateBotRequest' },
);
const PatchBot = Type.Object({ ...Fields, enabled: Type.Optional(Type.Boolean()) }, { title: 'UpdateBotRequest' });

export const botRoutes = (ctx: AppContext): FastifyPluginAsync => async (app) => {
  const common = { tags: ['admin'], security: adminSecurity };
  const id = (req: { params: unknown }) => (req.params as { id: number }).id;

  app.post('/bots', { schema: { ...common, summary: 'Add a bot (secrets are stored encrypted and never shown)', body: CreateBot } }, async (req, reply) => {
    return reply.code(201).send(ok(await ctx.bots.add(req.body as typeof CreateBot.static), 'bot added'));
  });
  app.get('/bots', { schema: { ...common, summary: 'List bots with their state and lease', querystring: Paging('ListBotsQuery') } }, async (req) => {
    const q = req.query as { limit: number; offset: number };
    return ok(await ctx.bots.list(q.limit, q.offset), 'bots listed');
  });
  app.get('/bots/:id', { schema: { ...common, summary: 'A bot', params: IdParam } }, async (req) => ok(await ctx.bots.show(id(req)), 'bot found'));
  app.patch('/bots/:id', { schema: { ...common, summary: 'Update a bot (enabled: true puts it back in rotation)', params: IdParam, body: PatchBot } }, async (req) => {
    return ok(await ctx.bots.update(id(req), req.body as typeof PatchBot.static), 'bot updated');
  });
  app.post('/bots/:id/disable', { schema: { ...common, summary: 'Take a bot out of rotation', params: IdParam } }, async (req) => ok(await ctx.bots.update(id(req), { enabled: false }), 'bot disabled'));
  app.delete('/bots/:id', { schema: { ...common, summary: 'Remove a bot: out of rotation for good, secrets wiped', params: IdParam } }, async (req) => ok(await ctx.bots.remove(id(req)), 'bot removed'));
  app.post('/bots/:id/check', { schema: { ...common, summary: 'Sign the bot in and report what it can do (steam)', params: IdParam } }, async (req) => ok(await ctx.bots.check(id(req)), 'bot checked'));
};
