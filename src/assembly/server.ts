// Builds the Fastify app: envelope, error mapping, validation, docs, metrics, and every route.
import crypto from 'node:crypto';
import type http from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyError } from 'fastify';
import { AppError, appErrorOf, httpStatusOf, validationError } from '../http/errors.js';
import { validatorCompiler } from '../http/validation.js';
import { registerMetrics } from './metrics.js';
import { clientErrorHandler, closeIfBodyUnread, findBadString, frameworkErrors, hasBadQueryEncoding, timeoutOptions, useStrictJsonParser } from '../http/edges.js';
import { ping } from '../db/database.js';
import { registerRoutes } from './routes.js';
import { registerOpenApi } from './openapi.js';
import type { AppContext } from './context.js';
import { AccessLog, maskTokens } from '../http/access-log.js';
import { AVAILABLE_PATH, notModifiedLane } from '../modules/catalogue/not-modified-lane.js';
import { createRateLimits } from '../http/rate-limit.js';

export { maskTokens };

const FASTIFY_CLIENT_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid request body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid request body'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'request body too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported content type: send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid request body'],
  FST_ERR_CTP_INVALID_TYPE: [400, 'invalid request body'],
};

declare module 'fastify' {
  interface FastifyInstance {
    routeList: { url: string; methods: string[]; hidden: boolean }[];
  }
}

export interface BuildOptions {
  /** Called before any route is registered (hooks added here apply to every route), e.g. by tests. */
  configure?: (app: FastifyInstance) => void | Promise<void>;
  /** Set when the gateway is stopping (app.ts): new requests and /readyz answer 503. */
  drain?: Drain;
}

/**
 * A stopping gateway's door: while `active`, every new request is answered 503 with
 * `Connection: close` (so kept-alive clients go away cleanly) and counted in `turnedAway`, which
 * tells the stop when clients have stopped coming and the listener can close without resetting
 * a connection that is still in its backlog.
 */
export interface Drain {
  active: boolean;
  turnedAway: number;
}

export async function buildServer(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  // Fastify picks up `serializers` from the logger instance: request URLs are logged with hosted
  // page tokens masked, since a token is the only credential of its deposit page.
  const logger = Object.assign(ctx.log.child({}), {
    serializers: {
      req: (req: { method: string; url: string; ip?: string; host?: string }) => ({
        method: req.method,
        url: maskTokens(req.url),
        host: req.host,
        remoteAddress: req.ip,
      }),
    },
  });
  // Limits on every door (rate-limit.ts); its refusals are counted, not written one line each.
  const limits = createRateLimits(ctx.config.rateLimits, { log: logger as unknown as FastifyBaseLogger });
  const accessLog = new AccessLog(ctx.config.logRequests, logger, limits.refused);
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    logController: accessLog,
    ...timeoutOptions(ctx.config),
    clientErrorHandler,
    frameworkErrors,
  });

  // A throw from here on closes what was set up (the key cache's listener connection among them):
  // startGateway's failed start ends the pool next.
  try {
    const drain = opts.drain;
    if (drain) {
      app.addHook('onRequest', (_req, reply, done) => {
        if (!drain.active) return done();
        drain.turnedAway++;
        void reply.code(503).header('connection', 'close').header('retry-after', '1')
          .send({ success: false, message: 'the gateway is stopping; retry on another instance' });
      });
    }

    // Hooks on every request are written with `done` (no promise per request per hook).
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
    // Limits on every door (rate-limit.ts): the address doors and the in-flight cap here, before any
    // route; the merchant API's per-key limit in its scope (routes.ts), after authentication.
    app.decorate('rateLimits', limits);
    app.addHook('onRequest', limits.onRequest);
    const pruner = setInterval(() => limits.prune(), 60_000);
    pruner.unref();
    app.addHook('onClose', (_app, done) => {
      clearInterval(pruner);
      done();
    });

    app.setValidatorCompiler(validatorCompiler);
    useStrictJsonParser(app);
    await opts.configure?.(app);

    // Every route as registered, so a test can prove the OpenAPI document leaves none out.
    const routeList: { url: string; methods: string[]; hidden: boolean }[] = [];
    app.decorate('routeList', routeList);
    app.addHook('onRoute', (r) => {
      routeList.push({ url: r.url, methods: ([] as string[]).concat(r.method), hidden: Boolean((r.schema as { hide?: boolean } | undefined)?.hide) });
    });

    // PostgreSQL cannot store U+0000 in text, and a lone surrogate would be stored as U+FFFD (two
    // different ids colliding): refuse both up front for every route and part.
    app.addHook('preValidation', (request, _reply, done) => {
      if (hasBadQueryEncoding(request.url)) {
        return done(validationError([{ field: 'query', code: 'format', message: 'the query string has a percent-encoding that is not valid UTF-8' }]));
      }
      const title = (request.routeOptions.schema?.body as { title?: string } | undefined)?.title;
      const found = findBadString(request.body, title ?? '') ?? findBadString(request.query, '') ?? findBadString(request.params, '');
      if (found !== undefined) {
        return done(validationError([{ field: found.path || 'body', code: 'format', message: found.message }]));
      }
      done();
    });

    app.setErrorHandler((err: FastifyError, request, reply) => {
      closeIfBodyUnread(request, reply);
      // Ours, or a database that is away: 503 + Retry-After, logged once per outage (db/outage.ts).
      const ours = appErrorOf(err, ctx.db);
      if (ours) {
        if (ours.headers) reply.headers(ours.headers);
        return reply.code(httpStatusOf(ours)).send({ success: false, message: ours.message, ...(ours.data !== undefined ? { data: ours.data } : {}) });
      }
      if (isPgDataException(err)) {
        // A value the database cannot take (out of range, bad encoding) is the caller's input.
        request.log.warn({ err }, 'database refused a value');
        return reply.code(400).send({
          success: false,
          message: 'validation error',
          data: [{ field: 'request', code: 'format', message: 'a value is out of range or contains characters that cannot be stored' }],
        });
      }
      const known = err.code ? FASTIFY_CLIENT_ERRORS[err.code] : undefined;
      if (known) return reply.code(known[0]).send({ success: false, message: known[1] });
      if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
        return reply.code(400).send({ success: false, message: 'invalid request body' });
      }
      if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
        return reply.code(err.statusCode).send({ success: false, message: err.message });
      }
      request.log.error({ err }, 'unhandled error');
      return reply.code(500).send({ success: false, message: 'internal error' });
    });

    app.setNotFoundHandler((request, reply) => {
      closeIfBodyUnread(request, reply);
      reply.code(404).send({ success: false, message: 'not found error' });
    });

    await registerOpenApi(app);

    const { stats } = registerMetrics(app, ctx.db, { token: ctx.config.metricsToken ?? ctx.config.adminToken, refreshMs: ctx.config.metricsRefreshMs, refusedChanges: ctx.platform.refusedChanges, signIns: ctx.platform.signIns });

    app.get('/healthz', { schema: { hide: true } }, async () => ({ success: true, message: 'alive', data: { status: 'ok' } }));
    app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
      const up = await ping(ctx.db);
      return reply.code(up ? 200 : 503).send({ success: up, message: up ? 'ready' : 'database unreachable', data: { database: up ? 'ok' : 'down' } });
    });

    await registerRoutes(app, ctx);

    // The catalogue page's 304 from memory, in front of the router (not-modified-lane.ts). Off behind
    // a trusted proxy: the client's address and host then come from forwarded headers, which only the
    // router's request reads.
    if (!ctx.config.trustProxy) {
      inFrontOfRouter(
        app,
        () => drain?.active === true,
        notModifiedLane({
          keys: app.merchantKeys,
          catalogue: ctx.catalogue,
          rateLimit: limits.merchant,
          requestId: requestIdOf,
          answered: (a) => {
            // A merchant's polls from one client within a turn: one access line with their count.
            if (accessLog.keeps(a.statusCode)) accessLog.answered(a, a.statusCode, a.responseTime, `${a.merchant.id} ${a.ip} ${a.host} ${a.url}`);
            stats.observe(a.method, AVAILABLE_PATH, a.statusCode, a.responseTime / 1000);
            app.keyUsage.note(a.merchant, a.ip, app.log);
            app.requestLog.note(a);
          },
        }),
      );
    }
    return app;
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
}

/** The request id: the caller's x-request-id when it is a plain token, else a new UUID. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : crypto.randomUUID();
}

/** Lets `lane` answer a request before Fastify's router sees it (it returns false to pass it on). */
function inFrontOfRouter(app: FastifyInstance, draining: () => boolean, lane: (req: http.IncomingMessage, res: http.ServerResponse) => boolean): void {
  // While closing, the router answers (503, Connection: close) so that kept-alive clients go away.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const server = app.server;
  const [router] = server.listeners('request') as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
  if (!router) return;
  server.removeListener('request', router);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (closing || draining() || !lane(req, res)) router(req, res);
  });
}

/** PostgreSQL SQLSTATE class 22 (data exception): numeric out of range, invalid text, bad encoding. */
function isPgDataException(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown };
  return typeof e?.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code) && typeof e.severity === 'string';
}
