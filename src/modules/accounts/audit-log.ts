// The one audit log (audit_log): an entry written in the caller's connection or transaction. A
// module of its own, not the accounts repo, so that deposits, purchases, pricing and mail write
// their entries without importing the accounts feature's SQL.
import { tables, type Conn } from './accounts-types.js';

export interface AuditInput {
  merchantId: number | null;
  userId: number | null;
  actor: string;
  action: string;
  detail?: Record<string, unknown>;
  ip: string | null;
}

export async function insertAudit(db: Conn, a: AuditInput): Promise<void> {
  await tables(db)
    .insertInto('audit_log')
    .values({ merchant_id: a.merchantId, user_id: a.userId, actor: a.actor, action: a.action, detail: JSON.stringify(a.detail ?? {}), ip: a.ip })
    .execute();
}
