// The catalogue page's 304, answered in front of Fastify's router: the 304 decided from
// memory at ≥ 80 % of a bare constant route's rate. A merchant keeping a copy polls its 16 pages with
// If-None-Match, and the answer is nearly always "not modified": through the router, the hooks,
// the schema and the reply's hooks that answer cost ≈ 45 µs of CPU, of which the decision is ≈ 2.
//
// The lane answers only what it can answer exactly as the route would: a GET of
// /api/v1/merchant/purchase/available whose query is plainly valid (game, page and the optional
// full/extended, each once, nothing percent-encoded), a key found in the key cache that passes every
// check of merchantAuth, page versions in memory and a matching ETag. Anything else, including
// every error, goes on to Fastify unchanged. The answer carries the route's headers, and the
// access line, the route's metrics and the key's "last used" are recorded as for any answer.
import type http from 'node:http';
import { isGame, type Game } from '../../domain/games.js';
import { sha256Hex } from '../../domain/secrets.js';
import { merchantRefusal } from '../merchants/auth.js';
import { headersOf, type Decision } from '../../http/rate-limit.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import type { KeyCache } from '../merchants/key-cache.js';
import type { AvailableQuery, MerchantPricing } from './catalogue-views.js';

export const AVAILABLE_PATH = '/api/v1/merchant/purchase/available';
const PREFIX = `${AVAILABLE_PATH}?`;

export interface LaneAnswer {
  id: string;
  method: string;
  url: string;
  host: string;
  ip: string;
  merchant: MerchantRow;
  statusCode: number;
  /** Milliseconds from the lane's start to the answer. */
  responseTime: number;
}

export interface NotModifiedLaneDeps {
  keys: Pick<KeyCache, 'cached'>;
  catalogue: { notModified(merchant: MerchantPricing, q: AvailableQuery & { page: number }, ifNoneMatch: string): string | undefined };
  /** The merchant's rate limit (http/rate-limit.ts): counts the answer; refused → the router answers 429. */
  rateLimit?(merchant: MerchantRow): Decision | undefined;
  /** The request id of the answer (x-request-id), as the router's genReqId makes it. */
  requestId(given: string | string[] | undefined): string;
  /** After the answer: access line, route metrics, key usage. */
  answered(a: LaneAnswer): void;
}

/** Returns true when it answered `req` (a 304); false = hand it to the router. */
export function notModifiedLane(deps: NotModifiedLaneDeps): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  return function lane(req, res) {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return false;
    const headers = req.headers;
    const ifNoneMatch = headers['if-none-match'];
    const key = headers['x-api-key'];
    if (typeof ifNoneMatch !== 'string' || typeof key !== 'string' || key.length === 0 || key.length > 200) return false;
    const started = performance.now();
    const q = plainQuery(url.slice(PREFIX.length));
    if (!q) return false;
    const hash = sha256Hex(key);
    const merchant = deps.keys.cached(hash);
    const ip = req.socket.remoteAddress ?? '';
    if (!merchant || merchantRefusal(merchant, hash, () => ip)) return false;
    const etag = deps.catalogue.notModified(merchant, q, ifNoneMatch);
    if (etag === undefined) return false;
    const limited = deps.rateLimit?.(merchant);
    if (limited && !limited.ok) return false;
    const id = deps.requestId(headers['x-request-id']);
    res.writeHead(304, { 'x-request-id': id, etag, 'cache-control': 'private, no-cache', ...(limited ? headersOf(limited) : {}) });
    res.end();
    deps.answered({ id, method: 'GET', url, host: headers.host ?? '', ip, merchant, statusCode: 304, responseTime: performance.now() - started });
    return true;
  };
}

/**
 * game, page (1–99) and the optional full/extended (true, false, 1, 0), each at most once and
 * nothing else, nothing encoded; undefined for anything else (the route then parses and words it).
 */
export function plainQuery(qs: string): (AvailableQuery & { page: number }) | undefined {
  if (qs.includes('%') || qs.includes('+')) return undefined;
  let game: Game | undefined;
  let page: number | undefined;
  let full: boolean | undefined;
  let extended: boolean | undefined;
  for (const part of qs.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    const name = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (name === 'game' && game === undefined && isGame(value)) game = value;
    else if (name === 'page' && page === undefined && /^[1-9][0-9]?$/.test(value)) page = Number(value);
    else if (name === 'full' && full === undefined && (value === 'true' || value === '1' || value === 'false' || value === '0')) full = value === 'true' || value === '1';
    else if (name === 'extended' && extended === undefined && (value === 'true' || value === '1' || value === 'false' || value === '0')) extended = value === 'true' || value === '1';
    else return undefined;
  }
  if (game === undefined || page === undefined) return undefined;
  return { game, page, full: full ?? false, extended: extended ?? false };
}
