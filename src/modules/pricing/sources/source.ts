// What every price source gives the engine: readings per item, each with its own as-of
// time, from one poll. The poller (poller.ts) keeps each source within its limits and backs off.
import type { Game } from '../../../domain/games.js';
import type { SourceRole } from '../reference-price.js';
import { fetchJsonOffThread } from './json-off-thread.js';

export interface SourceReading {
  game: Game;
  name: string;
  /** mills */
  price: number;
  /** ms since the epoch */
  asOf: number;
  /** listings or sales volume, when the source says */
  liquidity?: number;
}

export interface PollResult {
  readings: SourceReading[];
  /** games this poll listed in full: the source's readings of that game missing from it are dropped */
  complete: Game[];
}

export interface PriceSource {
  /** book, skinport, csfloat, steam: shown with every basis */
  id: string;
  role: SourceRole;
  /** between two successful polls */
  intervalMs: number;
  /** longest wait after failures (default: PRICE_MAX_BACKOFF_SECONDS) */
  maxBackoffMs?: number;
  poll(): Promise<PollResult>;
}

/** A failed poll: the wait the source asked for (429 Retry-After), and what it answered before failing. */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    readonly partial?: PollResult,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** USD (a JSON number) → mills; undefined unless finite and not negative. */
export function usdNumberToMills(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v * 1000) : undefined;
}

/** Retry-After (seconds or an HTTP date) → ms. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const s = Number(header);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const t = Date.parse(header);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

/**
 * GET a JSON array parsed off the event loop (fetchJsonOffThread), its elements given to onRows a
 * slice at a time; answers the body when it is not an array. Errors as getJson's.
 */
export async function getJsonRows(url: string, onRows: (rows: unknown[], offset: number) => void, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<{ body?: unknown }> {
  const where = url.split('?')[0];
  const a = await fetchJsonOffThread(url, { accept: 'application/json', ...headers }, timeoutMs, onRows);
  if (a.kind === 'failed') throw new SourceError(`${where}: ${a.message}`);
  if (a.kind === 'status') {
    const wait = retryAfterMs(a.retryAfter);
    throw new SourceError(a.status === 429 ? `${where}: HTTP 429 (rate limited)` : `${where}: HTTP ${a.status}`, wait);
  }
  if (a.kind === 'not-json') throw new SourceError(`${where}: not JSON`);
  return a.kind === 'body' ? { body: a.body } : {};
}

/**
 * GET a JSON document. Errors say the URL without its query (names) and never the headers (an API
 * key); 429 carries the wait the server asked for.
 */
export async function getJson(url: string, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<unknown> {
  const where = url.split('?')[0];
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json', ...headers } });
  } catch (err) {
    throw new SourceError(`${where}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (res.status === 429) throw new SourceError(`${where}: HTTP 429 (rate limited)`, retryAfterMs(res.headers.get('retry-after')));
  if (!res.ok) throw new SourceError(`${where}: HTTP ${res.status}`, retryAfterMs(res.headers.get('retry-after')));
  try {
    return JSON.parse(text);
  } catch {
    throw new SourceError(`${where}: not JSON`);
  }
}
