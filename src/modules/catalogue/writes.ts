// Catalogue writes (DESIGN 7): the rebuild window (a lease while a long seed or import runs,
// during which the read side answers 503 + Retry-After), the sandbox seed, and the listing of a
// completed deposit's items (job catalogue_add_deposit_items). Listing rows carry their own
// change bookkeeping (the triggers of 003_purchases.sql: page versions and the change feed).
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { AppError } from '../../domain/errors.js';
import type { Game } from '../../domain/games.js';
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
   * Items of a completed deposit become listings (job catalogue_add_deposit_items). Replayable:
   * the listing ID is derived from (deposit, asset), and existing IDs are left alone.
   */
  async function addDepositItems(depositId: number): Promise<number> {
    const dep = await sqlDeposit(db, depositId);
    if (!dep) {
      log.warn({ depositId }, 'catalogue_add_deposit_items: deposit not found');
      return 0;
    }
    if (dep.status !== undefined && dep.status !== null && dep.status !== 'completed') {
      log.warn({ depositId, status: dep.status }, 'catalogue_add_deposit_items: deposit is not completed; nothing listed');
      return 0;
    }
    const items = await sqlDepositItems(db, depositId);
    const rows: ListingInput[] = items.map((it, idx) => ({
      id: depositListingId(depositId, it.asset_id ?? `#${idx}`),
      game: dep.game,
      name: it.market_hash_name,
      base_price: Number(it.original_price ?? it.price),
      image_url: it.image_url ?? '',
      exterior: it.exterior,
      rarity: it.rarity,
      rarity_color: it.rarity_color,
      phase: it.phase,
      source: 'deposit',
      source_ref: `deposit:${depositId}:${it.asset_id ?? idx}`,
    }));
    let n = 0;
    for (let i = 0; i < rows.length; i += BATCH_SIZE) n += await insertListingsIgnore(db, rows.slice(i, i + BATCH_SIZE));
    state.noteLocalWrite();
    return n;
  }

  return { assertNotRebuilding, withRebuild, setRebuilding, seedSandbox, addDepositItems };
}

export type CatalogueWrites = ReturnType<typeof createCatalogueWrites>;

/** Deterministic listing ID of a deposited item: 40 lowercase hex characters. */
export function depositListingId(depositId: number, assetId: string): string {
  return crypto.createHash('sha256').update(`deposit:${depositId}:${assetId}`).digest('hex').slice(0, 40);
}

// The deposits tables belong to the deposits feature; read them with plain SQL (and the items as
// JSON) so this module depends only on the columns named in its contract.

async function sqlDeposit(db: Db, id: number) {
  const r = await sql<{ id: number; merchant_id: number; game: Game; status: string | null }>`
    select id, merchant_id, game, status from deposits where id = ${id}`.execute(db);
  return r.rows[0];
}

async function sqlDepositItems(db: Db, depositId: number) {
  const r = await sql<{ j: Record<string, unknown> }>`
    select to_jsonb(di) as j from deposit_items di where di.deposit_id = ${depositId} order by di.id`.execute(db);
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
  return r.rows.map(({ j }) => ({
    asset_id: j.asset_id === null || j.asset_id === undefined ? null : String(j.asset_id),
    market_hash_name: String(j.market_hash_name),
    price: num(j.price) ?? 0,
    original_price: num(j.original_price),
    image_url: str(j.image_url),
    exterior: str(j.exterior),
    rarity: str(j.rarity),
    rarity_color: str(j.rarity_color),
    phase: str(j.phase),
  }));
}
