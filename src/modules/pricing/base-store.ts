// The price bases' writer. A basis gets its price_bases id when it is computed
// (ids reserved from the table's sequence, thousands per statement) and is published at once; its
// row is written in the background, in batches, so that a gateway of 400 000 items answers as soon
// as its prices are computed instead of after minutes of inserts. What must be durable is what a
// credit names: before a deposit item stores a basis id (or a hash-name commit looks up the bases
// its quote was made at), ensure() writes the batches holding those ids first. A clean stop writes
// every batch left. Each batch's row text is made when the bases are computed: readings are updated
// in place afterwards, and a basis must show the readings it was computed from.
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import * as repo from './price-repo.js';

/** One batch of rows: ids ascending, all above the previous batch's. */
interface Batch {
  ids: number[];
  /** rows as one JSON text (price-repo.ts insertBasesText) */
  text: string;
  computedAt: Date;
  /** set while (or once) it is being written */
  writing?: Promise<void>;
  done?: boolean;
}

export interface BaseStore {
  /** Ids for n new bases, in ascending order. */
  reserve(n: number): Promise<number[]>;
  /** Queues rows (ids from reserve) to be written in the background. */
  stage(ids: number[], rows: repo.NewBasis[], computedAt: Date): void;
  /** Resolves once the rows of these ids are written (those not queued are written already). */
  ensure(ids: Iterable<number>): Promise<void>;
  /** Resolves once every row with an id up to `id` is written. */
  ensureUpTo(id: number): Promise<void>;
  /** Rows queued and not yet written. */
  pending(): number;
  /** Writes everything queued (a clean stop). */
  flush(): Promise<void>;
}

const RETRY_MS = 2000;

export function createBaseStore(db: Db, log: Logger, opts: { batch?: number; reserveChunk?: number } = {}): BaseStore {
  const queue: Batch[] = [];
  let pendingRows = 0;
  let worker: Promise<void> | undefined;
  const reserveChunk = opts.reserveChunk ?? 10_000;
  const batchSize = opts.batch ?? 1000;

  function write(b: Batch): Promise<void> {
    b.writing ??= (async () => {
      for (;;) {
        try {
          await repo.insertBasesText(db, b.text, b.computedAt);
          break;
        } catch (err) {
          // A database that is away is its one warning (db/outage.ts); the batch waits for it.
          if (!noteDatabaseError(db, err)) log.error({ err, rows: b.ids.length }, 'price bases not written; retrying');
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      }
      b.done = true;
      b.text = '';
      pendingRows -= b.ids.length;
      const at = queue.indexOf(b);
      if (at >= 0) queue.splice(at, 1);
    })();
    return b.writing;
  }

  /** One batch after another, oldest first, until the queue is empty. */
  function kick(): void {
    worker ??= (async () => {
      while (queue.length > 0) await write(queue[0]!);
      worker = undefined;
    })();
  }

  /** The queued batch holding id (batches are in id order), if any. */
  function batchOf(id: number): Batch | undefined {
    let lo = 0;
    let hi = queue.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const b = queue[mid]!;
      if (id < b.ids[0]!) hi = mid - 1;
      else if (id > b.ids[b.ids.length - 1]!) lo = mid + 1;
      else return b.ids.includes(id) ? b : undefined;
    }
    return undefined;
  }

  return {
    async reserve(n) {
      const ids: number[] = [];
      for (let at = 0; at < n; at += reserveChunk) ids.push(...(await repo.reserveBaseIds(db, Math.min(reserveChunk, n - at))));
      return ids;
    },
    stage(ids, rows, computedAt) {
      for (let at = 0; at < rows.length; at += batchSize) {
        const part = rows.slice(at, at + batchSize);
        queue.push({ ids: ids.slice(at, at + batchSize), text: repo.basesText(part, ids.slice(at, at + batchSize)), computedAt });
        pendingRows += part.length;
      }
      kick();
    },
    async ensure(ids) {
      const batches = new Set<Batch>();
      for (const id of ids) {
        const b = batchOf(id);
        if (b) batches.add(b);
      }
      await Promise.all([...batches].map(write));
    },
    async ensureUpTo(id) {
      for (const b of queue.filter((x) => x.ids[0]! <= id)) await write(b);
    },
    pending: () => pendingRows,
    async flush() {
      while (queue.length > 0) await write(queue[0]!);
    },
  };
}
