// Kysely table types of the dashboard (users, invitations, sessions, audit log, status
// history), 034 (sign-in attempts per address, web keys), 058 (password resets, team settings) and
// 080 (disabled_at, account_elsewhere). The accounts, dashboard and console repositories reach them through `tables(db)`.
import type { ColumnType, Generated, Kysely, Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { DB } from '../../db/types.js';
import type { Timestamp } from '../../db/columns.js';

export type Role = 'owner' | 'developer' | 'viewer' | 'operator';
export const MERCHANT_ROLES = ['owner', 'developer', 'viewer'] as const;

export interface DashboardUsersTable {
  id: Generated<number>;
  merchant_id: number | null;
  email: string;
  role: Role;
  password_hash: string | null;
  totp_secret: string | null;
  totp_enabled: Generated<boolean>;
  totp_last_step: Generated<number>;
  failed_sign_ins: Generated<number>;
  locked_until: Date | null;
  disabled: Generated<boolean>;
  /** When the user was last disabled: what was issued before never works again. */
  disabled_at: Date | null;
  /** A pending invitation of an address that has an account elsewhere: never accepted, never looked up by address. */
  account_elsewhere: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DashboardInvitationsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  invited_by: string;
  expires_at: Date;
  accepted_at: Date | null;
  created_at: Timestamp;
}

export interface DashboardSessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  merchant_id: number | null;
  user_id: number | null;
  actor: string;
  action: string;
  detail: ColumnType<Record<string, unknown>, string | undefined, never>;
  ip: string | null;
  at: Timestamp;
}

export interface RecordStatusHistoryTable {
  id: Generated<number>;
  kind: 'deposit' | 'purchase';
  record_id: number;
  merchant_id: number;
  from_status: string | null;
  to_status: string;
  fail_reason: string | null;
  at: Timestamp;
}

export interface SignInAddressAttemptsTable {
  ip: string;
  window_started_at: Timestamp;
  attempts: number;
}

export interface WebKeysTable {
  name: string;
  key: Buffer;
  created_at: Timestamp;
}

export interface PasswordResetsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  issued_by: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Timestamp;
}

export interface TeamSettingsTable {
  merchant_id: number;
  require_totp: boolean;
  updated_at: Timestamp;
}

export type AccountTables = {
  dashboard_password_resets: PasswordResetsTable;
  team_settings: TeamSettingsTable;
  sign_in_address_attempts: SignInAddressAttemptsTable;
  web_keys: WebKeysTable;
  dashboard_users: DashboardUsersTable;
  dashboard_invitations: DashboardInvitationsTable;
  dashboard_sessions: DashboardSessionsTable;
  audit_log: AuditLogTable;
  record_status_history: RecordStatusHistoryTable;
};

export type UserRow = Selectable<DashboardUsersTable>;
export type AuditRow = Selectable<AuditLogTable>;

export type ADb = Kysely<DB & AccountTables>;

/** The same connection (or transaction), typed with this feature's tables as well. */
/** Any connection: the pool, a transaction, with or without this feature's table types. */
export type Conn = Db | Trx | ADb;

export function tables(db: Conn): ADb {
  return db.withTables<AccountTables>() as ADb;
}
