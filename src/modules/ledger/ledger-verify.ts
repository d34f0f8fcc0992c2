// `gateway ledger verify` over the whole ledger: every balance equals the sum of its
// entries, proved on one snapshot (REPEATABLE READ, read by ranges of entry ids so each statement
// is bounded and progress can be shown), in memory proportional to the number of merchants, not
// of entries. A run that finds the books balanced stores a checkpoint (ledger_checkpoints):
// per merchant, the sums of its entries up to `through_id`. `incremental` starts
// from that checkpoint and reads only newer entries, so a daily run costs a day of entries.
//
// Entries are immutable (ledger_entries_no_update), so a checkpoint's sums stay true as long as no
// entry with an id at or below through_id commits after the run. Ids are drawn before commit, so a
// writer still in flight may hold an id below one already committed. Before its snapshot the run
// therefore settles the ids: it reads the last id drawn, then waits for the transactions that were
// writing ledger entries at that moment (an insert holds its ROW EXCLUSIVE lock on the table from
// before it draws its id until it commits). Every id up to the one read is then final, and the
// checkpoint covers it, however young. Writers are never blocked: the run only watches pg_locks.
// A writer still open after SETTLE_WAIT_MS (a session idle in its transaction) leaves the
// checkpoint where it was for this run; every entry is verified all the same.
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { reconcile, type ReconciliationRow } from './ledger-repo.js';

/** Entry ids read per statement. */
export const VERIFY_CHUNK_IDS = 1_000_000;
/** How long a run waits for the ledger writers in flight when it starts (see above). */
export const SETTLE_WAIT_MS = 10_000;

export interface VerifyOptions {
  /** Start from the stored checkpoint (a full run when there is none). */
  incremental?: boolean;
  /** Entry ids per statement (tests use small ones). */
  chunkIds?: number;
  /** How long to wait for the writers in flight before the snapshot (default SETTLE_WAIT_MS). */
  settleWaitMs?: number;
  /** Called after each range: entry ids done and in all (of this run). */
  onProgress?: (done: number, total: number) => void;
}

export interface VerifyResult {
  checked: number;
  mismatches: ReconciliationRow[];
  /** Entries read by this run (an incremental run reads only those past its checkpoint). */
  entries?: number;
  /** The checkpoint this run started from (0: none) and the one stored after it (unchanged on a mismatch; a newer one another run stored is kept). */
  from_id?: number;
  checkpoint_id?: number;
  incremental?: boolean;
}

interface Sums {
  available: number;
  hold: number;
  entries: number;
}

const zero = (): Sums => ({ available: 0, hold: 0, entries: 0 });

export async function verifyLedger(db: Db, merchantId?: number, opts: VerifyOptions = {}): Promise<VerifyResult> {
  // One merchant: its entries through its own index, one statement.
  if (merchantId !== undefined) return reconcile(db, merchantId);
  const chunk = opts.chunkIds ?? VERIFY_CHUNK_IDS;
  const settled = await settledId(db, opts.settleWaitMs ?? SETTLE_WAIT_MS);
  const result = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const base = new Map<number, Sums>(); // entries up to the new checkpoint
      const tail = new Map<number, Sums>(); // entries after it
      let from = 0;
      if (opts.incremental) {
        const cps = await sql<{ merchant_id: number; through_id: number; available: number; hold: number; entries: number }>`
          select merchant_id, through_id, available, hold, entries from ledger_checkpoints`.execute(trx);
        // All rows of a checkpoint share its through_id (written together); a mixed set is not trusted.
        const ids = new Set(cps.rows.map((r) => Number(r.through_id)));
        if (ids.size === 1) {
          from = [...ids][0];
          for (const r of cps.rows) base.set(Number(r.merchant_id), { available: Number(r.available), hold: Number(r.hold), entries: Number(r.entries) });
        }
      }
      const top = Number((await sql<{ id: number | null }>`select max(id) as id from ledger_entries`.execute(trx)).rows[0]?.id ?? 0);
      // Every id up to `settled` was final before this snapshot: all of them that committed are visible.
      const through = Math.max(from, Math.min(settled ?? 0, top));
      const total = Math.max(0, top - from);
      let entries = 0;
      opts.onProgress?.(0, total);
      for (let lo = from; lo < top; lo += chunk) {
        const hi = Math.min(top, lo + chunk);
        const rows = await sql<{ merchant_id: number; a1: number; h1: number; n1: number; a2: number; h2: number; n2: number }>`
          select merchant_id,
                 coalesce(sum(available_delta) filter (where id <= ${through}), 0)::bigint as a1,
                 coalesce(sum(hold_delta) filter (where id <= ${through}), 0)::bigint as h1,
                 count(*) filter (where id <= ${through})::bigint as n1,
                 coalesce(sum(available_delta) filter (where id > ${through}), 0)::bigint as a2,
                 coalesce(sum(hold_delta) filter (where id > ${through}), 0)::bigint as h2,
                 count(*) filter (where id > ${through})::bigint as n2
            from ledger_entries where id > ${lo} and id <= ${hi}
           group by merchant_id`.execute(trx);
        for (const r of rows.rows) {
          const m = Number(r.merchant_id);
          add(base, m, Number(r.a1), Number(r.h1), Number(r.n1));
          add(tail, m, Number(r.a2), Number(r.h2), Number(r.n2));
          entries += Number(r.n1) + Number(r.n2);
        }
        opts.onProgress?.(hi - from, total);
      }
      const balances = await sql<{ merchant_id: number; available: number; hold: number }>`select merchant_id, available, hold from balances`.execute(trx);
      const mismatches: ReconciliationRow[] = [];
      const seen = new Set<number>();
      const check = (m: number, available: number, hold: number) => {
        const b = base.get(m) ?? zero();
        const t = tail.get(m) ?? zero();
        const la = b.available + t.available;
        const lh = b.hold + t.hold;
        if (la !== available || lh !== hold) mismatches.push({ merchant_id: m, available, hold, ledger_available: la, ledger_hold: lh });
      };
      for (const r of balances.rows) {
        seen.add(Number(r.merchant_id));
        check(Number(r.merchant_id), Number(r.available), Number(r.hold));
      }
      // Entries of a merchant without a balance row are a mismatch too (against a zero balance).
      for (const m of new Set([...base.keys(), ...tail.keys()])) if (!seen.has(m)) check(m, 0, 0);
      return { checked: balances.rows.length, mismatches, entries, from, through, base };
    });
  let checkpoint = result.from;
  if (result.mismatches.length === 0 && result.through > result.from) {
    checkpoint = await saveCheckpoint(db, result.through, result.base);
  }
  return {
    checked: result.checked,
    mismatches: result.mismatches,
    entries: result.entries,
    from_id: result.from,
    checkpoint_id: checkpoint,
    incremental: opts.incremental === true,
  };
}

/**
 * The last ledger entry id drawn, once every transaction that could still commit an id at or
 * below it has ended; null when one is still open after `waitMs`.
 */
async function settledId(db: Db, waitMs: number): Promise<number | null> {
  // First the id, then the writers: one that drew an id up to it still holds its lock now.
  const last = await sql<{ id: string | null }>`
    select pg_sequence_last_value(pg_get_serial_sequence('ledger_entries', 'id')::regclass)::text as id`.execute(db);
  const id = Number(last.rows[0]?.id ?? 0);
  const writers = async () =>
    (
      await sql<{ vxid: string }>`
        select distinct virtualtransaction as vxid from pg_locks
         where locktype = 'relation' and relation = 'ledger_entries'::regclass and mode = 'RowExclusiveLock'
           -- pg_locks is the whole cluster's: copies of one database share the table's oid
           and database = (select oid from pg_database where datname = current_database())
           and granted and pid is distinct from pg_backend_pid()`.execute(db)
    ).rows.map((r) => r.vxid);
  const inFlight = new Set(await writers());
  const deadline = Date.now() + waitMs;
  while (inFlight.size > 0) {
    // Still open: still in pg_locks under the same virtual transaction id (never reused by another transaction soon).
    const open = new Set(
      (
        await sql<{ vxid: string }>`select distinct virtualtransaction as vxid from pg_locks where virtualtransaction = any(${[...inFlight]}::text[])`.execute(db)
      ).rows.map((r) => r.vxid),
    );
    for (const v of inFlight) if (!open.has(v)) inFlight.delete(v);
    if (inFlight.size === 0) break;
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, 20));
  }
  return id;
}

function add(map: Map<number, Sums>, m: number, available: number, hold: number, n: number) {
  if (n === 0) return;
  const s = map.get(m) ?? zero();
  s.available += available;
  s.hold += hold;
  s.entries += n;
  map.set(m, s);
}

/** Replaces the checkpoint with one at `through` (an older run finishing late does not go back). */
async function saveCheckpoint(db: Db, through: number, sums: Map<number, Sums>): Promise<number> {
  const ms = [...sums.entries()];
  return db.transaction().execute(async (trx: Trx) => {
    // One writer at a time; the request path never touches this table.
    await sql`lock table ledger_checkpoints in share row exclusive mode`.execute(trx);
    const prev = Number((await sql<{ t: number | null }>`select max(through_id) as t from ledger_checkpoints`.execute(trx)).rows[0]?.t ?? 0);
    if (prev > through) return prev;
    await sql`delete from ledger_checkpoints`.execute(trx);
    if (ms.length === 0) return through;
    await sql`
      insert into ledger_checkpoints (merchant_id, through_id, available, hold, entries)
      select m, ${through}::bigint, a, h, n
        from unnest(${ms.map(([m]) => m)}::bigint[], ${ms.map(([, s]) => s.available)}::bigint[],
                    ${ms.map(([, s]) => s.hold)}::bigint[], ${ms.map(([, s]) => s.entries)}::bigint[]) as t(m, a, h, n)`.execute(trx);
    return through;
  });
}
