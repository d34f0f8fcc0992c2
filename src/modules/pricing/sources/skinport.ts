// Skinport's public item list (GET https://api.skinport.com/v1/items?app_id=730&currency=USD): an
// array of { market_hash_name, currency, suggested_price, min_price, max_price, mean_price,
// median_price, quantity, created_at, updated_at } (prices USD, times Unix seconds). About 8
// requests per 5 minutes, answers cached 5 minutes: one request per game per poll, every 5 minutes.
import type { Game } from '../../../domain/games.js';
import { skinportGame, skinportRows } from '../price-sources.js';
import { getJsonRows, SourceError, type PollResult, type PriceSource, type SourceReading } from './source.js';

export const SKINPORT_INTERVAL_MS = 5 * 60_000;

/**
 * Readings of one answer (or of one slice of it, `part` carrying the names seen before it): liquidity
 * = quantity (listings), as-of = updated_at, else the fetch time.
 */
export function skinportReadings(body: unknown, game: Game, fetchedAt: number, part?: { seen: Set<string>; offset: number }): SourceReading[] {
  return skinportRows(body, part).map((r) => ({
    game,
    name: r.name,
    price: r.price,
    asOf: r.updatedAt !== undefined ? Math.min(r.updatedAt * 1000, fetchedAt) : fetchedAt,
    ...(r.quantity !== undefined ? { liquidity: r.quantity } : {}),
  }));
}

export function skinportSource(urls: readonly string[], opts: { intervalMs?: number } = {}): PriceSource {
  const games = urls.map((u) => [u, skinportGame(u)] as const);
  return {
    id: 'skinport',
    role: 'market',
    intervalMs: opts.intervalMs ?? SKINPORT_INTERVAL_MS,
    async poll(): Promise<PollResult> {
      const out: PollResult = { readings: [], complete: [] };
      for (const [url, game] of games) {
        try {
          // ~20 MB for 100 000 items: parsed off the event loop, taken a slice at a time.
          const seen = new Set<string>();
          const fetchedAt = Date.now();
          const taken: SourceReading[] = [];
          const { body } = await getJsonRows(url, (rows, offset) => {
            for (const r of skinportReadings(rows, game, fetchedAt, { seen, offset })) taken.push(r);
          });
          if (body !== undefined) skinportReadings(body, game, fetchedAt); // not an array: throws what it is
          for (const r of taken) out.readings.push(r);
          out.complete.push(game);
        } catch (err) {
          const e = err instanceof SourceError ? err : new SourceError(`skinport ${game}: ${(err as Error).message}`);
          throw new SourceError(e.message, e.retryAfterMs, out);
        }
      }
      return out;
    },
  };
}
