// Feature start-up hooks (price book load, sandbox seed…), run once per instance before serving.
import type { AppContext } from './context.js';
import { catalogueStartup } from '../modules/catalogue/catalogue-tasks.js';
import { webhookStartup } from '../modules/webhooks/webhook-tasks.js';
import { reconcileStartup } from '../modules/reconcile/reconcile-tasks.js';
import { retentionStartup } from '../modules/retention/retention-tasks.js';

export type StartupHook = (ctx: AppContext) => Promise<void>;

export const featureStartups: StartupHook[] = [
  // The price book is needed by the first inventory request.
  (ctx) => ctx.pricing.start(),
  // After the price book: the sandbox catalogue seed is drawn from it.
  catalogueStartup,
  // Webhook sweeper (lost attempts) and retention jobs.
  webhookStartup,
  // Steam mode: no sandbox bot rows.
  async (ctx) => void (await ctx.bots.dropSandboxBots()),
  // The daily reconciliation against the platform.
  reconcileStartup,
  // Retention: the hourly pruning of what grows without bound.
  retentionStartup,
];
