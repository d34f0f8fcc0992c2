// Every setting comes from the environment, is validated here once, and is passed down
// as a typed object. Nothing else in the code reads process.env.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Game } from './domain/games.js';
import { baseUrl, bearerToken, bool, ConfigError, gameList, httpUrl, int, oneOf, parseRetrySchedule, parseSecretsKey, ratio, usd, type Env } from './config-parse.js';

export { ConfigError, parseRetrySchedule };

export type PlatformKind = 'sandbox' | 'steam';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number | undefined;
  adminToken: string | undefined;
  platform: PlatformKind;
  trustProxy: boolean | string;
  quoteTtlSeconds: number;
  /** Lifetime of an intent's hosted page (redirect flow); fixed when the intent is created. */
  intentTtlSeconds: number;
  offerTtlSeconds: number;
  holdSeconds: Record<Game, number>;
  depositTimeoutMs: number;
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  /** Added to WEBHOOK_TIMEOUT_MS: how long an attempt may stay unsettled before it is presumed lost. */
  webhookLeaseMarginMs: number;
  /** How often attempts lost with their instance (lease run out) are looked for. */
  webhookSweepIntervalMs: number;
  /** How often the dispatcher looks for due events it was not woken for (other instances', retries). */
  webhookPollMs: number;
  /** Webhook attempts in flight at once per instance. */
  webhookConcurrency: number;
  /** Of webhookConcurrency, the most one merchant's attempts may take at once (per instance). */
  webhookConcurrencyPerMerchant: number;
  /** Delivered webhook events (and their attempts) older than this are deleted; 0 keeps them forever. */
  webhookRetentionDays: number;
  /** Days of the merchants' own API requests kept for the dashboard's request log; 0: not recorded. */
  requestLogDays: number;
  priceRefreshSeconds: number;
  /** Quotes are refused once the loaded price book is older than this (0: no limit). */
  priceMaxAgeSeconds: number;
  priceBookSource: string | undefined;
  /** Price sources besides the book, and the reference-price rules. */
  pricing: PricingConfig;
  sandboxCatalogueSize: number;
  /** Whole-catalogue downloads (purchase/available without page) streaming at once per instance. */
  catalogueStreamConcurrency: number;
  bodyLimitBytes: number;
  /** Whole request (headers and body) must arrive within this, else 408 and the connection closes. */
  httpRequestTimeoutMs: number;
  /** Request headers must arrive within this. */
  httpHeadersTimeoutMs: number;
  /** A connection with no traffic in either direction for this long is closed. */
  httpIdleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  httpKeepAliveTimeoutMs: number;
  /** On SIGINT/SIGTERM, requests in flight may run this long before their connections are closed. */
  stopTimeoutMs: number;
  /** /metrics: bearer token; unset → the admin token. */
  metricsToken: string | undefined;
  /** How often the database gauges of /metrics (queue depth, undelivered webhooks) are refreshed. */
  metricsRefreshMs: number;
  logLevel: string;
  /** LOG_FORMAT: json or pretty; unset → pretty when stdout is a terminal, else json. */
  logFormat: 'json' | 'pretty' | undefined;
  /** Access log (one line per answer, at info): every answer, only those with status ≥ 400, or none. */
  logRequests: 'all' | 'errors' | 'off';
  workerConcurrency: number;
  /** Most purchase creations sent to the database as one batch (one statement, one commit). */
  purchaseBatchSize: number;
  /** Most purchase-creation batches running at once per instance. */
  purchaseBatchesInFlight: number;
  /** Most purchase offers being sent at once per instance (the purchase dispatcher). */
  purchaseDispatchConcurrency: number;
  /** Database connections per instance (the HTTP handlers, the job worker and the relay share them). */
  dbPoolSize: number;
  /** How long a query waits for a database connection before it fails (503 to a request). */
  dbConnectTimeoutMs: number;
  /** The job relay's poll for outbox rows this instance was not told about (other instances, the CLI, a crash). */
  jobRelayPollMs: number;
  jobLockTimeoutMs: number;
  /** PLATFORM=steam: bot secrets' AES-256-GCM key (BOT_SECRETS_KEY), raw text; parsed by the bot module. */
  botSecretsKey: string | undefined;
  steam: SteamSettings;
  botSync: BotSyncSettings;
  reconcile: ReconcileSettings;
  retention: RetentionSettings;
  /** Limits on every door (src/http/rate-limit.ts), counted per instance. */
  rateLimits: RateLimitSettings;
  /** E-mail: reset links and invitations are sent when set; off (undefined) by default. */
  smtp: SmtpSettings | undefined;
}

/**
 * Retention: what grows without bound is pruned by one keyed job (`retention_prune`),
 * in small batches. 0 days keeps a kind forever. The ledger and the money records are never pruned.
 */
export interface RetentionSettings {
  /** Seconds between runs of the pruning job (0: never scheduled; `gateway retention prune` still works). */
  intervalSeconds: number;
  /** Rows deleted per statement (each its own short transaction). */
  batchSize: number;
  /**
   * The most of its wall time a pruning loop spends in its statements, percent (src/jobs/pacing.ts):
   * the retention run, the webhook prune and the request-log prune wait between batches so that a
   * backlog never takes a database core for its whole length. 100: back to back.
   */
  busyPercent: number;
  /** Seconds between folds of the purchase count deltas (job `purchase_counts_fold`; GET /purchase `total`). */
  countFoldSeconds: number;
  /** record_status_history rows older than this. */
  statusHistoryDays: number;
  /** Uncommitted drafts (get-prices quotes, intents never opened) this long past their expiry; expired inventory snapshots. */
  draftDays: number;
  /** Dashboard sessions ended (expired or revoked) this long ago; spent or expired invitations; sign-in windows. */
  sessionDays: number;
  /** Sandbox offers, trades and departed bot items older than this (sandbox platform only). */
  sandboxDays: number;
  /** Job history: permanently failed jobs, poisoned outbox rows, heartbeats of gone workers. */
  jobHistoryDays: number;
  /** Sold and delisted catalogue listings whose last change is older than this (no open purchase names them). */
  listingDays: number;
  /** Price bases superseded this long ago that no deposit item or quote names. */
  priceBasisDays: number;
  /** Reconciliation runs started this long ago, with their discrepancies (the latest finished run is kept). */
  reconcileDays: number;
}

/** Requests per minute per API key or client address, and the in-flight cap (src/http/rate-limit.ts). */
export interface RateLimitSettings {
  /** Requests per minute per API key on the merchant API (a merchant's own setting wins); 0: no limit. */
  merchantPerMinute: number;
  /** Requests per minute per client address on the hosted page and its API; 0: no limit. */
  hostedPerMinute: number;
  /** Sign-in and invitation form posts per minute per client address; 0: no limit. */
  signInPerMinute: number;
  /** Other unauthenticated requests per minute per client address; 0: no limit. */
  publicPerMinute: number;
  /** Requests in flight at once on the hosted, sign-in and public doors together (per instance); beyond: 503. 0: no cap. */
  inFlight: number;
}

/** The catalogue sync of the bots' stock: schedule, which items, and their price. */
export interface BotSyncSettings {
  /** Seconds between scheduled syncs (0: only on demand). */
  intervalSeconds: number;
  games: Game[];
  /** Items whose book price is below / above these (mills) are not listed; maxPriceMills 0: no limit. */
  minPriceMills: number;
  maxPriceMills: number;
  /** A listing's base price: the book price × this percent. */
  pricePercent: number;
}

/** Reconciliation against the platform: schedule and how far back the trade history is read. */
export interface ReconcileSettings {
  /** Seconds between scheduled runs (0: only on demand). */
  intervalSeconds: number;
  /** Trades and records younger than this are compared (the platform's history is read that far back). */
  windowSeconds: number;
}

/** The platform's hosts (a stand-in platform for staging / black-box tests) and the bot drivers' timings. */
export interface SteamSettings {
  communityUrl: string;
  apiUrl: string;
  /** The bots' sign-in: the authentication Web API (STEAM_LOGIN_API_URL) and the login host (STEAM_LOGIN_URL). */
  loginApiUrl: string;
  loginUrl: string;
  pollIntervalMs: number;
  historyPollMs: number;
  leaseSeconds: number;
  callTimeoutMs: number;
  /** First backoff window after a 429 (doubling, full jitter, capped at 60 s; 4 attempts per call). */
  backoffBaseMs: number;
  /** After an ambiguous send: how long an offer may take to appear before the record gives up on it (later ones are canceled on sight). */
  sendSettleMs: number;
  /** CS2 trade protection: how long after a trade the sender may reverse it (STEAM_PROTECTION_WINDOW_SECONDS). */
  protectionWindowSeconds: number;
  /** Added to the protection's end before a hold ends: time to read a reversal in the trade history (STEAM_PROTECTION_MARGIN_SECONDS). */
  protectionMarginSeconds: number;
}


/** The highest rate limit a setting or a merchant's own limit may name (requests per minute). */
export const RATE_LIMIT_MAX_PER_MINUTE = 10_000_000;

/** CS2 trade protection: a trade can be reversed for 7 days (the default of STEAM_PROTECTION_WINDOW_SECONDS)… */
export const STEAM_PROTECTION_WINDOW_DEFAULT_SECONDS = 7 * 86400;
/** …and a hold ends an hour after the protection (STEAM_PROTECTION_MARGIN_SECONDS): time to read a reversal in the trade history. */
export const STEAM_PROTECTION_MARGIN_DEFAULT_SECONDS = 3600;
/** In DATA_DIR: the PUBLIC_URL of the gateway's last start, for the links the CLI prints without PUBLIC_URL set. */
export const PUBLIC_URL_FILE = 'public-url';









/** Steam mode refuses to start without a well-formed key for the bots' secrets. */
function botSecretsKey(env: Env, platform: PlatformKind): string | undefined {
  const raw = env.BOT_SECRETS_KEY || undefined;
  if (raw !== undefined) parseSecretsKey(raw);
  else if (platform === 'steam') {
    throw new ConfigError('BOT_SECRETS_KEY is required with PLATFORM=steam (32 bytes, e.g. `openssl rand -base64 32`)');
  }
  return raw;
}

/** The price book shipped for the sandbox platform (repo-root data/pricebook/): made-up prices. */
export const SANDBOX_PRICEBOOK_DIR = fileURLToPath(new URL('../data/pricebook/', import.meta.url));

/** What a steam-mode start refused for its prices is told to set. */
export const PRICE_SOURCE_SETTINGS =
  'set one or more of PRICE_BOOK (your own book: a file, a directory or an http(s) URL), PRICE_SKINPORT ' +
  "(Skinport's item lists, one URL per game) and PRICE_CSFLOAT_API_KEY (CSFloat's listings); " +
  'PRICE_STEAM_MARKET_URL adds the Steam Market guard (a check, never a price) and PRICE_MIN_SOURCES ' +
  'how many sources must agree on an item (docs/going-live.md, "Price sources")';

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** Whether a PRICE_BOOK value is the shipped sandbox book: its directory or a file in it, however named (relative, through a symlink). */
export function isSandboxBook(source: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source.trim()) || /^skinport:/i.test(source.trim())) return false;
  const rel = path.relative(real(SANDBOX_PRICEBOOK_DIR), real(source.trim()));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The market price sources a configuration sets, by the setting that turns each on (the Steam guard is no source). */
export function marketPriceSources(c: Pick<Config, 'priceBookSource' | 'pricing'>): string[] {
  const out: string[] = [];
  if (c.priceBookSource) out.push('PRICE_BOOK');
  if (c.pricing.skinportUrls.length > 0) out.push('PRICE_SKINPORT');
  if (c.pricing.csfloatApiKey) out.push('PRICE_CSFLOAT_API_KEY');
  return out;
}

/**
 * Why a steam-mode configuration could not price real items, or undefined: no price source set (the
 * sandbox book is never the live book), PRICE_BOOK naming the sandbox book, or PRICE_MIN_SOURCES
 * above the number of sources set (no item could ever be accepted).
 */
export function steamPricingProblem(c: Pick<Config, 'platform' | 'priceBookSource' | 'pricing'>): string | undefined {
  if (c.platform !== 'steam') return undefined;
  if (c.priceBookSource && isSandboxBook(c.priceBookSource)) {
    return `PRICE_BOOK names the sandbox book shipped in data/pricebook/ (made-up prices): PLATFORM=steam never prices a real item from it; ${PRICE_SOURCE_SETTINGS}`;
  }
  const sources = marketPriceSources(c);
  if (sources.length === 0) return `PLATFORM=steam needs a price source and none is set (the sandbox book is never used on the steam platform): ${PRICE_SOURCE_SETTINGS}`;
  if (c.pricing.minSources > sources.length) {
    return `PRICE_MIN_SOURCES=${c.pricing.minSources} but only ${sources.length} price source${sources.length === 1 ? ' is' : 's are'} set (${sources.join(', ')}): no item could ever be accepted; set more sources or lower PRICE_MIN_SOURCES`;
  }
  return undefined;
}

/**
 * `opts.priceSources: false` (gateway doctor) leaves the steam-mode price checks to the caller, who
 * reports steamPricingProblem among the others instead of refusing at once.
 */
export function loadConfig(env: Env = process.env, opts: { priceSources?: boolean } = {}): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const platform = (env.PLATFORM || 'sandbox') as PlatformKind;
  if (platform !== 'sandbox' && platform !== 'steam') {
    throw new ConfigError(`PLATFORM must be sandbox or steam, got "${platform}"`);
  }
  // CS2 trade protection as data: the window and the hold's margin after it; the steam hold's
  // start check (HOLD_SECONDS_CSGO at least their sum) and the hold's end (steam-records.ts) read them.
  const protectionWindowSeconds = int(env, 'STEAM_PROTECTION_WINDOW_SECONDS', STEAM_PROTECTION_WINDOW_DEFAULT_SECONDS, 0, 90 * 86400);
  const protectionMarginSeconds = int(env, 'STEAM_PROTECTION_MARGIN_SECONDS', STEAM_PROTECTION_MARGIN_DEFAULT_SECONDS, 0, 7 * 86400);
  const steamMinHold = protectionWindowSeconds + protectionMarginSeconds;
  const trustRaw = env.TRUST_PROXY;
  let trustProxy: boolean | string = false;
  if (trustRaw && /^(1|true|yes|on)$/i.test(trustRaw)) trustProxy = true;
  else if (trustRaw && !/^(0|false|no|off)$/i.test(trustRaw)) trustProxy = trustRaw; // list of proxy IPs/CIDRs

  const webhookConcurrency = int(env, 'WEBHOOK_CONCURRENCY', 128, 1, 1000);
  const publicUrl = (env.PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }

  const config: Config = {
    port,
    host,
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || './.data'),
    embeddedPgPort: env.EMBEDDED_PG_PORT ? int(env, 'EMBEDDED_PG_PORT', 0, 1, 65535) : undefined,
    adminToken: bearerToken(env, 'ADMIN_TOKEN'),
    platform,
    trustProxy,
    quoteTtlSeconds: int(env, 'QUOTE_TTL_SECONDS', 300, 1),
    intentTtlSeconds: int(env, 'INTENT_TTL_SECONDS', 86400, 1),
    offerTtlSeconds: int(env, 'OFFER_TTL_SECONDS', 600, 1),
    holdSeconds: {
      // Steam: CS2 trades can be reversed during their trade protection; the hold outlasts it plus the time to see a reversal.
      csgo: int(env, 'HOLD_SECONDS_CSGO', platform === 'steam' ? steamMinHold : 604800, platform === 'steam' ? steamMinHold : 0),
      rust: int(env, 'HOLD_SECONDS_RUST', 3600),
      dota2: int(env, 'HOLD_SECONDS_DOTA2', 0),
      tf2: int(env, 'HOLD_SECONDS_TF2', 0),
    },
    depositTimeoutMs: int(env, 'DEPOSIT_TIMEOUT_MS', 10000, 1),
    webhookRetrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE || '0,5,300,1800,7200,18000,36000,36000'),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 15000, 1),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', platform === 'sandbox'),
    webhookLeaseMarginMs: int(env, 'WEBHOOK_LEASE_MARGIN_MS', 30000, 0),
    webhookSweepIntervalMs: int(env, 'WEBHOOK_SWEEP_INTERVAL_MS', 60000, 100),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS', 250, 10, 3_600_000),
    webhookConcurrency,
    webhookConcurrencyPerMerchant: int(env, 'WEBHOOK_CONCURRENCY_PER_MERCHANT', Math.max(1, Math.ceil(webhookConcurrency / 4)), 1, 1000),
    webhookRetentionDays: int(env, 'WEBHOOK_RETENTION_DAYS', 30, 0, 36500),
    requestLogDays: int(env, 'REQUEST_LOG_DAYS', 7, 0, 90),
    priceRefreshSeconds: int(env, 'PRICE_REFRESH_SECONDS', 600, 1),
    priceMaxAgeSeconds: int(env, 'PRICE_MAX_AGE_SECONDS', 3600, 0),
    priceBookSource: env.PRICE_BOOK || undefined,
    pricing: pricingConfig(env),
    sandboxCatalogueSize: int(env, 'SANDBOX_CATALOGUE_SIZE', 5000, 0),
    catalogueStreamConcurrency: int(env, 'CATALOGUE_STREAM_CONCURRENCY', 4, 1, 1000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 2 * 1024 * 1024, 1024),
    httpRequestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    httpHeadersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000),
    httpIdleTimeoutMs: int(env, 'HTTP_IDLE_TIMEOUT_MS', 30_000, 100, 3_600_000),
    httpKeepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 3_600_000),
    stopTimeoutMs: int(env, 'STOP_TIMEOUT_MS', 30_000, 0, 3_600_000),
    metricsToken: bearerToken(env, 'METRICS_TOKEN'),
    metricsRefreshMs: int(env, 'METRICS_REFRESH_MS', 15_000, 100, 3_600_000),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: env.LOG_FORMAT ? oneOf(env, 'LOG_FORMAT', ['json', 'pretty'] as const, 'json') : undefined,
    logRequests: oneOf(env, 'LOG_REQUESTS', ['all', 'errors', 'off'] as const, 'all'),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4, 1, 100),
    purchaseBatchSize: int(env, 'PURCHASE_BATCH_SIZE', 64, 1, 1000),
    purchaseBatchesInFlight: int(env, 'PURCHASE_BATCHES_IN_FLIGHT', 2, 1, 100),
    // The sandbox sends a claimed batch in one statement; steam sends one offer per call, each
    // loading bot inventories from the platform, so it gets a platform-sized default.
    purchaseDispatchConcurrency: int(env, 'PURCHASE_DISPATCH_CONCURRENCY', platform === 'steam' ? 8 : 256, 1, 10_000),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 20, 2, 1000),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    jobRelayPollMs: int(env, 'JOB_RELAY_POLL_MS', 250, 10, 60_000),
    jobLockTimeoutMs: int(env, 'JOB_LOCK_TIMEOUT_MS', 60_000, 1000),
    botSecretsKey: botSecretsKey(env, platform),
    steam: {
      communityUrl: baseUrl(env, 'STEAM_COMMUNITY_URL', 'https://steamcommunity.com'),
      apiUrl: baseUrl(env, 'STEAM_API_URL', 'https://api.steampowered.com'),
      loginApiUrl: baseUrl(env, 'STEAM_LOGIN_API_URL', 'https://api.steampowered.com'),
      loginUrl: baseUrl(env, 'STEAM_LOGIN_URL', 'https://login.steampowered.com'),
      pollIntervalMs: int(env, 'STEAM_POLL_INTERVAL_MS', 30000, 1000),
      historyPollMs: int(env, 'STEAM_HISTORY_POLL_MS', 300000, 1000),
      leaseSeconds: int(env, 'BOT_LEASE_SECONDS', 30, 3, 3600),
      callTimeoutMs: int(env, 'STEAM_CALL_TIMEOUT_MS', 20000, 100),
      backoffBaseMs: int(env, 'STEAM_BACKOFF_BASE_MS', 1000, 1, 60000),
      sendSettleMs: int(env, 'STEAM_SEND_SETTLE_MS', 120_000, 100, 3_600_000),
      protectionWindowSeconds,
      protectionMarginSeconds,
    },
    botSync: {
      intervalSeconds: int(env, 'BOT_SYNC_SECONDS', 600, 0, 86400 * 7),
      games: gameList(env, 'BOT_SYNC_GAMES'),
      minPriceMills: usd(env, 'BOT_SYNC_MIN_PRICE', 0),
      maxPriceMills: usd(env, 'BOT_SYNC_MAX_PRICE', 0),
      pricePercent: int(env, 'BOT_SYNC_PRICE_PERCENT', 100, 1, 1000),
    },
    reconcile: {
      intervalSeconds: int(env, 'RECONCILE_SECONDS', 86400, 0, 86400 * 30),
      windowSeconds: int(env, 'RECONCILE_WINDOW_SECONDS', 8 * 86400, 3600, 86400 * 90),
    },
    retention: {
      intervalSeconds: int(env, 'RETENTION_INTERVAL_SECONDS', 3600, 0, 86400 * 7),
      batchSize: int(env, 'RETENTION_BATCH', 1000, 1, 100_000),
      busyPercent: int(env, 'RETENTION_BUSY_PERCENT', 25, 1, 100),
      countFoldSeconds: int(env, 'PURCHASE_COUNT_FOLD_SECONDS', 10, 1, 3600),
      statusHistoryDays: int(env, 'STATUS_HISTORY_DAYS', 365, 0, 36500),
      draftDays: int(env, 'DRAFT_RETENTION_DAYS', 7, 0, 36500),
      sessionDays: int(env, 'SESSION_RETENTION_DAYS', 30, 0, 36500),
      // Past the reconciliation window (8 days) and the 7-day trade protection.
      sandboxDays: int(env, 'SANDBOX_RETENTION_DAYS', 30, 0, 36500),
      jobHistoryDays: int(env, 'JOB_HISTORY_DAYS', 14, 0, 36500),
      listingDays: int(env, 'LISTING_RETENTION_DAYS', 90, 0, 36500),
      priceBasisDays: int(env, 'PRICE_BASIS_RETENTION_DAYS', 90, 0, 36500),
      reconcileDays: int(env, 'RECONCILE_RETENTION_DAYS', 90, 0, 36500),
    },
    rateLimits: {
      merchantPerMinute: int(env, 'RATE_LIMIT_MERCHANT_PER_MINUTE', 6000, 0, RATE_LIMIT_MAX_PER_MINUTE),
      hostedPerMinute: int(env, 'RATE_LIMIT_HOSTED_PER_MINUTE', 1200, 0, RATE_LIMIT_MAX_PER_MINUTE),
      signInPerMinute: int(env, 'RATE_LIMIT_SIGN_IN_PER_MINUTE', 30, 0, RATE_LIMIT_MAX_PER_MINUTE),
      publicPerMinute: int(env, 'RATE_LIMIT_PUBLIC_PER_MINUTE', 3000, 0, RATE_LIMIT_MAX_PER_MINUTE),
      inFlight: int(env, 'RATE_LIMIT_IN_FLIGHT', 256, 0, 100_000),
    },
    smtp: smtpSettings(env),
  };
  const pricingProblem = opts.priceSources === false ? undefined : steamPricingProblem(config);
  if (pricingProblem) throw new ConfigError(pricingProblem);
  return config;
}

/** Price sources and the reference-price rules; every source is off unless set. */
export interface PricingConfig {
  /** PRICE_SKINPORT: Skinport item-list URLs (one per game), whitespace-separated */
  skinportUrls: string[];
  /** PRICE_CSFLOAT_API_KEY: a secret (never logged); CSFloat is polled only with it */
  csfloatApiKey: string | undefined;
  csfloatUrl: string;
  csfloatMaxPages: number;
  csfloatIntervalSeconds: number;
  /** PRICE_STEAM_MARKET_URL: the priceoverview endpoint; the guard is off unless set */
  steamMarketUrl: string | undefined;
  itemMaxAgeSeconds: number;
  minLiquidity: number;
  minSources: number;
  outlierRatio: number;
  jumpRatio: number;
  /** backoff cap of a failing source */
  maxBackoffSeconds: number;
  /** PRICE_SANDBOX_CASES: magic items "Sandbox Price | …" that play the rules' cases */
  sandboxCases: boolean;
}



function pricingConfig(env: Env): PricingConfig {
  const skinportUrls = (env.PRICE_SKINPORT ?? '').split(/\s+/).filter(Boolean);
  for (const u of skinportUrls) if (!/^https?:\/\/\S+$/i.test(u)) throw new ConfigError(`PRICE_SKINPORT must list http(s) URLs, got "${u}"`);
  return {
    skinportUrls,
    csfloatApiKey: env.PRICE_CSFLOAT_API_KEY || undefined,
    csfloatUrl: httpUrl(env, 'PRICE_CSFLOAT_URL', 'https://csfloat.com/api/v1/listings')!,
    csfloatMaxPages: int(env, 'PRICE_CSFLOAT_MAX_PAGES', 100, 1, 100_000),
    csfloatIntervalSeconds: int(env, 'PRICE_CSFLOAT_INTERVAL_SECONDS', 900, 1),
    steamMarketUrl: httpUrl(env, 'PRICE_STEAM_MARKET_URL'),
    itemMaxAgeSeconds: int(env, 'PRICE_ITEM_MAX_AGE_SECONDS', 3600, 1),
    minLiquidity: int(env, 'PRICE_MIN_LIQUIDITY', 3, 0),
    minSources: int(env, 'PRICE_MIN_SOURCES', 1, 1, 10),
    outlierRatio: ratio(env, 'PRICE_OUTLIER_RATIO', 1.5),
    jumpRatio: ratio(env, 'PRICE_JUMP_RATIO', 1.5),
    maxBackoffSeconds: int(env, 'PRICE_MAX_BACKOFF_SECONDS', 1800, 1),
    sandboxCases: bool(env, 'PRICE_SANDBOX_CASES', false),
  };
}

/** SMTP_URL (a secret: it may carry the password; never logged nor echoed), SMTP_FROM, SMTP_TIMEOUT_MS. */
export interface SmtpSettings {
  url: string;
  from: string;
  /** Connection, greeting and socket timeout of one send (a job: a slow server never holds a page). */
  timeoutMs: number;
}

function smtpSettings(env: Env): SmtpSettings | undefined {
  const url = env.SMTP_URL?.trim();
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('SMTP_URL must be a URL like smtp://user:password@host:587 or smtps://user:password@host:465 (the value is not shown: it may hold a password)');
  }
  if (!['smtp:', 'smtps:'].includes(parsed.protocol) || !parsed.hostname) {
    throw new ConfigError(`SMTP_URL must start with smtp:// or smtps:// and name a host, got a ${parsed.protocol} URL`);
  }
  const from = env.SMTP_FROM?.trim() ?? '';
  if (!/^[^<>]*<?[^\s@<>]+@[^\s@<>]+>?$/.test(from)) throw new ConfigError(`SMTP_FROM must be the sender's address (e.g. "Gateway <no-reply@example.com>") when SMTP_URL is set, got "${from}"`);
  return { url, from, timeoutMs: int(env, 'SMTP_TIMEOUT_MS', 15_000, 100, 600_000) };
}
