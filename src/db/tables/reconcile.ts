// Kysely table types of reconciliation (migration 031_reconcile.sql).
import type { Generated } from 'kysely';
import type { Timestamp } from '../columns.js';

export interface ReconcileRunsTable {
  id: Generated<number>;
  started_at: Timestamp;
  finished_at: Date | null;
  since: Date;
  bots_read: Generated<number>;
  read_errors: Generated<unknown>;
  discrepancies: Generated<number>;
}

export interface ReconcileDiscrepanciesTable {
  run_id: number;
  n: number;
  kind: string;
  bot_id: number | null;
  record_kind: string | null;
  record_id: number | null;
  merchant_id: number | null;
  trade_id: string | null;
  listing_id: string | null;
  asset_id: string | null;
  detail: string;
  action: string;
}

export interface ReconcileTables {
  reconcile_runs: ReconcileRunsTable;
  reconcile_discrepancies: ReconcileDiscrepanciesTable;
}
