// CSFloat's market listings (CS2 only): GET https://csfloat.com/api/v1/listings?limit=50&sort_by=
// most_recent&cursor=…, header `Authorization: <API key>`. The answer is { data: [listing…],
// cursor } (older deployments: a bare array, paged with page=N); a listing is { id, created_at,
// type: buy_now|auction, price (USD cents), state, item: { market_hash_name, … } }. One poll walks
// up to maxPages pages, a pause between them (per-endpoint limits); per name the reading is the
// lowest buy-now price seen, its liquidity the number of listings seen. A failure part-way keeps
// the pages read (a partial answer).
import { getJson, SourceError, type PollResult, type PriceSource, type SourceReading } from './source.js';

export interface CsfloatOptions {
  url: string;
  apiKey: string;
  maxPages: number;
  pageDelayMs: number;
  intervalMs: number;
}

interface Listing {
  type?: unknown;
  price?: unknown;
  state?: unknown;
  item?: { market_hash_name?: unknown };
}

/** The listings and the next cursor of one answer; anything else is a SourceError. */
export function csfloatPage(body: unknown): { listings: Listing[]; cursor?: string } {
  if (Array.isArray(body)) return { listings: body as Listing[] };
  if (body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)) {
    const cursor = (body as { cursor?: unknown }).cursor;
    return { listings: (body as { data: Listing[] }).data, ...(typeof cursor === 'string' && cursor !== '' ? { cursor } : {}) };
  }
  throw new SourceError('csfloat: expected { data: [...] } or an array of listings');
}

export function csfloatSource(o: CsfloatOptions): PriceSource {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    id: 'csfloat',
    role: 'market',
    intervalMs: o.intervalMs,
    async poll(): Promise<PollResult> {
      const seen = new Map<string, { price: number; count: number; asOf: number }>();
      const result = (): PollResult => ({
        readings: [...seen].map(([name, s]): SourceReading => ({ game: 'csgo', name, price: s.price, asOf: s.asOf, liquidity: s.count })),
        complete: [],
      });
      let cursor: string | undefined;
      for (let page = 0; page < o.maxPages; page++) {
        if (page > 0) await sleep(o.pageDelayMs);
        const u = new URL(o.url);
        u.searchParams.set('limit', '50');
        u.searchParams.set('sort_by', 'most_recent');
        u.searchParams.set('type', 'buy_now');
        if (cursor) u.searchParams.set('cursor', cursor);
        else if (page > 0) u.searchParams.set('page', String(page));
        let listings: Listing[];
        try {
          const p = csfloatPage(await getJson(u.toString(), { authorization: o.apiKey }));
          listings = p.listings;
          cursor = p.cursor;
        } catch (err) {
          const e = err instanceof SourceError ? err : new SourceError((err as Error).message);
          throw new SourceError(`csfloat: ${e.message}`, e.retryAfterMs, result());
        }
        const at = Date.now();
        for (const l of listings) {
          const name = l.item?.market_hash_name;
          if (typeof name !== 'string' || name === '') continue;
          if (l.type !== undefined && l.type !== 'buy_now') continue;
          if (l.state !== undefined && l.state !== 'listed') continue;
          if (typeof l.price !== 'number' || !Number.isSafeInteger(l.price) || l.price <= 0) continue;
          const mills = l.price * 10;
          const s = seen.get(name);
          if (!s) seen.set(name, { price: mills, count: 1, asOf: at });
          else {
            s.count++;
            if (mills < s.price) s.price = mills;
          }
        }
        if (listings.length === 0 || (!cursor && listings.length < 50)) break;
      }
      return result();
    },
  };
}
