// Feature route plugins, by audience. A feature adds its plugin factory to the right list.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from './context.js';
import { webhookAdminRoutes } from '../modules/webhooks/webhook-admin-routes.js';
import { depositRoutes } from '../modules/deposits/deposit-routes.js';
import { sandboxDepositRoutes } from '../modules/sandbox-helpers/sandbox-deposit-routes.js';
import { itemImageRoutes } from '../modules/pricing/item-image-routes.js';
import { catalogueRoutes } from '../modules/catalogue/catalogue-routes.js';
import { purchaseRoutes } from '../modules/purchases/purchase-routes.js';
import { sandboxPurchaseRoutes } from '../modules/sandbox-helpers/sandbox-purchase-routes.js';
import { intentRoutes } from '../modules/hosted-page/intent-routes.js';
import { hostedRoutes } from '../modules/hosted-page/hosted-routes.js';
import { botRoutes } from '../modules/bots/bot-routes.js';
import { reconcileRoutes } from '../modules/reconcile/reconcile-routes.js';
import { accountAdminRoutes } from '../modules/accounts/account-admin-routes.js';
import { webAppRoutes } from '../modules/web/web-app.js';
import { priceAdminRoutes } from '../modules/pricing/price-admin-routes.js';
import { eventsRoutes } from '../modules/events/events-routes.js';
import { docsRoutes } from '../modules/docs/docs-routes.js';

export type RoutePlugin = (ctx: AppContext) => FastifyPluginAsync;

/** Mounted under /api/v1/merchant, behind X-Api-Key authentication. */
export const merchantFeatureRoutes: RoutePlugin[] = [depositRoutes, sandboxDepositRoutes, intentRoutes, catalogueRoutes, purchaseRoutes, sandboxPurchaseRoutes, eventsRoutes];

/** Mounted under /api/admin, behind the operator bearer token. */
export const adminFeatureRoutes: RoutePlugin[] = [webhookAdminRoutes, botRoutes, accountAdminRoutes, priceAdminRoutes, reconcileRoutes];

/** Mounted at the root, unauthenticated (hosted deposit page, static assets). */
export const publicFeatureRoutes: RoutePlugin[] = [itemImageRoutes, hostedRoutes, webAppRoutes, docsRoutes];
