// Prometheus metrics: requests by route and status, latency, the job queue depth and undelivered
// webhooks. The database gauges are refreshed on a timer (METRICS_REFRESH_MS), never per scrape,
// so scraping cannot load the database; /metrics needs a bearer token (METRICS_TOKEN, else the
// admin token) since route names and queue depths describe the business.
import client from 'prom-client';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.js';
import { credentialMatches, isBlankCredential } from '../domain/secrets.js';
import { bearerCredential } from '../http/bearer.js';
import { AppError } from '../http/errors.js';
import { registerRouteStats, type RouteStats } from '../http/route-stats.js';
import { rotationOf } from '../modules/bots/bot-service.js';
import { listBots } from '../platform/steam/bot-repo.js';

export interface MetricsOptions {
  /** Bearer token of /metrics; without one /metrics answers 401 to everything. */
  token: string | undefined;
  refreshMs: number;
  /** Offer changes the platform adapter saw refused by the gateway, by refusal kind (steam; read at scrape time). */
  refusedChanges?: Readonly<Record<string, number>>;
  /** Sign-ins the platform adapter tried, per bot name and outcome (steam; read at scrape time). */
  signIns?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

interface DbGauges {
  queue: { task: string; n: number }[];
  outbox: { task: string; n: number }[];
  outboxFailed: number;
  webhooks: { state: string; n: number }[];
  bots: { bot: string; rotation: string }[];
  /** The latest finished reconciliation run: its discrepancies by kind and when it finished. */
  reconcile: { kinds: { kind: string; n: number }[]; finishedAt: number | null };
}

async function readDbGauges(db: Db): Promise<DbGauges> {
  const queue = await sql<{ task: string; n: number }>`
    select t.identifier as task, count(*)::int as n
      from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where j.locked_at is null group by t.identifier`.execute(db);
  const outbox = await sql<{ task: string; n: number }>`select task, count(*)::int as n from job_outbox group by task`.execute(db);
  const outboxFailed = await sql<{ n: number }>`select count(*)::int as n from job_outbox_failed`.execute(db);
  const webhooks = await sql<{ state: string; n: number }>`
    select 'pending' as state, count(*)::int as n from webhook_events where state = 'pending'
    union all
    select 'exhausted', count(*)::int from webhook_events where state = 'exhausted'`.execute(db);
  // Each state by its own partial index (webhook_events_pending_idx, webhook_events_exhausted_idx):
  // \`state <> 'delivered'\` matched no index and read the whole table (every METRICS_REFRESH_MS).
  const bots = (await listBots(db, 1000, 0)).filter((b) => !b.removed_at).map((b) => ({ bot: b.name, rotation: rotationOf(b).rotation }));
  const run = await sql<{ id: string; at: number }>`
    select r.id::text as id, extract(epoch from r.finished_at)::float8 as at from reconcile_runs r where r.finished_at is not null order by r.id desc limit 1`.execute(db);
  const kinds = run.rows[0]
    ? (await sql<{ kind: string; n: number }>`select kind, count(*)::int as n from reconcile_discrepancies where run_id = ${run.rows[0].id} group by kind`.execute(db)).rows
    : [];
  return { queue: queue.rows, outbox: outbox.rows, outboxFailed: outboxFailed.rows[0].n, webhooks: webhooks.rows, bots, reconcile: { kinds, finishedAt: run.rows[0]?.at ?? null } };
}

export function registerMetrics(app: FastifyInstance, db: Db, opts: MetricsOptions): { registry: client.Registry; stats: RouteStats } {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const stats = registerRouteStats(registry);
  const queueDepth = new client.Gauge({
    name: 'gateway_job_queue_depth',
    help: 'Jobs waiting in the queue (graphile-worker), by task; refreshed every METRICS_REFRESH_MS',
    labelNames: ['task'],
    registers: [registry],
  });
  const outboxRows = new client.Gauge({
    name: 'gateway_job_outbox_rows',
    help: 'Jobs of committed transactions not yet moved into the queue by the job relay, by task (normally near 0; growing = the relay is stuck); refreshed every METRICS_REFRESH_MS',
    labelNames: ['task'],
    registers: [registry],
  });
  const outboxFailed = new client.Gauge({
    name: 'gateway_job_outbox_failed',
    help: 'Jobs the queue refused, set aside in job_outbox_failed with the error (should be 0: look at them); refreshed every METRICS_REFRESH_MS',
    registers: [registry],
  });
  const undelivered = new client.Gauge({
    name: 'gateway_webhook_events_undelivered',
    help: 'Webhook events not delivered: pending (waiting for an attempt) or exhausted (gave up); refreshed every METRICS_REFRESH_MS',
    labelNames: ['state'],
    registers: [registry],
  });
  undelivered.set({ state: 'pending' }, 0);
  undelivered.set({ state: 'exhausted' }, 0);
  const botRotation = new client.Gauge({
    name: 'gateway_bot_rotation',
    help: 'Operator-managed bots by rotation state (1 for the state each bot is in: in, draining, out; see GET /api/admin/bots for the reason); refreshed every METRICS_REFRESH_MS',
    labelNames: ['bot', 'state'],
    registers: [registry],
  });
  const discrepancies = new client.Gauge({
    name: 'gateway_reconcile_discrepancies',
    help: 'Discrepancies between the records and the platform found by the latest reconciliation, by kind (should be 0: GET /api/admin/reconciliation says what to do); refreshed every METRICS_REFRESH_MS',
    labelNames: ['kind'],
    registers: [registry],
  });
  const reconciledAt = new client.Gauge({
    name: 'gateway_reconcile_last_run_timestamp_seconds',
    help: 'When the latest reconciliation finished (unix seconds; 0: never); alert when it is older than RECONCILE_SECONDS allows',
    registers: [registry],
  });

  // Refusals of the limits (rate-limit.ts), counted there in plain numbers and read at scrape time.
  // Labelled by door and status only: a merchant or address label would be one series per merchant
  // or per flooding address (unbounded, chosen by the flooder); the sampled log line names those.
  const refusals = app.rateLimits.refusals;
  new client.Counter({
    name: 'gateway_rate_limit_refusals_total',
    help: 'Requests refused by a limit, by door (merchant: per API key; hosted, sign_in, public: per client address) and status (429 over the limit, 503 over the in-flight cap)',
    labelNames: ['door', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [door, c] of Object.entries(refusals)) for (const status of [429, 503] as const) this.inc({ door, status: String(status) }, c[status]);
    },
  });

  // Offer changes refused although items may have moved (steam-poll.ts settle; each also audited as
  // offer_change_refused): should stay 0. Counted by this instance since it started.
  const refusedChanges = opts.refusedChanges;
  new client.Counter({
    name: 'gateway_steam_refused_changes_total',
    help: 'Offer changes reported by the platform that the gateway refused (the record cannot take them) although items may have moved, by kind (not_found, invalid_transition, conflict); should be 0: see the audit log (offer_change_refused)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(refusedChanges ?? {})) this.inc({ kind }, n);
    },
  });

  // Sign-ins on the platform, per bot and outcome: each is spent carefully (a stored web session or
  // refresh token that still works is used instead), so a rising count is a bot losing its sessions.
  const signIns = opts.signIns;
  new client.Counter({
    name: 'gateway_steam_sign_ins_total',
    help: 'Sign-ins a bot tried on the platform (login or refresh token; a stored web session is no sign-in), by bot and outcome (ok, failed, rate_limited); counted by this instance since it started',
    labelNames: ['bot', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [bot, byOutcome] of Object.entries(signIns ?? {})) for (const [outcome, n] of Object.entries(byOutcome)) this.inc({ bot, outcome }, n);
    },
  });

  let refreshing: Promise<void> | undefined;
  const refresh = () =>
    (refreshing ??= readDbGauges(db)
      .then((g) => {
        queueDepth.reset();
        for (const r of g.queue) queueDepth.set({ task: r.task }, r.n);
        outboxRows.reset();
        for (const r of g.outbox) outboxRows.set({ task: r.task }, r.n);
        outboxFailed.set(g.outboxFailed);
        undelivered.set({ state: 'pending' }, 0);
        undelivered.set({ state: 'exhausted' }, 0);
        for (const r of g.webhooks) undelivered.set({ state: r.state }, r.n);
        botRotation.reset();
        for (const b of g.bots) for (const state of ['in', 'draining', 'out']) botRotation.set({ bot: b.bot, state }, b.rotation === state ? 1 : 0);
        discrepancies.reset();
        discrepancies.set({ kind: 'total' }, g.reconcile.kinds.reduce((a, r) => a + r.n, 0));
        for (const r of g.reconcile.kinds) discrepancies.set({ kind: r.kind }, r.n);
        reconciledAt.set(g.reconcile.finishedAt ?? 0);
      })
      .catch(() => {
        // the database being down is reported by /readyz; metrics keep their last values
      })
      .finally(() => {
        refreshing = undefined;
      }));
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    void refresh();
    timer = setInterval(() => void refresh(), opts.refreshMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await refreshing;
  });

  app.addHook('onResponse', (request, reply, done) => {
    stats.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  // No token configured: every scrape is refused before its header is read. With one, the bearer
  // credential must be exactly the token (no trimming).
  const token = isBlankCredential(opts.token) ? undefined : opts.token;
  const onRequest = async (request: { headers: Record<string, string | string[] | undefined> }) => {
    if (token === undefined) throw new AppError('unauthenticated', 'metrics are closed: no METRICS_TOKEN or ADMIN_TOKEN is configured');
    const header = request.headers.authorization;
    if (!header) throw new AppError('unauthenticated', 'missing authorization header');
    if (!credentialMatches(bearerCredential(header), token)) throw new AppError('unauthenticated', 'invalid metrics token');
  };
  app.get('/metrics', { schema: { hide: true }, onRequest }, async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return { registry, stats };
}
