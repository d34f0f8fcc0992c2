// Kysely table types of this feature; DB in src/db/types.ts is the union of every feature's tables.
import type { Generated } from 'kysely';
import type { Timestamp } from '../../db/types.js';

export interface WebhookEventsTable {
  id: Generated<number>;
  merchant_id: number;
  kind: 'deposit' | 'purchase';
  record_id: number;
  status: string;
  payload: unknown;
  target_url: string;
  state: Generated<'pending' | 'delivered' | 'exhausted'>;
  attempts: Generated<number>;
  last_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
}

export interface WebhookTables {
  webhook_events: WebhookEventsTable;
}
