// The catalogue change feed (/purchase/events, beyond the spec): every upsert and removal of a
// listing, oldest first, from an inclusive millisecond cursor.
// - `next` = last returned millisecond + 1 ms; a response never ends in the middle of a
//   millisecond. History is kept EVENTS_RETENTION_SECONDS; an older `since` answers reset: true.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { isoUtc } from '../../domain/clock.js';
import { AppError } from '../../domain/errors.js';
import type { Game } from '../../domain/games.js';
import { eventsExistFrom, eventsRestOfMillisecond, eventsSince, listingsByIds, pruneEvents, readClock, stampEvents } from './catalogue-repo.js';
import { listingWire, markupOf, parseCursor, type ListingWire, type MerchantPricing } from './catalogue-views.js';

export const EVENTS_RETENTION_SECONDS = 7 * 24 * 3600;
export const EVENTS_MAX_LIMIT = 10_000;
export const EVENTS_DEFAULT_LIMIT = 1000;

export function createCatalogueEvents(deps: { db: Db; config: Pick<Config, 'publicUrl'> }) {
  const { db, config } = deps;

  /**
   * The change feed. `since` omitted = from now (after the last committed event). Events come
   * oldest first; a response never stops inside a millisecond, so `next` (last millisecond
   * + 1 ms) never skips an event.
   */
  async function events(merchant: MerchantPricing, q: { since?: string; game?: Game; extended: boolean; limit: number }) {
    const markup = markupOf(merchant);
    await stampEvents(db); // events of finished writers get their place before we read
    const clock = await readClock(db);
    const nowCursor = clock.lastEventMs === null ? 0 : clock.lastEventMs + 1;
    const out = {
      since: '',
      next: '',
      count: 0,
      more: false,
      reset: false,
      events: [] as Array<{ type: 'upsert' | 'remove'; at: string; game: Game; id: string; item?: ListingWire }>,
    };
    let sinceMs: number;
    if (q.since === undefined) {
      sinceMs = nowCursor;
    } else {
      const parsed = parseCursor(q.since);
      if (parsed === undefined) throw new AppError('validation', 'validation error', [{ field: 'since', code: 'format', message: 'since must be a cursor returned by this endpoint (UTC ISO 8601 timestamp)' }]);
      sinceMs = parsed;
    }
    out.since = isoUtc(sinceMs);
    if (clock.prunedThroughMs !== null && sinceMs <= clock.prunedThroughMs) {
      out.reset = true;
      out.next = isoUtc(nowCursor);
      return out;
    }
    const rows = await eventsSince(db, sinceMs, q.game, q.limit);
    let all: Array<{ id: number; at_ms: number; game: Game; type: 'upsert' | 'remove'; listing_id: string }> = rows;
    if (rows.length === q.limit && rows.length > 0) {
      const last = rows[rows.length - 1];
      const rest = await eventsRestOfMillisecond(db, last.at_raw, last.id, Number(last.at_ms) + 1, q.game);
      all = [...rows, ...rest];
    }
    if (all.length === 0) {
      out.next = out.since;
      return out;
    }
    const lastMs = Number(all[all.length - 1].at_ms);
    const nextMs = lastMs + 1;
    const listings = await listingsByIds(db, [...new Set(all.filter((e) => e.type === 'upsert').map((e) => e.listing_id))]);
    for (const e of all) {
      const ev: (typeof out.events)[number] = { type: e.type, at: isoUtc(Number(e.at_ms)), game: e.game, id: e.listing_id };
      if (e.type === 'upsert') {
        const l = listings.get(e.listing_id);
        if (l) ev.item = listingWire(l, markup, q.extended, config.publicUrl);
      }
      out.events.push(ev);
    }
    out.count = out.events.length;
    out.next = isoUtc(nextMs);
    out.more = rows.length === q.limit && (await eventsExistFrom(db, nextMs, q.game));
    return out;
  }

  return {
    events,
    pruneEvents: async (olderThanSeconds = EVENTS_RETENTION_SECONDS) => {
      await stampEvents(db); // also stamps when nobody reads the feed, so unstamped rows stay few
      return pruneEvents(db, olderThanSeconds);
    },
  };
}
