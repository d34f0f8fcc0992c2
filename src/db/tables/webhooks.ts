// Kysely table types of the webhooks feature (migration 004_webhooks.sql); DB in ../types.ts is
// the union of every feature's tables.
import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../columns.js';

export type WebhookState = 'pending' | 'delivered' | 'exhausted';

export interface WebhookEventsTable {
  id: Generated<number>;
  merchant_id: number;
  /** 'test': a dashboard test event, recorded settled. */
  kind: 'deposit' | 'purchase' | 'test';
  record_id: number;
  status: string;
  payload: unknown;
  target_url: string;
  state: Generated<WebhookState>;
  attempts: Generated<number>;
  max_attempts: number | null;
  next_attempt_at: Timestamp | null;
  /** Set while an attempt is in flight; past it the attempt is presumed lost (see the sweeper). */
  lease_until: Timestamp | null;
  /** Bumped by each redelivery (an in-flight attempt then leaves the event pending when it settles). */
  redeliver_generation: Generated<number>;
  /** Not claimed before this: an earlier event of the record waits for its retry until then (webhook_events_due_idx). */
  not_before: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  /** The webhook-id a test event was sent with; null: webhookId(id). */
  webhook_id: Generated<string | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  event_id: number;
  attempt: number;
  attempted_at: Timestamp;
  target_url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface WebhookTables {
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
}

/** The rows as read: the events feature lists them too, and takes their types from here. */
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
