// Limits on every door: per-instance token buckets in memory, one per API key on the
// merchant API and one per client address on the unauthenticated doors, plus a cap on the requests
// in flight on those doors (load shedding). Nothing here touches the database: a refused request
// costs a map lookup, and a counter shared in PostgreSQL would cost a write per request (README,
// "Limits"). With N instances behind a balancer a client gets up to N × the limit.
//
// Doors (by path, before routing):
//   merchant  /api/v1/merchant/…  per merchant (its API key), RATE_LIMIT_MERCHANT_PER_MINUTE or the
//             merchant's own rate_limit_per_minute; counted after authentication (merchantHook). A key
//             the cache does not know costs a database lookup: those count on the caller's address
//             (the public limit) before the lookup (unknownKey, called by modules/merchants/auth.ts).
//   hosted    /api/v1/hosted/…, /deposit/…, /hosted/…   per address
//   sign_in   POST /dashboard/sign-in, POST /dashboard/invite/…, POST /dashboard/forgot   per address
//   public    everything else unauthenticated (docs, item images, dashboard and console pages)
//   (none)    /api/admin (the operator's bearer token), /healthz, /readyz, /metrics
//
// A bucket holds `limit` requests and refills at limit per minute. Every answer of a limited door
// carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds until the bucket is full
// again); a refusal is 429 `too many requests` with Retry-After (seconds until one request is
// allowed), the envelope of AppError kind rate_limited (errors.ts).
//
// A refusal must stay cheap, or a flood of refused requests starves everyone else: the hooks answer
// it themselves with a prebuilt body (no Error, no stack, no error handler, no serializer), it is
// counted by door and status (gateway_rate_limit_refusals_total, metrics.ts) instead of an access
// line each (AccessLog asks `refused`), and one sampled log line per door per REFUSAL_LOG_MS says
// how many were refused since the last one. bench/RESULTS.md (the hosted status flood) has the costs.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { normaliseIp } from './client-ip.js';
import { closeIfBodyUnread } from './edges.js';
import type { RateLimitSettings } from '../config.js';

export type Door = 'merchant' | 'hosted' | 'sign_in' | 'public';

export interface Decision {
  ok: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetS: number;
  /** Seconds until one more request is allowed (0 when allowed now). */
  retryAfterS: number;
}

interface Bucket {
  tokens: number;
  at: number;
  limit: number;
}

/** Most buckets kept per door; past it the oldest are dropped (a flood from very many addresses). */
export const MAX_BUCKETS = 100_000;

/** Token buckets of one door, keyed by API key or address. `now` in milliseconds (monotonic). */
export class Buckets {
  private readonly map = new Map<string, Bucket>();
  constructor(private readonly now: () => number = () => performance.now()) {}

  get size(): number {
    return this.map.size;
  }

  take(key: string, limit: number): Decision {
    const t = this.now();
    const perMs = limit / 60_000;
    let b = this.map.get(key);
    if (!b) {
      if (this.map.size >= MAX_BUCKETS) this.evict(t);
      b = { tokens: limit, at: t, limit };
      this.map.set(key, b);
    } else {
      // A raised limit (the operator's override) counts at once; a lowered one clamps below.
      if (limit > b.limit) b.tokens += limit - b.limit;
      b.limit = limit;
      b.tokens = Math.min(limit, b.tokens + (t - b.at) * perMs);
      b.at = t;
    }
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    return {
      ok,
      limit,
      remaining: Math.floor(b.tokens),
      resetS: Math.ceil((limit - b.tokens) / perMs / 1000),
      retryAfterS: ok ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)),
    };
  }

  /** Forgets buckets that are full again (they would start over the same). */
  prune(t = this.now()): void {
    for (const [key, b] of this.map) if (b.tokens + (t - b.at) * (b.limit / 60_000) >= b.limit) this.map.delete(key);
  }

  private evict(t: number): void {
    this.prune(t);
    // Still full of busy keys: drop the oldest tenth (insertion order).
    if (this.map.size < MAX_BUCKETS) return;
    let n = Math.ceil(MAX_BUCKETS / 10);
    for (const key of this.map.keys()) {
      this.map.delete(key);
      if (--n === 0) break;
    }
  }
}

/** The client an address limit counts: IPv4 as is, IPv6 by its /64 (one subscriber's prefix). */
export function addressKey(ip: string): string {
  const a = normaliseIp(ip);
  if (!a.includes(':')) return a;
  const [head, tail = ''] = a.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = a.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Which door a request comes through (undefined: not limited). */
export function doorOf(method: string, url: string): Door | undefined {
  if (url.startsWith('/api/v1/merchant/')) return 'merchant';
  if (url.startsWith('/api/admin/') || url === '/healthz' || url === '/readyz' || url.startsWith('/metrics')) return undefined;
  if (url.startsWith('/api/v1/hosted/') || url.startsWith('/deposit/') || url.startsWith('/hosted/')) return 'hosted';
  if (method === 'POST' && (url.startsWith('/dashboard/sign-in') || url.startsWith('/dashboard/invite/') || url.startsWith('/dashboard/forgot'))) return 'sign_in';
  return 'public';
}

/** The RateLimit-* headers of a decision (and Retry-After when refused). */
export function headersOf(d: Decision): Record<string, string> {
  const h: Record<string, string> = { 'ratelimit-limit': String(d.limit), 'ratelimit-remaining': String(d.remaining), 'ratelimit-reset': String(d.resetS) };
  if (!d.ok) h['retry-after'] = String(d.retryAfterS);
  return h;
}

export const TOO_MANY_REQUESTS = 'too many requests';
export const BUSY = 'the gateway is busy: retry shortly';
const TOO_MANY_BODY = JSON.stringify({ success: false, message: TOO_MANY_REQUESTS });
const BUSY_BODY = JSON.stringify({ success: false, message: BUSY });
const JSON_TYPE = 'application/json; charset=utf-8';
const RETRY_SOON = { 'retry-after': '1' };

function refusal(d: Decision): AppError {
  return new AppError('rate_limited', TOO_MANY_REQUESTS, undefined, headersOf(d));
}

/** Refusals since start by door and status (counters only grow). */
export type RefusalCounts = Record<Door, { 429: number; 503: number }>;

/** At most one log line per door in this time, with the refusals counted since the last one. */
export const REFUSAL_LOG_MS = 10_000;

export interface RateLimits {
  readonly settings: RateLimitSettings;
  /** Requests in flight now on the capped doors, and the most there have been at once. */
  readonly inFlight: number;
  readonly peakInFlight: number;
  /** Refusals by door and status since start (the metrics module exports them). */
  readonly refusals: RefusalCounts;
  /** Whether this reply is a refusal of the limits (the access log writes no line for it). */
  refused(reply: FastifyReply): boolean;
  /** Global onRequest hook: the address doors and the in-flight cap. */
  onRequest(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
  /** onRequest hook of the merchant API, after authentication (request.merchant is set). */
  merchantHook(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
  /** Before a database lookup of a key the cache does not know: the caller's address pays (modules/merchants/auth.ts). */
  unknownKey(request: FastifyRequest, reply: FastifyReply): AppError | undefined;
  /** The merchant's decision for an answer made outside Fastify (the catalogue's 304 lane); counts it when allowed. */
  merchant(merchant: { id: number; rate_limit_per_minute: number | null }): Decision | undefined;
  /** Drops full buckets (a timer calls it each minute). */
  prune(): void;
}

export interface RateLimitOptions {
  now?: () => number;
  /** Where the sampled refusal lines go (none: not logged, still counted). */
  log?: FastifyBaseLogger;
}

export function createRateLimits(settings: RateLimitSettings, opts: RateLimitOptions = {}): RateLimits {
  const { now, log } = opts;
  const doors: Record<Door, Buckets> = { merchant: new Buckets(now), hosted: new Buckets(now), sign_in: new Buckets(now), public: new Buckets(now) };
  const perMinute: Record<Exclude<Door, 'merchant'>, number> = { hosted: settings.hostedPerMinute, sign_in: settings.signInPerMinute, public: settings.publicPerMinute };
  let inFlight = 0;
  let peakInFlight = 0;
  const release = () => {
    inFlight--;
  };
  const refusals: RefusalCounts = { merchant: { 429: 0, 503: 0 }, hosted: { 429: 0, 503: 0 }, sign_in: { 429: 0, 503: 0 }, public: { 429: 0, 503: 0 } };
  const refusedReplies = new WeakSet<FastifyReply>();
  // The sampled line: per door, when the last one was written and the counts at that time.
  const logged = Object.fromEntries(Object.keys(refusals).map((d) => [d, { at: -Infinity, n429: 0, n503: 0 }])) as Record<Door, { at: number; n429: number; n503: number }>;

  function count(door: Door, status: 429 | 503, request: FastifyRequest): void {
    const c = refusals[door];
    c[status]++;
    const l = logged[door];
    const t = performance.now();
    if (!log || t - l.at < REFUSAL_LOG_MS) return;
    log.warn({ door, refused429: c[429] - l.n429, refused503: c[503] - l.n503, remoteAddress: request.ip, reqId: request.id }, 'requests refused by a limit (one line per door per 10 s at most)');
    l.at = t;
    l.n429 = c[429];
    l.n503 = c[503];
  }

  /**
   * Answers the refusal of an API (/api/…) from the hook itself: a prebuilt body, no Error through
   * the error handler. A page (dashboard, console, hosted page) gets it through its own error
   * handler, which renders the refusal as a page.
   */
  function refuse(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void, door: Door, status: 429 | 503, headers: Record<string, string>): void {
    count(door, status, request);
    refusedReplies.add(reply);
    if (!request.url.startsWith('/api/')) return done(status === 429 ? new AppError('rate_limited', TOO_MANY_REQUESTS, undefined, headers) : new AppError('unavailable', BUSY, undefined, headers));
    closeIfBodyUnread(request, reply); // a refused post's body is not read: that connection closes
    void reply.code(status).headers(headers).type(JSON_TYPE).send(status === 429 ? TOO_MANY_BODY : BUSY_BODY);
  }

  function merchant(m: { id: number; rate_limit_per_minute: number | null }): Decision | undefined {
    const limit = m.rate_limit_per_minute ?? settings.merchantPerMinute;
    return limit > 0 ? doors.merchant.take(String(m.id), limit) : undefined;
  }

  return {
    settings,
    get inFlight() {
      return inFlight;
    },
    get peakInFlight() {
      return peakInFlight;
    },
    refusals,
    refused: (reply) => refusedReplies.has(reply),
    // A refusal is answered here and `done` is not called: Fastify then runs no further hook.
    onRequest(request, reply, done) {
      const door = doorOf(request.method, request.url);
      if (door === undefined || door === 'merchant') return done();
      const limit = perMinute[door];
      if (limit > 0) {
        const d = doors[door].take(addressKey(request.ip), limit);
        if (!d.ok) return refuse(request, reply, done, door, 429, headersOf(d));
        reply.headers(headersOf(d));
      }
      if (settings.inFlight > 0) {
        if (inFlight >= settings.inFlight) return refuse(request, reply, done, door, 503, RETRY_SOON);
        if (++inFlight > peakInFlight) peakInFlight = inFlight;
        reply.raw.once('close', release);
      }
      done();
    },
    merchantHook(request, reply, done) {
      const d = merchant(request.merchant);
      if (!d) return done();
      if (!d.ok) return refuse(request, reply, done, 'merchant', 429, headersOf(d));
      reply.headers(headersOf(d));
      done();
    },
    unknownKey(request, reply) {
      if (settings.publicPerMinute <= 0) return undefined;
      const d = doors.public.take(addressKey(request.ip), settings.publicPerMinute);
      if (!d.ok) {
        count('public', 429, request);
        refusedReplies.add(reply);
        return refusal(d);
      }
      reply.headers(headersOf(d));
      return undefined;
    },
    merchant,
    prune() {
      for (const b of Object.values(doors)) b.prune();
    },
  };
}
