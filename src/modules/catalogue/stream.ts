// The whole catalogue of a game in one streamed response (spec 4.11 without a page; DESIGN 7).
// Each batch is its own short keyset query on the shared pool (no connection or transaction is
// held while the client reads), at most CATALOGUE_STREAM_CONCURRENCY downloads per instance (more
// → 503 + Retry-After), and a reader that takes nothing for STREAM_WRITE_TIMEOUT_MS is dropped.
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import { AppError } from '../../domain/errors.js';
import { groupedListings, liveListingsAfter } from './catalogue-repo.js';
import { groupWire, listingWire, markupOf, type AvailableQuery, type MerchantPricing } from './catalogue-views.js';
import type { CatalogueWrites } from './writes.js';

/** Rows (or names) per keyset query of a whole-catalogue download. */
export const STREAM_BATCH = 2000;
/** A whole-catalogue download whose reader takes nothing for this long is cut off (socket destroyed). */
export const STREAM_WRITE_TIMEOUT_MS = 30_000;
/** Retry-After (seconds) when every whole-catalogue download slot of the instance is taken. */
export const STREAM_BUSY_RETRY_AFTER_SECONDS = 5;

/** Knobs of whole-catalogue downloads; tests shorten them. `beforeBatch` is a test hook (fault injection). */
export interface StreamTuning {
  batchSize: number;
  writeTimeoutMs: number;
  beforeBatch?: (batchIndex: number) => void | Promise<void>;
}

export function createCatalogueStream(deps: { db: Db; log: Logger; config: Pick<Config, 'publicUrl' | 'catalogueStreamConcurrency'>; writes: Pick<CatalogueWrites, 'assertNotRebuilding'> }) {
  const { db, log, config, writes } = deps;
  const { assertNotRebuilding } = writes;
  // Whole-catalogue downloads in flight on this instance.
  let activeStreams = 0;
  const streamTuning: StreamTuning = { batchSize: STREAM_BATCH, writeTimeoutMs: STREAM_WRITE_TIMEOUT_MS };

  /**
   * The whole catalogue of a game in one response, streamed in keyset batches (by listing ID,
   * or by name for the grouped form), so memory stays flat however large the catalogue is.
   *
   * Connections: every batch is its own short query on the shared pool; nothing is held while
   * the client reads, so slow clients cannot starve the API or the job worker.
   * Consistency: point-in-time per batch, not per response. Each listing (name) appears at most
   * once (the keyset only moves forward); a listing sold after its batch was read is still in
   * the body, one added behind the cursor is not. Prices are re-checked at purchase anyway (4.11);
   * the pages (ETags) and /purchase/events are the way to keep an exact copy. `total` is the
   * number of items written (counted on the way, written after them; JSON objects are unordered).
   * Limits: CATALOGUE_STREAM_CONCURRENCY downloads per instance, beyond → 503 + Retry-After; a
   * reader that takes nothing for writeTimeoutMs is dropped.
   * Errors: the 200 and the envelope's opening go out only with the first batch, so a failure
   * before it is a clean 503 envelope. A failure after it destroys the socket: the chunked body
   * ends without its terminating chunk, which every HTTP client reports as an error — a cut-off
   * body means "retry", never "this is the catalogue".
   */
  async function stream(merchant: MerchantPricing, q: AvailableQuery): Promise<Readable> {
    await assertNotRebuilding();
    if (activeStreams >= config.catalogueStreamConcurrency) {
      throw new AppError(
        'unavailable',
        'internal error',
        [{ field: 'page', code: 'busy', message: 'too many whole-catalogue downloads at once; retry after Retry-After seconds, or read pages 1 to 16' }],
        { 'retry-after': String(STREAM_BUSY_RETRY_AFTER_SECONDS) },
      );
    }
    activeStreams++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      activeStreams--;
    };
    const markup = markupOf(merchant);
    const publicUrl = config.publicUrl;
    const tuning = { ...streamTuning };
    let batchIndex = 0;

    async function readBatch(after: string | null): Promise<{ json: string[]; after: string | null }> {
      await tuning.beforeBatch?.(batchIndex++);
      if (q.full) {
        const rows = await liveListingsAfter(db, q.game, after, tuning.batchSize);
        return { json: rows.map((l) => JSON.stringify(listingWire(l, markup, q.extended, publicUrl))), after: rows.at(-1)?.id ?? null };
      }
      const groups = await groupedListings(db, q.game, after, tuning.batchSize);
      return { json: groups.map((g) => JSON.stringify(groupWire(g, q.game, markup, publicUrl))), after: groups.at(-1)?.name ?? null };
    }

    let first: { json: string[]; after: string | null };
    try {
      first = await readBatch(null);
    } catch (err) {
      release();
      if (err instanceof AppError) throw err;
      if (!noteDatabaseError(db, err)) log.error({ err, game: q.game }, 'whole-catalogue download failed before its first byte');
      throw new AppError('unavailable', 'internal error', undefined, { 'retry-after': '1' });
    }

    let readable: Readable | undefined;
    const stall = () => readable?.destroy(new Error(`catalogue download: the client took nothing for ${tuning.writeTimeoutMs} ms`));
    async function* generate(): AsyncGenerator<string> {
      let batch = first;
      let total = 0;
      let prefix = `{"success":true,"message":"catalogue listed","data":{"game":${JSON.stringify(q.game)},"items":[`;
      for (;;) {
        if (batch.json.length > 0) {
          const chunk = prefix + (total > 0 ? ',' : '') + batch.json.join(',');
          prefix = '';
          total += batch.json.length;
          // Resumed only once the reader took the chunk: a stall longer than the timeout drops it.
          const timer = setTimeout(stall, tuning.writeTimeoutMs);
          try {
            yield chunk;
          } finally {
            clearTimeout(timer);
          }
        }
        if (batch.json.length < tuning.batchSize || batch.after === null) break;
        // A failure here (after the 200 went out) ends the stream with an error: Fastify then
        // destroys the socket (see the route), so the client sees a cut-off body, not bad JSON.
        batch = await readBatch(batch.after);
      }
      const timer = setTimeout(stall, tuning.writeTimeoutMs);
      try {
        yield `${prefix}],"total":${total}}}`;
      } finally {
        clearTimeout(timer);
      }
    }
    readable = Readable.from(generate(), { objectMode: false, highWaterMark: 1 });
    // 'close' comes after the end, an error, a stall or the client going away — also when the
    // generator never ran — so the slot is always given back.
    readable.once('close', release);
    return readable;
  }

  return {
    stream,
    /** Whole-catalogue downloads streaming now on this instance. */
    activeStreams: () => activeStreams,
    /** Whole-catalogue download knobs (tests shorten them). */
    streamTuning,
  };
}
