// SQL of dashboard users, invitations, sessions and the audit log's reads (its one writer, insertAudit,
// is audit-log.ts).
import { sql } from 'kysely';
import { tables, type Conn, type Role, type UserRow } from './accounts-types.js';

/** Audit entries newest first (of one merchant, or all for operators), keyset on id. */
export function listAudit(db: Conn, opts: { merchantId?: number; before?: number; limit: number }) {
  let q = tables(db).selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(opts.limit);
  if (opts.merchantId !== undefined) q = q.where('merchant_id', '=', opts.merchantId);
  if (opts.before !== undefined) q = q.where('id', '<', opts.before);
  return q.execute();
}

/**
 * Reserves one sign-in attempt of an address in its window (sign_in_address_attempts), atomically: answers the
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
 * The user of an e-mail address (sign-in) or of an id (a signed-in user's form that asks for the
 * password again) and, unless the account is locked, one attempt reserved on it in the same
 * statement (`reserved`: the attempts since the last success, this one included). The reservation
 * that reaches `lockAfter` locks the account at once (a success unlocks it): however many attempts
 * run in parallel, at most `lockAfter` are evaluated. One statement whether the address is known or
 * not, so both take the same work. Both doors share the one count and the one lock.
 */
export async function findUserReservingAttempt(db: Conn, who: string | { id: number }, lockAfter: number, lockSeconds: number): Promise<(UserRow & { reserved: number | null }) | undefined> {
  const target = typeof who === 'string'
    ? sql`select id from dashboard_users where lower(email) = ${who.toLowerCase()} and not account_elsewhere`
    : sql`select id from dashboard_users where id = ${who.id}`;
  const r = await sql<UserRow & { reserved: number | null }>`
    with target as (${target}),
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
           u.totp_last_step, u.disabled, u.disabled_at, u.account_elsewhere, u.created_at, u.updated_at,
           coalesce(r.failed_sign_ins, u.failed_sign_ins) as failed_sign_ins, coalesce(r.locked_until, u.locked_until) as locked_until,
           r.failed_sign_ins as reserved
    from target t join dashboard_users u on u.id = t.id left join reserved r on r.id = t.id`.execute(db);
  return r.rows[0];
}

/** The account of an address (never a pending invitation of an address that has an account elsewhere). */
export function findUserByEmail(db: Conn, email: string): Promise<UserRow | undefined> {
  return tables(db).selectFrom('dashboard_users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).where('account_elsewhere', '=', false).executeTakeFirst();
}

export function findUser(db: Conn, id: number): Promise<UserRow | undefined> {
  return tables(db).selectFrom('dashboard_users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listUsers(db: Conn, merchantId: number | null) {
  const q = tables(db).selectFrom('dashboard_users').selectAll().orderBy('id');
  return (merchantId === null ? q.where('merchant_id', 'is', null) : q.where('merchant_id', '=', merchantId)).execute();
}

/**
 * The account of an invited address: a new pending row, or the address's existing account (here,
 * pending or active, or elsewhere: the caller decides), locked for the transaction. An existing
 * address takes no id from the sequence.
 */
export async function upsertInvitedUser(trx: Conn, u: { merchantId: number | null; email: string; role: Role }): Promise<UserRow> {
  const t = tables(trx);
  const account = () => t.selectFrom('dashboard_users').selectAll().where(sql`lower(email)`, '=', u.email.toLowerCase()).where('account_elsewhere', '=', false).forUpdate().executeTakeFirst();
  const existing = await account();
  if (existing) return existing;
  const inserted = await t
    .insertInto('dashboard_users')
    .values({ merchant_id: u.merchantId, email: u.email, role: u.role, password_hash: null, totp_secret: null, locked_until: null, disabled_at: null })
    .onConflict((oc) => oc.expression(sql`lower(email)`).where('account_elsewhere', '=', false).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? (await account())!; // a parallel invitation of the address inserted it first
}

/**
 * The team's pending invitation of an address that has an account elsewhere (account_elsewhere): a new
 * row or the team's earlier one, locked for the transaction. It is listed with the team's users and
 * can never be accepted.
 */
export async function upsertElsewhereInvitation(trx: Conn, u: { merchantId: number; email: string; role: Role }): Promise<UserRow> {
  const t = tables(trx);
  const earlier = () => t.selectFrom('dashboard_users').selectAll().where('merchant_id', '=', u.merchantId).where(sql`lower(email)`, '=', u.email.toLowerCase()).where('account_elsewhere', '=', true).forUpdate().executeTakeFirst();
  const found = await earlier();
  if (found) return found;
  const inserted = await t
    .insertInto('dashboard_users')
    .values({ merchant_id: u.merchantId, email: u.email, role: u.role, password_hash: null, totp_secret: null, locked_until: null, disabled_at: null, account_elsewhere: true })
    .onConflict((oc) => oc.expression(sql`merchant_id, lower(email)`).where('account_elsewhere', '=', true).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? (await earlier())!;
}

export async function setRole(trx: Conn, userId: number, role: Role): Promise<void> {
  await tables(trx).updateTable('dashboard_users').set({ role, updated_at: sql`now()` as never }).where('id', '=', userId).execute();
}

/**
 * A new invitation link of a user, unless the user is disabled (undefined then). The user's row is
 * share-locked by the insert, so a disable either waits for this link and then ends it, or commits
 * first and no link is made.
 */
export async function insertInvitation(trx: Conn, inv: { userId: number; tokenHash: string; invitedBy: string; ttlSeconds: number }): Promise<{ id: number; expires_at: Date } | undefined> {
  // A new link replaces the user's earlier unused ones.
  await tables(trx)
    .updateTable('dashboard_invitations')
    .set({ expires_at: sql`now()` as never })
    .where('user_id', '=', inv.userId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .execute();
  const r = await sql<{ id: number; expires_at: Date }>`
    insert into dashboard_invitations (user_id, token_hash, invited_by, expires_at)
    select u.id, ${inv.tokenHash}, ${inv.invitedBy}, now() + make_interval(secs => ${inv.ttlSeconds})
    from dashboard_users u where u.id = ${inv.userId} and not u.disabled for share
    returning id, expires_at`.execute(trx);
  return r.rows[0];
}

/**
 * What every link and session of a user must satisfy to work (`u` the user, `issued` when the link
 * or session was made): the user is enabled and was not disabled since (080; a disable ends them
 * for good, even once the user is enabled again).
 */
const issuedSinceLastDisable = (issued: string) => sql<boolean>`(not u.disabled and (u.disabled_at is null or ${sql.ref(issued)} > u.disabled_at))`;

/**
 * Marks a valid invitation used; the guard makes the link single-use even under concurrent posts,
 * and (the user's row locked) never of a disabled user, of one disabled since the link was made, or
 * of a pending invitation of an address that has an account elsewhere.
 */
export async function consumeInvitation(trx: Conn, tokenHash: string): Promise<{ id: number; user_id: number } | undefined> {
  const r = await sql<{ id: number; user_id: number }>`
    update dashboard_invitations i set accepted_at = now()
    from dashboard_users u
    where i.token_hash = ${tokenHash} and i.accepted_at is null and i.expires_at > now()
      and u.id = i.user_id and not u.account_elsewhere and ${issuedSinceLastDisable('i.created_at')}
    returning i.id, i.user_id`.execute(trx);
  return r.rows[0];
}

export function findValidInvitation(db: Conn, tokenHash: string) {
  return tables(db)
    .selectFrom('dashboard_invitations as i')
    .innerJoin('dashboard_users as u', 'u.id', 'i.user_id')
    .select(['i.id', 'i.user_id', 'u.email', 'u.role', 'u.merchant_id'])
    .where('i.token_hash', '=', tokenHash)
    .where('i.accepted_at', 'is', null)
    .where('i.expires_at', '>', sql<Date>`now()`)
    .where('u.account_elsewhere', '=', false)
    .where(issuedSinceLastDisable('i.created_at'))
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

/** Disables (stamping disabled_at) or enables a user. */
export async function setDisabled(db: Conn, userId: number, disabled: boolean): Promise<void> {
  await tables(db)
    .updateTable('dashboard_users')
    .set({ disabled, ...(disabled ? { disabled_at: sql`now()` as never } : {}), updated_at: sql`now()` as never })
    .where('id', '=', userId)
    .execute();
}

/** Ends every unused password reset and invitation link of a user (a disable): answers how many. */
export async function endUserLinks(trx: Conn, userId: number): Promise<number> {
  const t = tables(trx);
  const resets = await t.updateTable('dashboard_password_resets').set({ used_at: sql`now()` as never }).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirst();
  const invitations = await t
    .updateTable('dashboard_invitations')
    .set({ expires_at: sql`now()` as never })
    .where('user_id', '=', userId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(resets.numUpdatedRows) + Number(invitations.numUpdatedRows);
}

// --- sessions -------------------------------------------------------------------------------

/**
 * A new session of an enabled user (false when the user is disabled). The user's row is
 * share-locked by the insert, so a disable either waits for the session and then ends it, or
 * commits first and no session is made.
 */
export async function insertSession(db: Conn, s: { idHash: string; userId: number; csrf: string; ip: string | null; userAgent: string | null; ttlSeconds: number }): Promise<boolean> {
  const r = await sql`
    insert into dashboard_sessions (id_hash, user_id, csrf_token, ip, user_agent, expires_at)
    select ${s.idHash}, u.id, ${s.csrf}, ${s.ip}, ${s.userAgent}, now() + make_interval(secs => ${s.ttlSeconds})
    from dashboard_users u where u.id = ${s.userId} and not u.disabled for share`.execute(db);
  return Number(r.numAffectedRows ?? 0n) > 0;
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
    .where(issuedSinceLastDisable('s.created_at'))
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

/** The named server-side key (web_keys): created once by whichever instance asks first. */
export async function webKey(db: Conn, name: string, fresh: Buffer): Promise<Buffer> {
  await tables(db).insertInto('web_keys').values({ name, key: fresh }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const r = await tables(db).selectFrom('web_keys').select('key').where('name', '=', name).executeTakeFirstOrThrow();
  return r.key;
}

// --- password resets ----------------------------------------------------------------------------

/**
 * A new reset link of the user, unless the user is disabled (undefined then); the user's earlier
 * unused links end (one live link at a time). Share-locks the user's row like insertInvitation.
 */
export async function insertPasswordReset(trx: Conn, r: { userId: number; tokenHash: string; issuedBy: string; ttlSeconds: number }): Promise<{ id: number; expires_at: Date } | undefined> {
  await tables(trx).updateTable('dashboard_password_resets').set({ used_at: sql`now()` as never }).where('user_id', '=', r.userId).where('used_at', 'is', null).execute();
  const q = await sql<{ id: number; expires_at: Date }>`
    insert into dashboard_password_resets (user_id, token_hash, issued_by, expires_at)
    select u.id, ${r.tokenHash}, ${r.issuedBy}, now() + make_interval(secs => ${r.ttlSeconds})
    from dashboard_users u where u.id = ${r.userId} and not u.disabled for share
    returning id, expires_at`.execute(trx);
  return q.rows[0];
}

/** The live reset link of a token hash and its user (enabled, and not disabled since the link was made). */
export function findValidPasswordReset(db: Conn, tokenHash: string) {
  return tables(db)
    .selectFrom('dashboard_password_resets as r')
    .innerJoin('dashboard_users as u', 'u.id', 'r.user_id')
    .select(['r.id', 'r.user_id', 'u.email', 'u.role', 'u.merchant_id'])
    .where('r.token_hash', '=', tokenHash)
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', sql<Date>`now()`)
    .where(issuedSinceLastDisable('r.created_at'))
    .executeTakeFirst();
}

/** Uses the link: once (the guard), only while live, and only while its user may use it (the row locked). */
export async function consumePasswordReset(trx: Conn, tokenHash: string): Promise<{ id: number; user_id: number } | undefined> {
  const r = await sql<{ id: number; user_id: number }>`
    update dashboard_password_resets r set used_at = now()
    from dashboard_users u
    where r.token_hash = ${tokenHash} and r.used_at is null and r.expires_at > now()
      and u.id = r.user_id and ${issuedSinceLastDisable('r.created_at')}
    returning r.id, r.user_id`.execute(trx);
  return r.rows[0];
}

// --- team settings ------------------------------------------------------------------------------

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

// --- mailed links (src/modules/mail/letters.ts) ------------------------------------------------

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
