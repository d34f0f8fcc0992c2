// Catalogue endpoints (spec 4.11, 4.12) and the /purchase/events change feed. Thin: parsing and
// HTTP details here, rules in the catalogue service (pages.ts, stream.ts, events.ts).
import { fieldOf, Preserialised, type TypedPlugin } from '../../http/typed-routes.js';
import { Type } from '@sinclair/typebox';
import type { CatalogueService } from './catalogue-service.js';
import { envelopeOf, merchantSecurity } from '../../http/schemas.js';
import { ok } from '../../http/envelope.js';
import * as S from './catalogue-schemas.js';
import { AvailableQuerySchema, EventsQuerySchema, SearchQuerySchema, parseBool, parseGame, parsePage } from './catalogue-schemas.js';

// Checked before the schema so that a missing, over-long or repeated game is `invalid game code`
// and any bad page `page must be 1 or greater` (spec 7.2), never a generic schema error.
const checkGameAndPage = async (req: { query: unknown }) => {
  parseGame(fieldOf(req.query, 'game'));
  parsePage(fieldOf(req.query, 'page'));
};
const checkGame = async (req: { query: unknown }) => {
  parseGame(fieldOf(req.query, 'game'));
};
const checkOptionalGame = async (req: { query: unknown }) => {
  if (fieldOf(req.query, 'game') !== undefined) parseGame(fieldOf(req.query, 'game'));
};

export const catalogueRoutes = (ctx: { catalogue: CatalogueService }): TypedPlugin => async (app) => {
  const common = { tags: ['purchases'], security: merchantSecurity };

  app.get(
    '/purchase/available',
    {
      schema: {
        ...common,
        summary: 'Catalogue: grouped or full, whole (streamed) or one of 16 pages with ETag',
        description:
          'Without page the whole catalogue of the game is streamed in one response (chunked). With page (1-16): a fixed slice keyed by listing ID, ' +
          'ETag per page (If-None-Match answers 304), 503 with Retry-After while the catalogue is rebuilt.\n\n' +
          'Whole-catalogue downloads: prices and availability are point-in-time per batch of listings, not per response (each listing ' +
          'appears at most once); use the pages and /purchase/events to keep an exact copy. A few downloads run at once per instance: ' +
          'beyond that the answer is 503 with Retry-After (whole seconds). A reader that stalls is disconnected. If the download fails ' +
          'part-way the connection is cut before the end of the body (no final chunk): a cut-off body means retry, never a catalogue.',
        querystring: AvailableQuerySchema,
        // Pages and downloads are written pre-serialised: this documents them, it does not serialise.
        response: { 200: Preserialised(envelopeOf(Type.Union([S.CataloguePageSchema, S.CatalogueWholeSchema]))), 304: Preserialised(Type.Null({ description: 'Not modified: the page still has the ETag given in If-None-Match' })) },
      },
      preValidation: checkGameAndPage,
    },
    async (req, reply) => {
      const q = req.query;
      const page = parsePage(q.page);
      const query = {
        game: parseGame(q.game),
        full: parseBool(q.full, 'full', 'AvailableRequest'),
        extended: parseBool(q.extended, 'extended', 'AvailableRequest'),
      };
      if (page === undefined && !query.full) {
        // The grouped view: one ready body from memory when the page versions are known here.
        const body = await ctx.catalogue.groupedWhole(req.merchant, query);
        if (body) return reply.code(200).type('application/json; charset=utf-8').header('cache-control', 'no-store').send(body);
      }
      if (page === undefined) {
        // The service answers only once the first batch is read: earlier failures are a clean 503.
        const stream = await ctx.catalogue.stream(req.merchant, query);
        // After the 200 went out, a failed (or stalled) stream must not end like a complete body:
        // destroy the socket, so the chunked body has no terminating chunk and the client sees an
        // error (Fastify does the same; this keeps it explicit).
        stream.once('error', () => reply.raw.destroy());
        return reply.code(200).type('application/json; charset=utf-8').header('cache-control', 'no-store').send(stream);
      }
      const queryString = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
      const ifNoneMatch = req.headers['if-none-match'];
      const result = await ctx.catalogue.page(req.merchant, { ...query, page }, queryString, typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined);
      reply.header('etag', result.etag).header('cache-control', 'private, no-cache');
      if (result.kind === 'not-modified') return reply.code(304).send();
      return reply.code(200).type('application/json; charset=utf-8').send(result.body);
    },
  );

  app.get(
    '/purchase/search',
    {
      schema: {
        ...common,
        summary: 'Live listings with the given names (full format)',
        querystring: SearchQuerySchema,
        response: { 200: envelopeOf(S.SearchResultSchema) },
      },
      preValidation: checkGame,
    },
    async (req) => {
      const q = req.query;
      const game = parseGame(q.game);
      return ok(await ctx.catalogue.search(req.merchant, game, q.names, parseBool(q.extended, 'extended', 'SearchRequest')), 'search results listed');
    },
  );

  app.get(
    '/purchase/events',
    {
      schema: {
        ...common,
        summary: 'Catalogue change feed: upserts and removals since a cursor',
        description:
          'since: a cursor (next of a previous answer, or a page last_update_at); omitted = from now. reset: true means the cursor is ' +
          'older than the kept history: reload the whole catalogue, then continue from next.',
        querystring: EventsQuerySchema,
        response: { 200: envelopeOf(S.CatalogueEventsSchema) },
      },
      preValidation: checkOptionalGame,
    },
    async (req) => {
      const q = req.query;
      const game = q.game === undefined ? undefined : parseGame(q.game);
      return ok(await ctx.catalogue.events(req.merchant, { since: q.since, game, extended: parseBool(q.extended, 'extended', 'CatalogueEventsRequest'), limit: q.limit ?? 1000 }), 'catalogue events listed');
    },
  );
};
