// Every route of the service, grouped by audience. Each feature exports a Fastify plugin.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { adminAuth, merchantAuth } from '../modules/merchants/auth.js';
import { createKeyCache, type KeyCache } from '../modules/merchants/key-cache.js';
import { balanceRoutes } from '../modules/ledger/balance-routes.js';
import { adminRoutes } from '../modules/admin/admin-routes.js';
import { merchantFeatureRoutes, adminFeatureRoutes, publicFeatureRoutes } from './feature-routes.js';
import { recordKeyUsage, type KeyUsage } from '../modules/web/dashboard/key-usage.js';
import { createRequestLogRecorder, type RequestLogRecorder } from '../modules/request-logs/recorder.js';
import type { RateLimits } from '../http/rate-limit.js';

declare module 'fastify' {
  interface FastifyInstance {
    merchantKeys: KeyCache;
    keyUsage: KeyUsage;
    requestLog: RequestLogRecorder;
    rateLimits: RateLimits;
  }
}

export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const keys = createKeyCache(ctx.db, ctx.pool.options, ctx.log);
  app.decorate('merchantKeys', keys);
  app.addHook('onClose', () => keys.stop());
  const keyUsage = recordKeyUsage(ctx.db); // the dashboard's "last used"
  app.decorate('keyUsage', keyUsage);
  const requestLog = createRequestLogRecorder({ db: ctx.db, log: ctx.log, days: ctx.config.requestLogDays, busyPercent: ctx.config.retention.busyPercent }); // the dashboard's request log
  app.decorate('requestLog', requestLog);
  app.addHook('onClose', () => requestLog.stop());
  // Operator, console and dashboard writes may change a merchant (key, enabled, whitelist): the
  // NOTIFY reaches this instance's listener only after the answer, so a caller acting on that answer
  // at once (rotate, then use the old key) would still be served from memory. Forget before answering.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && !request.url.startsWith('/api/v1/merchant/')) keys.flush();
    done(null, payload);
  });
  await app.register(
    async (merchantApi) => {
      // A key the cache does not know counts on the caller's address before its lookup — while the
      // cache is up: without its listener every request is a lookup, and merchants would pay for it.
      merchantApi.addHook('onRequest', merchantAuth(keys, (request, reply) => (keys.listening ? app.rateLimits.unknownKey(request, reply) : undefined)));
      merchantApi.addHook('onRequest', app.rateLimits.merchantHook); // per API key, after authentication
      merchantApi.addHook('onResponse', keyUsage.onResponse);
      merchantApi.addHook('onSend', requestLog.onSend);
      await merchantApi.register(balanceRoutes(ctx));
      for (const plugin of merchantFeatureRoutes) await merchantApi.register(plugin(ctx));
    },
    { prefix: '/api/v1/merchant' },
  );

  await app.register(
    async (adminApi) => {
      adminApi.addHook('onRequest', adminAuth(ctx.config.adminToken));
      await adminApi.register(adminRoutes(ctx));
      for (const plugin of adminFeatureRoutes) await adminApi.register(plugin(ctx));
    },
    { prefix: '/api/admin' },
  );

  for (const plugin of publicFeatureRoutes) await app.register(plugin(ctx));
}
