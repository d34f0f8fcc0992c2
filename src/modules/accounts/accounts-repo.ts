// SQL of dashboard users, invitations, sessions and the audit log.
import { sql } from 'kysely';
import { tables, type Conn, type Role, type UserRow } from './accounts-types.js';

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

/** Audit entries newest first (of one merchant, or all for operators), keyset on id. */
export function listAudit(db: Conn, opts: { merchantId?: number; before?: number; limit: number }) {
  let q = tables(db).selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(opts.limit);
  if (opts.merchantId !== undefined) q = q.where('merchant_id', '=', opts.merchantId);
  if (opts.before !== undefined) q = q.where('id', '<', opts.before);
  return q.execute();
}

export async function recentSignInFailuresFrom(db: Conn, ip: string, windowSeconds: number): Promise<number> {
  const r = await tables(db)
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('action', '=', 'sign_in_failed')
    .where('ip', '=', ip)
    .where('at', '>', sql<Date>`now() - make_interval(secs => ${windowSeconds})`)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export function findUserByEmail(db: Conn, email: string): Promise<UserRow | undefined> {
  return tables(db).selectFrom('dashboard_users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

export function findUser(db: Conn, id: number): Promise<UserRow | undefined> {
  return tables(db).selectFrom('dashboard_users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listUsers(db: Conn, merchantId: number | null) {
  const q = tables(db).selectFrom('dashboard_users').selectAll().orderBy('id');
  return (merchantId === null ? q.where('merchant_id', 'is', null) : q.where('merchant_id', '=', merchantId)).execute();
}

/** The user for an invitation: a new row, or the same pending (never activated) user again. */
export async function upsertInvitedUser(trx: Conn, u: { merchantId: number | null; email: string; role: Role }): Promise<UserRow> {
  const t = tables(trx);
  const inserted = await t
    .insertInto('dashboard_users')
    .values({ merchant_id: u.merchantId, email: u.email, role: u.role, password_hash: null, totp_secret: null, locked_until: null })
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  const existing = await t.selectFrom('dashboard_users').selectAll().where(sql`lower(email)`, '=', u.email.toLowerCase()).forUpdate().executeTakeFirstOrThrow();
  return existing;
}

export async function setRole(trx: Conn, userId: number, role: Role): Promise<void> {
  await tables(trx).updateTable('dashboard_users').set({ role, updated_at: sql`now()` as never }).where('id', '=', userId).execute();
}

export async function insertInvitation(trx: Conn, inv: { userId: number; tokenHash: string; invitedBy: string; ttlSeconds: number }) {
  // A new link replaces the user's earlier unused ones.
  await tables(trx)
    .updateTable('dashboard_invitations')
    .set({ expires_at: sql`now()` as never })
    .where('user_id', '=', inv.userId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .execute();
  return tables(trx)
    .insertInto('dashboard_invitations')
    .values({ user_id: inv.userId, token_hash: inv.tokenHash, invited_by: inv.invitedBy, expires_at: sql<Date>`now() + make_interval(secs => ${inv.ttlSeconds})` as never, accepted_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks a valid invitation used; the guard makes the link single-use even under concurrent posts. */
export function consumeInvitation(trx: Conn, tokenHash: string) {
  return tables(trx)
    .updateTable('dashboard_invitations')
    .set({ accepted_at: sql`now()` as never })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['id', 'user_id'])
    .executeTakeFirst();
}

export function findValidInvitation(db: Conn, tokenHash: string) {
  return tables(db)
    .selectFrom('dashboard_invitations as i')
    .innerJoin('dashboard_users as u', 'u.id', 'i.user_id')
    .select(['i.id', 'i.user_id', 'u.email', 'u.role', 'u.merchant_id'])
    .where('i.token_hash', '=', tokenHash)
    .where('i.accepted_at', 'is', null)
    .where('i.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function setPassword(trx: Conn, userId: number, hash: string): Promise<void> {
  await tables(trx)
    .updateTable('dashboard_users')
    .set({ password_hash: hash, failed_sign_ins: 0, locked_until: null, updated_at: sql`now()` as never })
    .where('id', '=', userId)
    .execute();
}

/** Counts a failure; the `lockAfter`-th consecutive one locks the account for `lockSeconds`. */
export async function recordFailure(db: Conn, userId: number, lockAfter: number, lockSeconds: number): Promise<{ failed_sign_ins: number; locked: boolean }> {
  const r = await tables(db)
    .updateTable('dashboard_users')
    .set({
      failed_sign_ins: sql`failed_sign_ins + 1`,
      locked_until: sql`case when failed_sign_ins + 1 >= ${lockAfter} then now() + make_interval(secs => ${lockSeconds}) else locked_until end`,
    })
    .where('id', '=', userId)
    .returning(['failed_sign_ins', sql<boolean>`coalesce(locked_until > now(), false)`.as('locked')])
    .executeTakeFirstOrThrow();
  return r;
}

/** Success: failures reset, and the TOTP step used (a code works once: the guard refuses a replay). */
export async function recordSuccess(db: Conn, userId: number, totpStep: number | undefined): Promise<boolean> {
  let q = tables(db)
    .updateTable('dashboard_users')
    .set({ failed_sign_ins: 0, locked_until: null, ...(totpStep !== undefined ? { totp_last_step: totpStep } : {}) })
    .where('id', '=', userId);
  if (totpStep !== undefined) q = q.where('totp_last_step', '<', totpStep);
  return (await q.executeTakeFirst()).numUpdatedRows > 0n;
}

export async function isLocked(db: Conn, userId: number): Promise<boolean> {
  const r = await tables(db).selectFrom('dashboard_users').select(sql<boolean>`coalesce(locked_until > now(), false)`.as('locked')).where('id', '=', userId).executeTakeFirst();
  return Boolean(r?.locked);
}

export async function setTotp(db: Conn, userId: number, fields: { totp_secret: string | null; totp_enabled: boolean; totp_last_step?: number }): Promise<void> {
  await tables(db).updateTable('dashboard_users').set({ ...fields, updated_at: sql`now()` as never }).where('id', '=', userId).execute();
}

export async function setDisabled(db: Conn, userId: number, disabled: boolean): Promise<void> {
  await tables(db).updateTable('dashboard_users').set({ disabled, updated_at: sql`now()` as never }).where('id', '=', userId).execute();
}

// --- sessions -------------------------------------------------------------------------------

export async function insertSession(db: Conn, s: { idHash: string; userId: number; csrf: string; ip: string | null; userAgent: string | null; ttlSeconds: number }) {
  await tables(db)
    .insertInto('dashboard_sessions')
    .values({
      id_hash: s.idHash, user_id: s.userId, csrf_token: s.csrf, ip: s.ip, user_agent: s.userAgent,
      expires_at: sql<Date>`now() + make_interval(secs => ${s.ttlSeconds})` as never, revoked_at: null,
    })
    .execute();
}

/** A live session (not revoked, not expired, not idle too long) and its enabled user. */
export function findLiveSession(db: Conn, idHash: string, idleSeconds: number) {
  return tables(db)
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
    .select([
      's.id_hash', 's.csrf_token', 's.created_at as session_created_at', 's.last_seen_at',
      'u.id', 'u.merchant_id', 'u.email', 'u.role', 'u.totp_enabled',
      sql<boolean>`s.last_seen_at < now() - interval '1 minute'`.as('stale'),
    ])
    .where('s.id_hash', '=', idHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('s.last_seen_at', '>', sql<Date>`now() - make_interval(secs => ${idleSeconds})`)
    .where('u.disabled', '=', false)
    .executeTakeFirst();
}

export async function touchSession(db: Conn, idHash: string): Promise<void> {
  await tables(db).updateTable('dashboard_sessions').set({ last_seen_at: sql`now()` as never }).where('id_hash', '=', idHash).execute();
}

export async function revokeSession(db: Conn, idHash: string): Promise<void> {
  await tables(db).updateTable('dashboard_sessions').set({ revoked_at: sql`now()` as never }).where('id_hash', '=', idHash).where('revoked_at', 'is', null).execute();
}

export async function revokeUserSessions(db: Conn, userId: number): Promise<number> {
  const r = await tables(db).updateTable('dashboard_sessions').set({ revoked_at: sql`now()` as never }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export function listSessions(db: Conn, userId: number) {
  return tables(db)
    .selectFrom('dashboard_sessions')
    .select(['id_hash', 'ip', 'user_agent', 'created_at', 'last_seen_at'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at', 'desc')
    .execute();
}
