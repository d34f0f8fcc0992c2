// Starts one gateway instance: database (embedded unless DATABASE_URL), migrations, job worker,
// HTTP server. main.ts and the tests both use this, so what is tested is what runs.
import { EventEmitter } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { createLogger, logFormat } from '../logging.js';
import type { FastifyInstance } from 'fastify';
import type { Runner, WorkerEvents } from 'graphile-worker';
import type { Config } from '../config.js';
import { checkBearerToken } from '../config-parse.js';
import { StartupError } from '../db/startup-error.js';
import { CommitTaps } from '../db/commit-taps.js';
import { createDb, createPool, nonDurableSettings } from '../db/database.js';
import { watchDatabase } from '../db/outage.js';
import { JOB_OUTBOX } from '../jobs/enqueue.js';
import { startEmbeddedPostgres, type EmbeddedDb } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { startJobLockReaper } from '../db/job-locks.js';
import { createContext, type AppContext } from './context.js';
import { loadPlatformAdapter } from '../platform/index.js';
import { buildServer, type BuildOptions, type Drain } from './server.js';
import { startWorker } from './worker.js';
import { warmValidators } from '../http/validation.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { randomSecret } from '../domain/secrets.js';
import { featureStartups } from './startup.js';
import type { SessionProvider } from '../platform/steam/session.js';

export interface Gateway {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  worker?: Runner;
  stop(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  listen?: boolean;
  worker?: boolean;
  /** Seed a demo merchant in sandbox mode when the database has none (npm start). */
  seedDemo?: boolean;
  onDemoMerchant?: (m: { id: number; api_key: string; webhook_secret: string }) => void;
  /** PLATFORM=steam: how bots sign in (default steam-session over HTTP). */
  steamSessions?: SessionProvider;
  /** Called on the HTTP server before its routes are registered (tests add hooks here). */
  configureServer?: BuildOptions['configure'];
  /** The embedded cluster, already starting (main.ts starts it while the modules load). */
  embedded?: EarlyEmbedded;
}

/**
 * The embedded cluster started before this module is loaded: `npm start` saves most of a restart's
 * cluster start that way (time from start to ready). Its log lines wait for the logger.
 */
export interface EarlyEmbedded {
  started: Promise<EmbeddedDb>;
  logTo(log: (msg: string) => void): void;
}

async function resolveAdminToken(config: Config, log: Logger): Promise<string | undefined> {
  if (config.adminToken) return config.adminToken;
  if (config.platform !== 'sandbox') {
    log.warn('ADMIN_TOKEN is not set: the operator API answers 401 to everything');
    return undefined;
  }
  const file = path.join(config.dataDir, 'admin-token');
  let kept: string | undefined;
  try {
    kept = (await fs.readFile(file, 'utf8')).replace(/[ \t\r\n]+$/, ''); // an editor's final newline
  } catch {
    kept = undefined;
  }
  if (kept === undefined) {
    const token = randomSecret('adm_');
    await fs.mkdir(config.dataDir, { recursive: true });
    await fs.writeFile(file, token, { mode: 0o600 });
    return token;
  }
  // The kept token is held to ADMIN_TOKEN's rule: an emptied or edited file never opens the operator API.
  try {
    return checkBearerToken(kept, file);
  } catch (err) {
    throw new StartupError(`${(err as Error).message}; delete the file to have a new token generated, or set ADMIN_TOKEN`);
  }
}

/**
 * The HTTP side of a stop. New requests are answered 503 (Connection: close) at once; the listener
 * stays open until clients stop coming (no request turned away for DRAIN_QUIET_MS), so no
 * connection waiting in its backlog is reset, then closes; the requests in flight finish. After
 * `deadlineMs` in all, the connections still open are closed and a warning says so.
 */
const DRAIN_QUIET_MS = 200;
async function closeHttp(app: FastifyInstance, drain: Drain, deadlineMs: number, log: Logger): Promise<void> {
  const started = Date.now();
  drain.active = true;
  for (let seen = -1; seen !== drain.turnedAway && Date.now() - started < deadlineMs; ) {
    seen = drain.turnedAway;
    await new Promise((r) => setTimeout(r, DRAIN_QUIET_MS));
  }
  const timer = setTimeout(() => {
    log.warn({ deadlineMs }, 'requests still in flight at the stop deadline (STOP_TIMEOUT_MS): closing their connections');
    app.server.closeAllConnections();
  }, Math.max(0, deadlineMs - (Date.now() - started)));
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

export async function startGateway(config: Config, opts: StartOptions = {}): Promise<Gateway> {
  const log = opts.logger ?? createLogger({ level: config.logLevel, format: logFormat(config.logFormat) });
  let embedded: EmbeddedDb | undefined;
  let dbUrl = config.databaseUrl;
  if (!dbUrl) {
    log.info({ dataDir: config.dataDir }, 'starting embedded PostgreSQL');
    if (opts.embedded) opts.embedded.logTo((m) => log.debug(m));
    embedded = await (opts.embedded?.started ?? startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log: (m) => log.debug(m) }));
    dbUrl = embedded.url;
  }
  const pool = createPool(dbUrl, config.dbPoolSize, config.dbConnectTimeoutMs);
  // After a commit that wrote job_outbox rows, the relay is woken at once (no NOTIFY in the writer).
  const taps = new CommitTaps();
  const db = createDb(pool, taps);
  // The database going away and coming back: one warning each (db/outage.ts), requests answer 503.
  const outage = watchDatabase(pool, log, [db]);
  // What has started so far, stopped in reverse when the start fails after it (a port in use):
  // pool.end() waits for every client checked out, so one part left running hung the failed start.
  const begun: (() => Promise<unknown> | void)[] = [];
  try {
    await migrate(pool, (m) => log.info(m));
    const weak = await nonDurableSettings(db);
    if (weak.length) log.warn(`the database runs with ${weak.join(', ')}: acknowledged writes can be lost in a crash`);
    const adminToken = await resolveAdminToken(config, log);
    await loadPlatformAdapter(config);
    const ctx = createContext({ config: { ...config, adminToken }, db, pool, commitTaps: taps, clock: opts.clock ?? systemClock, log, steamSessions: opts.steamSessions });
    const relay = ctx.jobRelay;
    taps.on(JOB_OUTBOX, relay.poke);
    relay.start();
    begun.push(() => relay.stop());
    begun.push(() => ctx.pricing.stop());
    for (const startup of featureStartups) await startup(ctx);

    if (opts.seedDemo && config.platform === 'sandbox') {
      const existing = await db.selectFrom('merchants').select('id').limit(1).executeTakeFirst();
      if (!existing) {
        const m = await ctx.merchants.create({ name: 'Demo merchant', deposit_preview_enabled: true });
        await ctx.ledger.topUp(m.id, 1_000_000, 'demo-initial-balance');
        opts.onDemoMerchant?.({ id: m.id, api_key: m.api_key, webhook_secret: m.webhook_secret });
      }
    }

    // The reaper listens before the worker starts: its workers announce themselves on creation.
    const events = new EventEmitter() as WorkerEvents;
    const reaper = opts.worker === false
      ? undefined
      : startJobLockReaper({ pool, events, timeoutMs: config.jobLockTimeoutMs, log: (msg, workers) => log.warn({ workers }, msg) });
    if (reaper) begun.push(() => reaper.stop());
    const worker = opts.worker === false ? undefined : await startWorker(ctx, events);
    if (worker) {
      begun.push(() => worker.stop());
      // A real platform starts driving its bots (leases, polls) with the worker, and the webhook and
      // purchase dispatchers claim with it (woken by this pool's commits of webhook events / new purchases).
      begun.push(() => ctx.platform.stop?.()); // before: a start that throws may have taken bot leases
      await ctx.platform.start?.();
      begun.push(() => ctx.webhooks.dispatcher.stop());
      ctx.webhooks.dispatcher.start(taps, pool.options);
      begun.push(() => ctx.purchases.dispatcher.stop());
      ctx.purchases.dispatcher.start(taps);
    }
    // From the first moment of a stop every new request (/readyz too) answers 503 (closeHttp).
    const drain: Drain = { active: false, turnedAway: 0 };
    const app = await buildServer(ctx, { configure: opts.configureServer, drain });
    begun.push(() => app.close());
    let url = config.publicUrl;
    if (opts.listen !== false) {
      const addr = await app.listen({ port: config.port, host: config.host });
      if (config.port === 0) url = addr;
    } else {
      await app.ready();
    }

    ctx.catalogue.pageState.start(pool.options);
    // Route validators compile on first use; the ones not used yet compile now, between requests.
    void warmValidators().catch((err) => log.error({ err }, 'a route schema does not compile'));
    let stopped: Promise<void> | undefined;
    // The order matters: no new work in (HTTP, then bot leases handed back), the work in flight
    // finished (requests, webhook attempts, purchase offers, jobs), its jobs handed to the queue,
    // then the connections, and the embedded database last.
    const stopAll = async () => {
        await closeHttp(app, drain, config.stopTimeoutMs, log);
        await ctx.platform.stop?.();
        await ctx.purchases.dispatcher.stop();
        await ctx.webhooks.dispatcher.stop();
        await worker?.stop();
        // Only now: the jobs still running kept their heartbeats, so no other instance took them.
        await reaper?.stop();
        await ctx.jobRelay.flush(); // what the last jobs added (else the next start's relay moves it)
        await ctx.jobRelay.stop();
        await ctx.catalogue.pageState.stop();
        await ctx.pricing.stop(); // polls in flight end before the pool does
        outage.stop();
        await db.destroy(); // ends the pool
        await embedded?.stop();
    };
    return {
      app,
      ctx,
      url,
      worker,
      stop: () => (stopped ??= stopAll()),
    };
  } catch (err) {
    for (const stop of begun.reverse()) await Promise.resolve().then(stop).catch(() => {});
    outage.stop();
    await pool.end().catch(() => {});
    await embedded?.stop().catch(() => {});
    throw err;
  }
}
