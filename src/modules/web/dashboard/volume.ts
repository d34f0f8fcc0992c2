// The overview's 30-day volume. Today is read live (a day's rows, index-only); the 29 days before
// it are kept per merchant for VOLUME_CACHE_MS in this instance: for a merchant with a million
// deposits they are ~80 000 index entries (~80 ms), and a late status change of an older record
// (hold → completed) may show up to that much later.
import type { Db } from '../../../db/database.js';
import type { Clock } from '../../../domain/clock.js';
import { dailyVolume } from './dashboard-repo.js';

export const VOLUME_CACHE_MS = 5 * 60_000;
const MAX_CACHED_MERCHANTS = 10_000;
const DAY_MS = 86_400_000;

type Row = Awaited<ReturnType<typeof dailyVolume>>[number];

export function createVolumeReader(db: Db, clock: Clock) {
  const cache = new Map<number, { today: number; at: number; rows: Row[] }>();

  return async function volume(merchantId: number): Promise<{ days: string[]; rows: Row[] }> {
    const now = clock.now().getTime();
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const days = Array.from({ length: 30 }, (_, i) => new Date(today - (29 - i) * DAY_MS).toISOString().slice(0, 10));
    let past = cache.get(merchantId);
    if (!past || past.today !== today || now - past.at > VOLUME_CACHE_MS) {
      past = { today, at: now, rows: await dailyVolume(db, merchantId, new Date(today - 29 * DAY_MS), new Date(today)) };
      if (cache.size >= MAX_CACHED_MERCHANTS) cache.delete(cache.keys().next().value!);
      cache.set(merchantId, past);
    }
    const live = await dailyVolume(db, merchantId, new Date(today), new Date(today + DAY_MS));
    return { days, rows: [...past.rows, ...live] };
  };
}
