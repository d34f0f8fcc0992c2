// Limits on every door (issue 22): per-instance token buckets in memory, one per API key on the
// merchant API and one per client address on the unauthenticated doors, plus a cap on the requests
// in flight on those doors (load shedding). Nothing here touches the database: a refused request
// costs a map lookup, and a counter shared in PostgreSQL would cost a write per request (README,
// "Limits"). With N instances behind a balancer a client gets up to N × the limit.
//
// Doors (by path, before routing):
//   merchant  /api/v1/merchant/…  per merchant (its API key), RATE_LIMIT_MERCHANT_PER_MINUTE or the
//             merchant's own rate_limit_per_minute; counted after authentication (merchantHook). A key
//             the cache does not know costs a database lookup: those count on the caller's address
//             (the public limit) before the lookup (unknownKey, called by http/auth.ts).
//   hosted    /api/v1/hosted/…, /deposit/…, /hosted/…   per address
//   sign_in   POST /dashboard/sign-in, POST /dashboard/invite/…, POST /dashboard/forgot   per address
//   public    everything else unauthenticated (docs, item images, dashboard and console pages)
//   (none)    /api/admin (the operator's bearer token), /healthz, /readyz, /metrics
//
// A bucket holds `limit` requests and refills at limit per minute. Every answer of a limited door
// carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds until the bucket is full
// again); a refusal is 429 `too many requests` with Retry-After (seconds until one request is
// allowed), through the one error type (AppError kind rate_limited, mapped in errors.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { normaliseIp } from './auth.js';
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

function refusal(d: Decision): AppError {
  return new AppError('rate_limited', TOO_MANY_REQUESTS, undefined, headersOf(d));
}

export interface RateLimits {
  readonly settings: RateLimitSettings;
  /** Requests in flight now on the capped doors. */
  readonly inFlight: number;
  /** Global onRequest hook: the address doors and the in-flight cap. */
  onRequest(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
  /** onRequest hook of the merchant API, after authentication (request.merchant is set). */
  merchantHook(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
  /** Before a database lookup of a key the cache does not know: the caller's address pays (http/auth.ts). */
  unknownKey(request: FastifyRequest, reply: FastifyReply): AppError | undefined;
  /** The merchant's decision for an answer made outside Fastify (the catalogue's 304 lane); counts it when allowed. */
  merchant(merchant: { id: number; rate_limit_per_minute: number | null }): Decision | undefined;
  /** Drops full buckets (a timer calls it each minute). */
  prune(): void;
}

export function createRateLimits(settings: RateLimitSettings, now?: () => number): RateLimits {
  const doors: Record<Door, Buckets> = { merchant: new Buckets(now), hosted: new Buckets(now), sign_in: new Buckets(now), public: new Buckets(now) };
  const perMinute: Record<Exclude<Door, 'merchant'>, number> = { hosted: settings.hostedPerMinute, sign_in: settings.signInPerMinute, public: settings.publicPerMinute };
  let inFlight = 0;
  const release = () => {
    inFlight--;
  };

  function merchant(m: { id: number; rate_limit_per_minute: number | null }): Decision | undefined {
    const limit = m.rate_limit_per_minute ?? settings.merchantPerMinute;
    return limit > 0 ? doors.merchant.take(String(m.id), limit) : undefined;
  }

  return {
    settings,
    get inFlight() {
      return inFlight;
    },
    onRequest(request, reply, done) {
      const door = doorOf(request.method, request.url);
      if (door === undefined || door === 'merchant') return done();
      const limit = perMinute[door];
      if (limit > 0) {
        const d = doors[door].take(addressKey(request.ip), limit);
        if (!d.ok) return done(refusal(d));
        reply.headers(headersOf(d));
      }
      if (settings.inFlight > 0) {
        if (inFlight >= settings.inFlight) return done(new AppError('unavailable', BUSY, undefined, { 'retry-after': '1' }));
        inFlight++;
        reply.raw.once('close', release);
      }
      done();
    },
    merchantHook(request, reply, done) {
      const d = merchant(request.merchant);
      if (!d) return done();
      if (!d.ok) return done(refusal(d));
      reply.headers(headersOf(d));
      done();
    },
    unknownKey(request, reply) {
      if (settings.publicPerMinute <= 0) return undefined;
      const d = doors.public.take(addressKey(request.ip), settings.publicPerMinute);
      if (!d.ok) return refusal(d);
      reply.headers(headersOf(d));
      return undefined;
    },
    merchant,
    prune() {
      for (const b of Object.values(doors)) b.prune();
    },
  };
}
