// Retention: one run prunes every kind that grows without bound, each in batches of
// RETENTION_BATCH rows (one short statement each), until nothing past its cutoff is left. A kind
// whose setting is 0 is kept forever. Delivered webhook events are webhook_prune's
// (WEBHOOK_RETENTION_DAYS), request logs the recorder's (REQUEST_LOG_DAYS), the catalogue feed
// catalogue_events_prune's. The ledger and the money records are never pruned, nor anything a
// credit's explanation names (a deposit item's price basis, a stored quote's).
import type { Config, RetentionSettings } from '../../config.js';
import type { Db } from '../../db/database.js';
import { pacer } from '../../jobs/pacing.js';
import * as repo from './retention-repo.js';

export type RetentionKind =
  | keyof typeof repo.HEAD_WALKS
  | keyof typeof repo.PAGE_WALKS
  | 'drafts'
  | 'webhook_exhausted'
  | 'job_history'
  | 'price_bases'
  | 'reconcile_runs';

/** Heap pages per page-walk statement (512 KiB at the default block size). */
const PAGES_PER_BATCH = 64;

export interface RetentionRun {
  /** Rows deleted per kind (kinds kept forever are absent). */
  deleted: Partial<Record<RetentionKind, number>>;
  /** Statements run, in all and per kind. */
  batches: number;
  batchesOf: Partial<Record<RetentionKind, number>>;
  /** The longest statement (ms): how long a batch's row locks were held at most. */
  maxBatchMs: number;
  ms: number;
  /** The run stopped before the end: its signal aborted (a stop); the next run carries on. */
  stopped: boolean;
}

export type RetentionConfig = { retention: RetentionSettings; webhookRetentionDays: number; platform: Config['platform'] };

/** The retention of each kind, in days (0: kept). */
export function daysOf(config: RetentionConfig): Record<RetentionKind, number> {
  const r = config.retention;
  // Sandbox rows exist only in the sandbox; steam mode has none to prune.
  const sandbox = r.sandboxDays;
  return {
    status_history: r.statusHistoryDays,
    drafts: r.draftDays,
    inventory_snapshots: r.draftDays,
    dashboard_sessions: r.sessionDays,
    dashboard_invitations: r.sessionDays,
    sign_in_address_attempts: r.sessionDays,
    sandbox_deposit_offers: sandbox,
    sandbox_purchase_offers: sandbox,
    sandbox_trades: sandbox,
    sandbox_bot_items: sandbox,
    sandbox_departed_assets: sandbox,
    listings: r.listingDays,
    price_bases: r.priceBasisDays,
    reconcile_runs: r.reconcileDays,
    webhook_exhausted: config.webhookRetentionDays,
    job_history: r.jobHistoryDays,
  };
}

/**
 * One pruning run over every kind (or `only` these), paced by RETENTION_BUSY_PERCENT
 * (src/jobs/pacing.ts); it stops between batches when `signal` aborts, with `stopped` set.
 */
export async function pruneAll(db: Db, config: RetentionConfig, only?: RetentionKind[], signal?: AbortSignal): Promise<RetentionRun> {
  const started = Date.now();
  const limit = config.retention.batchSize;
  const days = daysOf(config);
  const run: RetentionRun = { deleted: {}, batches: 0, batchesOf: {}, maxBatchMs: 0, ms: 0, stopped: false };
  // The pacer's batch clock is also what maxBatchMs reads: a batch runs from the pacer's last
  // restart() or next() to add().
  const pace = pacer(config.retention.busyPercent, signal);
  const wanted = (k: RetentionKind) => days[k] > 0 && (!only || only.includes(k));
  /** Before a kind's first batch: false when the run must stop (a stop came during the last kind). */
  const begin = (): boolean => {
    pace.restart();
    run.stopped = signal?.aborted ?? false;
    return !run.stopped;
  };
  const add = (k: RetentionKind, n: number) => {
    run.deleted[k] = (run.deleted[k] ?? 0) + n;
    run.batchesOf[k] = (run.batchesOf[k] ?? 0) + 1;
    run.batches++;
    run.maxBatchMs = Math.max(run.maxBatchMs, Math.round(pace.elapsed()));
  };
  /** Before a kind's next batch (never after its last): its pause; false when the run must stop. */
  const more = async (): Promise<boolean> => {
    const go = await pace.next();
    run.stopped = !go;
    return go;
  };
  const done = () => {
    run.ms = Date.now() - started;
    return run;
  };
  for (const [k, w] of Object.entries(repo.HEAD_WALKS) as [keyof typeof repo.HEAD_WALKS, (typeof repo.HEAD_WALKS)[keyof typeof repo.HEAD_WALKS]][]) {
    if (!wanted(k)) continue;
    if (!begin()) return done();
    for (let after = 0; ; ) {
      const { deleted, taken, last } = await repo.pruneHead(db, w, days[k], limit, after);
      add(k, deleted);
      if (deleted === 0 || taken < limit) break;
      if (!(await more())) return done();
      after = last;
    }
  }
  // Price bases: every basis computed before the cutoff is looked at (one a credit names is kept,
  // so a batch deleting nothing does not mean the walk is done).
  if (wanted('price_bases')) {
    if (!begin()) return done();
    for (let after = 0; ; ) {
      const { deleted, taken, last } = await repo.prunePriceBases(db, days.price_bases, limit, after);
      add('price_bases', deleted);
      if (taken < limit) break;
      if (!(await more())) return done();
      after = last;
    }
  }
  for (const [k, w] of Object.entries(repo.PAGE_WALKS) as [keyof typeof repo.PAGE_WALKS, (typeof repo.PAGE_WALKS)[keyof typeof repo.PAGE_WALKS]][]) {
    if (!wanted(k)) continue;
    const pages = await repo.pagesOf(db, w.table);
    if (!begin()) return done();
    for (let p = 0; p < pages; p += PAGES_PER_BATCH) {
      if (p > 0 && !(await more())) return done();
      add(k, await repo.prunePages(db, w, days[k], p, p + PAGES_PER_BATCH));
    }
  }
  const byIndex: [RetentionKind, (db: Db, days: number, limit: number) => Promise<number>][] = [
    ['drafts', repo.pruneDrafts],
    ['webhook_exhausted', repo.pruneExhaustedEvents],
    ['job_history', repo.pruneJobHistory],
    ['reconcile_runs', repo.pruneReconcileRuns],
  ];
  for (const [k, fn] of byIndex) {
    if (!wanted(k)) continue;
    if (!begin()) return done();
    for (;;) {
      const n = await fn(db, days[k], limit);
      add(k, n);
      if (n < limit) break;
      if (!(await more())) return done();
    }
  }
  return done();
}

/** Folds every purchase count delta there is now, `limit` per statement; returns how many. */
export async function foldAllPurchaseCounts(db: Db, limit: number): Promise<number> {
  let all = 0;
  for (;;) {
    const n = await repo.foldPurchaseCounts(db, limit);
    all += n;
    if (n < limit) return all;
  }
}
