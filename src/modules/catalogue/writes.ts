// Catalogue writes (DESIGN 7): the rebuild window (a lease while a long seed or import runs,
// during which the read side answers 503 + Retry-After), the sandbox seed, and the listing of a
// completed deposit's items for a job an older version queued (the completing transaction lists
// them now: SQL catalogue_add_deposit_items), and the delisting of a reversed deposit's items in the
// deposits feature's transaction (SQL catalogue_delist_deposit_items). Listing rows carry their own
// change bookkeeping (the triggers of 003_purchases.sql: page versions and the change feed).
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db, Trx } from '../../db/database.js';
import { AppError } from '../../domain/errors.js';
import { clearRebuildLease, countBySource, insertListingsIgnore, rebuildSecondsLeft, setRebuildLease, type ListingInput } from './catalogue-repo.js';
import type { PageState } from './page-state.js';
import { indexBook, seedListing, type SeedBookEntry } from './catalogue-seed.js';

/** Rows per INSERT for seeds and imports. */
export const BATCH_SIZE = 1000;
/** Rebuild lease length; refreshed while a long seed/import runs. */
export const REBUILD_LEASE_SECONDS = 60;

/** The 503 answered while a rebuild holds the lease (`left` seconds more). */
export function rebuildingError(left: number): AppError {
  const wait = Math.max(1, Math.min(5, Math.ceil(left)));
  return new AppError('unavailable', 'catalogue is being rebuilt, retry shortly', undefined, { 'retry-after': String(wait) });
}

export function createCatalogueWrites(deps: { db: Db; log: Logger; state: Pick<PageState, 'refresh' | 'noteLocalWrite'> }) {
  const { db, log, state } = deps;

  /** 503 + Retry-After while a rebuild (seed, import) holds the lease. */
  async function assertNotRebuilding(): Promise<void> {
    const left = await rebuildSecondsLeft(db);
    if (left > 0) throw rebuildingError(left);
  }

  // Lease changes notify every instance; this one re-reads at once, so its own next request sees them.
  const setLease = async (seconds: number, reason: string) => {
    await setRebuildLease(db, seconds, reason);
    await state.refresh();
  };
  const clearLease = async (reason?: string) => {
    await clearRebuildLease(db, reason);
    await state.refresh();
  };

  /** Rebuild lease around `work`, refreshed by `touch()` from long loops. */
  async function withRebuild<T>(reason: string, work: (touch: () => Promise<void>) => Promise<T>): Promise<T> {
    let lastTouch = Date.now();
    await setLease(REBUILD_LEASE_SECONDS, reason);
    const touch = async () => {
      if (Date.now() - lastTouch > 10_000) {
        lastTouch = Date.now();
        await setLease(REBUILD_LEASE_SECONDS, reason);
      }
    };
    try {
      return await work(touch);
    } finally {
      await clearLease(reason).catch((err) => log.error({ err }, 'could not clear the catalogue rebuild lease'));
    }
  }

  /** Test/operator hook: open or close the rebuild window by hand. */
  async function setRebuilding(on: boolean, seconds = REBUILD_LEASE_SECONDS): Promise<void> {
    if (on) await setLease(seconds, 'manual');
    else await clearLease();
  }

  /**
   * Seeds the sandbox catalogue (idempotent across restarts and instances). Skips all work when
   * the seed is already complete; otherwise inserts in batches under the rebuild lease.
   */
  async function seedSandbox(size: number, entries: readonly SeedBookEntry[]): Promise<number> {
    if (size <= 0 || entries.length === 0) return 0;
    if ((await countBySource(db, 'seed')) >= size) return 0;
    const book = indexBook(entries);
    return withRebuild('seed', async (touch) => {
      let inserted = 0;
      let batch: ListingInput[] = [];
      for (let i = 0; i < size; i++) {
        const l = seedListing(i, book);
        if (l) batch.push(l);
        if (batch.length >= BATCH_SIZE) {
          inserted += await insertListingsIgnore(db, batch);
          batch = [];
          await touch();
        }
      }
      inserted += await insertListingsIgnore(db, batch);
      log.info({ inserted, size }, 'sandbox catalogue seeded');
      state.noteLocalWrite();
      return inserted;
    });
  }

  /**
   * Items of a completed deposit become listings: job catalogue_add_deposit_items, queued by an
   * older version (the completing transaction lists them now). The rule is SQL's
   * (catalogue_add_deposit_items); replayable.
   */
  async function addDepositItems(depositId: number): Promise<number> {
    const r = await sql<{ n: number }>`select catalogue_add_deposit_items(${[depositId]}::bigint[]) as n`.execute(db);
    const n = r.rows[0]?.n ?? 0;
    if (n > 0) state.noteLocalWrite();
    return n;
  }

  return { assertNotRebuilding, withRebuild, setRebuilding, seedSandbox, addDepositItems };
}

export type CatalogueWrites = ReturnType<typeof createCatalogueWrites>;

/** A completed deposit reversed on the platform: its listings are marked withdrawn and those still for sale delisted (SQL catalogue_delist_deposit_items); answers how many it marked. */
export async function delistDepositItems(db: Db | Trx, depositId: number): Promise<number> {
  const r = await sql<{ n: number }>`select catalogue_delist_deposit_items(${depositId}) as n`.execute(db);
  return r.rows[0]?.n ?? 0;
}
