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

/**
 * Reserves one sign-in attempt of an address in its window (migration 034), atomically: answers the
 * attempts counted so far including this one, and the seconds left in the window.
 */
export async function reserveAddressAttempt(db: Conn, ip: string, windowSeconds: number): Promise<{ attempts: number; secondsLeft: number }> {
  const r = await sql<{ attempts: number; seconds_left: number }>`
    insert into sign_in_address_attempts as a (ip, window_started_at, attempts) values (${ip}, now(), 1)
    on conflict (ip) do update set
      window_started_at = case when a.window_started_at <= now() - make_interval(secs => ${windowSeconds}) then now() else a.window_started_at end,
      attempts = case when a.window_started_at <= now() - make_interval(secs => ${windowSeconds}) then 1 else a.attempts + 1 end
    returning attempts, ceil(extract(epoch from a.window_started_at + make_interval(secs => ${windowSeconds}) - now()))::int as seconds_left`.execute(db);
  return { attempts: r.rows[0].attempts, secondsLeft: Math.max(1, r.rows[0].seconds_left) };
}

/** Gives back the place of an attempt that succeeded: only failures count against the address. */
export async function releaseAddressAttempt(db: Conn, ip: string): Promise<void> {
  await sql`update sign_in_address_attempts set attempts = greatest(attempts - 1, 0) where ip = ${ip}`.execute(db);
}

/**
 * The user of an e-mail address and, unless the account is locked, one attempt reserved on it in
 * the same statement (`reserved`: the attempts since the last success, this one included). The
 * reservation that reaches `lockAfter` locks the account at once (a success unlocks it): however
 * many attempts run in parallel, at most `lockAfter` are evaluated. One statement whether the
 * address is known or not, so both take the same work.
 */
export async function findUserReservingAttempt(db: Conn, email: string, lockAfter: number, lockSeconds: number): Promise<(UserRow & { reserved: number | null }) | undefined> {
  const r = await sql<UserRow & { reserved: number | null }>`
    with target as (select id from dashboard_users where lower(email) = ${email.toLowerCase()}),
    reserved as (
      update dashboard_users d set
        failed_sign_ins = case when d.locked_until is null then d.failed_sign_ins + 1 else 1 end,
        locked_until = case when (case when d.locked_until is null then d.failed_sign_ins + 1 else 1 end) >= ${lockAfter}
                            then now() + make_interval(secs => ${lockSeconds}) end
      from target t
      where d.id = t.id and not coalesce(d.locked_until > now(), false)
      returning d.*
    )
    select coalesce(r.id, u.id) as id, u.merchant_id, u.email, u.role, u.password_hash, u.totp_secret, u.totp_enabled,
           u.totp_last_step, u.disabled, u.created_at, u.updated_at,
           coalesce(r.failed_sign_ins, u.failed_sign_ins) as failed_sign_ins, coalesce(r.locked_until, u.locked_until) as locked_until,
           r.failed_sign_ins as reserved
    from target t join dashboard_users u on u.id = t.id left join reserved r on r.id = t.id`.execute(db);
  return r.rows[0];
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

/** Success: failures reset, and the TOTP step used (a code works once: the guard refuses a replay). */
export async function recordSuccess(db: Conn, userId: number, totpStep: number | undefined): Promise<boolean> {
  let q = tables(db)
    .updateTable('dashboard_users')
    .set({ failed_sign_ins: 0, locked_until: null, ...(totpStep !== undefined ? { totp_last_step: totpStep } : {}) })
    .where('id', '=', userId);
  if (totpStep !== undefined) q = q.where('totp_last_step', '<', totpStep);
  return (await q.executeTakeFirst()).numUpdatedRows > 0n;
}

/** TOTP set-up, step 1: a new secret, only while no authenticator is on (the guard); false when one is. */
export async function startTotpSetup(db: Conn, userId: number, secret: string): Promise<boolean> {
  const r = await tables(db)
    .updateTable('dashboard_users')
    .set({ totp_secret: secret, totp_last_step: 0, updated_at: sql`now()` as never })
    .where('id', '=', userId)
    .where('totp_enabled', '=', false)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
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
    .leftJoin('team_settings as t', 't.merchant_id', 'u.merchant_id')
    .select([
      's.id_hash', 's.csrf_token', 's.created_at as session_created_at', 's.last_seen_at',
      'u.id', 'u.merchant_id', 'u.email', 'u.role', 'u.totp_enabled',
      sql<boolean>`u.role = 'operator' or coalesce(t.require_totp, false)`.as('totp_required'),
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

// --- keys -----------------------------------------------------------------------------------

/** The named server-side key (migration 034): created once by whichever instance asks first. */
export async function webKey(db: Conn, name: string, fresh: Buffer): Promise<Buffer> {
  await tables(db).insertInto('web_keys').values({ name, key: fresh }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const r = await tables(db).selectFrom('web_keys').select('key').where('name', '=', name).executeTakeFirstOrThrow();
  return r.key;
}

// --- password resets (058) ----------------------------------------------------------------------

/** A new reset link of the user; the user's earlier unused links end (one live link at a time). */
export async function insertPasswordReset(trx: Conn, r: { userId: number; tokenHash: string; issuedBy: string; ttlSeconds: number }) {
  await tables(trx).updateTable('dashboard_password_resets').set({ used_at: sql`now()` as never }).where('user_id', '=', r.userId).where('used_at', 'is', null).execute();
  return tables(trx)
    .insertInto('dashboard_password_resets')
    .values({ user_id: r.userId, token_hash: r.tokenHash, issued_by: r.issuedBy, expires_at: sql<Date>`now() + make_interval(secs => ${r.ttlSeconds})` as never, used_at: null })
    .returning(['id', 'expires_at'])
    .executeTakeFirstOrThrow();
}

/** The live reset link of a token hash and its (enabled) user. */
export function findValidPasswordReset(db: Conn, tokenHash: string) {
  return tables(db)
    .selectFrom('dashboard_password_resets as r')
    .innerJoin('dashboard_users as u', 'u.id', 'r.user_id')
    .select(['r.id', 'r.user_id', 'u.email', 'u.role', 'u.merchant_id'])
    .where('r.token_hash', '=', tokenHash)
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', sql<Date>`now()`)
    .where('u.disabled', '=', false)
    .executeTakeFirst();
}

/** Uses the link: once (the guard), only while live. */
export function consumePasswordReset(trx: Conn, tokenHash: string) {
  return tables(trx)
    .updateTable('dashboard_password_resets')
    .set({ used_at: sql`now()` as never })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['id', 'user_id'])
    .executeTakeFirst();
}

// --- team settings (058) ------------------------------------------------------------------------

export async function teamRequiresTotp(db: Conn, merchantId: number): Promise<boolean> {
  const r = await tables(db).selectFrom('team_settings').select('require_totp').where('merchant_id', '=', merchantId).executeTakeFirst();
  return r?.require_totp ?? false;
}

export async function setTeamRequiresTotp(db: Conn, merchantId: number, required: boolean): Promise<void> {
  await tables(db)
    .insertInto('team_settings')
    .values({ merchant_id: merchantId, require_totp: required })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ require_totp: required, updated_at: sql`now()` as never }))
    .execute();
}

// --- mailed links (issue 24: src/modules/mail/letters.ts) ---------------------------------------

/** Ends a reset link whose e-mail could not be sent (only a delivered link should work). */
export async function voidPasswordReset(db: Conn, id: number): Promise<void> {
  await tables(db).updateTable('dashboard_password_resets').set({ used_at: sql`now()` as never }).where('id', '=', id).where('used_at', 'is', null).execute();
}

/** Ends an invitation link whose e-mail could not be sent. */
export async function voidInvitation(db: Conn, id: number): Promise<void> {
  await tables(db).updateTable('dashboard_invitations').set({ expires_at: sql`now()` as never }).where('id', '=', id).where('accepted_at', 'is', null).execute();
}

/** Whether the user got a live reset link within the last `seconds` (self-service requests wait that long). */
export async function hasRecentPasswordReset(db: Conn, userId: number, seconds: number): Promise<boolean> {
  const r = await tables(db)
    .selectFrom('dashboard_password_resets')
    .select('id')
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('created_at', '>', sql<Date>`now() - make_interval(secs => ${seconds})`)
    .executeTakeFirst();
  return r !== undefined;
}
