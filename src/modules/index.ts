// Feature route plugins, by audience. A feature adds its plugin factory to the right list.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { webhookAdminRoutes } from './webhooks/webhook-admin-routes.js';
import { depositRoutes } from './deposits/deposit-routes.js';
import { sandboxDepositRoutes } from './sandbox/sandbox-deposit-routes.js';
import { itemImageRoutes } from './pricing/item-image-routes.js';
import { catalogueRoutes } from './catalogue/catalogue-routes.js';
import { purchaseRoutes } from './purchases/purchase-routes.js';
import { sandboxPurchaseRoutes } from './sandbox/sandbox-purchase-routes.js';
import { intentRoutes } from './intents/intent-routes.js';
import { hostedRoutes } from './hosted/hosted-routes.js';
import { botRoutes } from './bots/bot-routes.js';
import { reconcileRoutes } from './reconcile/reconcile-routes.js';
import { accountAdminRoutes } from './accounts/account-admin-routes.js';
import { webAppRoutes } from './dashboard/web-app.js';
import { priceAdminRoutes } from './pricing/price-admin-routes.js';
import { eventsRoutes } from './events/events-routes.js';
import { docsRoutes } from './docs/docs-routes.js';

export type RoutePlugin = (ctx: AppContext) => FastifyPluginAsync;

/** Mounted under /api/v1/merchant, behind X-Api-Key authentication. */
export const merchantFeatureRoutes: RoutePlugin[] = [depositRoutes, sandboxDepositRoutes, intentRoutes, catalogueRoutes, purchaseRoutes, sandboxPurchaseRoutes, eventsRoutes];

/** Mounted under /api/admin, behind the operator bearer token. */
export const adminFeatureRoutes: RoutePlugin[] = [webhookAdminRoutes, botRoutes, accountAdminRoutes, priceAdminRoutes, reconcileRoutes];

/** Mounted at the root, unauthenticated (hosted deposit page, static assets). */
export const publicFeatureRoutes: RoutePlugin[] = [itemImageRoutes, hostedRoutes, webAppRoutes, docsRoutes];
