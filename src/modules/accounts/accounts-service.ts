// Accounts: invitations (one-time links), passwords, TOTP, sign-in with throttling and lock-out,
// database sessions, and the audit log every change writes to.
import crypto from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import { randomSecret, sha256Hex } from '../../domain/secrets.js';
import { AppError, isAppError, notFound, validationError } from '../../http/errors.js';
import * as repo from './accounts-repo.js';
import { insertAudit } from './audit-log.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { matchTotp, newTotpSecret, otpauthUri } from './totp.js';
import { MERCHANT_ROLES, tables, type Role, type UserRow } from './accounts-types.js';
import { enqueueMail } from './account-mail-jobs.js';

export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** How long a password reset link works (once). */
export const PASSWORD_RESET_TTL_SECONDS = 24 * 3600;
const RESET_INVALID = 'this password reset link is not valid (used, replaced by a newer one, expired or mistyped): ask for a new one';
export const SESSION_TTL_SECONDS = 12 * 3600;
export const SESSION_IDLE_SECONDS = 2 * 3600;
/** Consecutive failures that lock an account, and for how long. */
export const LOCK_AFTER_FAILURES = 5;
export const LOCK_SECONDS = 15 * 60;
/** Failures from one address within the window after which sign-in answers 429. */
export const IP_FAILURE_LIMIT = 20;
export const IP_FAILURE_WINDOW_SECONDS = 15 * 60;

export const SIGN_IN_FAILED = 'invalid e-mail, password or authentication code';

/** A throttled address (429, Retry-After): the sign-in page shows it with its form, as a refused sign-in (401). */
const tooMany = (message: string, secondsLeft: number) => new AppError('rate_limited', message, undefined, { 'retry-after': String(secondsLeft) });

/** What the sign-in and "forgot password" forms show with the form again: a refused sign-in or a throttled address. */
export const isSignInRefusal = (err: unknown): err is AppError => isAppError(err, 'unauthenticated') || isAppError(err, 'rate_limited');

/** Who did something, for the audit log. */
export interface Actor {
  userId: number | null;
  actor: string;
  ip: string | null;
}

export interface SessionUser {
  id: number;
  merchant_id: number | null;
  email: string;
  role: Role;
  totp_enabled: boolean;
  /** An operator, or a user of a team whose owner requires an authenticator (team_settings). */
  totp_required: boolean;
  csrf: string;
  sessionHash: string;
}

/**
 * Whether a link's token can be one we issued: compared as the exact text presented (its hash is
 * looked up; nothing is trimmed or case-folded), so an empty, blank or padded token is never valid.
 */
const linkToken = (token: string, prefix: string) => token.length > prefix.length && token.length <= 100 && token.startsWith(prefix) && /^[\w-]+$/.test(token);

const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{1,60}$/;
/** The longest e-mail address an account may have (RFC 5321's path limit; the column's check). */
export const EMAIL_MAX = 254;

/** The one rule for an invited address, for the admin API, the console and the dashboard alike. */
function emailProblem(email: string): string | undefined {
  if (email.length > EMAIL_MAX) return `email may have at most ${EMAIL_MAX} characters`;
  if (!EMAIL_RE.test(email)) return 'email must be an e-mail address';
  return undefined;
}

type InviteInput = { merchantId: number | null; email: string; role: Role };
/** An invitation answered as its one-time link, or (e-mailed by a job) as the address it goes to. */
export type InviteLink = { user_id: number; merchant_id: number | null; email: string; role: Role; url: string; expires_at: string };
export type InviteSent = { user_id: number; merchant_id: number | null; email: string; role: Role; sent_to: string };

/**
 * The operators' audit entry (merchant_id null) of an owner's invitation of an address that has an
 * account elsewhere: recorded on the team as a pending invitation that can never be accepted.
 */
export const INVITE_REFUSED_SILENTLY = 'user_invite_refused';

/** What a form that asks for the password (and code) again answers to a wrong one: never which of the two. */
export const RECHECK_FAILED = 'the password or the authentication code is not correct';

const ACCOUNT_DISABLED = 'this account is disabled: enable it first';

/** What accounts need of merchants: whether one exists (the assembly passes the merchant service). */
export interface AccountMerchants {
  exists(merchantId: number): Promise<boolean>;
}

/** What the accounts service takes of the composition root (the web app's deps extend it). */
export interface AccountDeps {
  db: Db;
  config: Config;
  clock: Clock;
  merchants: AccountMerchants;
}

export function createAccountsService(base: AccountDeps) {
  const { db, config, clock } = base;

  const audit = (a: Actor, action: string, merchantId: number | null, detail?: Record<string, unknown>) =>
    insertAudit(db, { merchantId, userId: a.userId, actor: a.actor, action, detail, ip: a.ip });

  /**
   * Invites an e-mail address (merchant user, or operator when merchantId is null); answers the
   * one-time link. `hideOtherAccounts` (a merchant's own team page): an address that has an account
   * at another merchant or as an operator is recorded on the team as a pending invitation like any
   * other (listed as invited, the same answer, audit entries and e-mail job), so an owner cannot
   * learn which addresses have accounts elsewhere; that invitation can never be accepted (its link
   * does not work; by mail the address is told it already has an account,
   * docs/decisions/invitation-of-an-address-elsewhere.md), and the operators' audit log says why.
   * Operators, who see every account anyway, get the clear error.
   * `byMail` (the pages) with SMTP configured: the link is e-mailed by a job and answered to nobody
   * (`sent_to` instead of `url`); the admin API and the CLI always answer the link (break-glass).
   */
  function invite(input: InviteInput, by: Actor, opts?: { hideOtherAccounts?: boolean }): Promise<InviteLink>;
  function invite(input: InviteInput, by: Actor, opts: { hideOtherAccounts?: boolean; byMail: true }): Promise<InviteLink | InviteSent>;
  async function invite(input: InviteInput, by: Actor, opts: { hideOtherAccounts?: boolean; byMail?: boolean } = {}): Promise<InviteLink | InviteSent> {
    const mail = opts.byMail === true && config.smtp !== undefined;
    const email = input.email.trim();
    const problem = emailProblem(email);
    if (problem) throw validationError([{ field: 'email', code: 'email', message: problem }]);
    const operator = input.merchantId === null;
    if (operator ? input.role !== 'operator' : !(MERCHANT_ROLES as readonly string[]).includes(input.role)) {
      throw validationError([{ field: 'role', code: 'oneof', message: operator ? 'role must be operator' : 'role must be one of: owner, developer, viewer' }]);
    }
    if (!operator && !(await base.merchants.exists(input.merchantId!))) throw notFound();
    const token = randomSecret('inv_');
    const result = await db.transaction().execute(async (trx) => {
      let user = await repo.upsertInvitedUser(trx, { merchantId: input.merchantId, email, role: input.role });
      // An address with an account elsewhere: from here on, the same steps as a new address.
      if (opts.hideOtherAccounts && input.merchantId !== null && user.merchant_id !== input.merchantId) {
        await insertAudit(trx, { merchantId: null, userId: by.userId, actor: by.actor, action: INVITE_REFUSED_SILENTLY, detail: { email, merchant_id: input.merchantId, reason: 'the address has an account elsewhere: recorded on the team as an invitation that cannot be accepted' }, ip: by.ip });
        user = await repo.upsertElsewhereInvitation(trx, { merchantId: input.merchantId, email, role: input.role });
      }
      if (user.password_hash !== null || user.merchant_id !== input.merchantId) {
        throw validationError([{ field: 'email', code: 'exist', message: 'this e-mail address already has an account' }]);
      }
      if (user.disabled) throw validationError([{ field: 'email', code: 'state', message: ACCOUNT_DISABLED }]);
      if (user.role !== input.role) await repo.setRole(trx, user.id, input.role);
      // By mail, the job mints the link (src/modules/mail/letters.ts): it never waits in a payload.
      const inv = mail
        ? (await enqueueMail(trx, { kind: 'invitation', user_id: user.id, by: by.actor }), { expires_at: new Date(clock.now().getTime() + INVITATION_TTL_SECONDS * 1000) })
        : await repo.insertInvitation(trx, { userId: user.id, tokenHash: sha256Hex(token), invitedBy: by.actor, ttlSeconds: INVITATION_TTL_SECONDS });
      if (!inv) throw validationError([{ field: 'email', code: 'state', message: ACCOUNT_DISABLED }]); // disabled meanwhile
      await insertAudit(trx, { merchantId: input.merchantId, userId: by.userId, actor: by.actor, action: 'user_invited', detail: { email, role: input.role, ...(mail ? { by_mail: true } : {}) }, ip: by.ip });
      return { user, inv };
    });
    if (mail) return { user_id: result.user.id, merchant_id: input.merchantId, email, role: input.role, sent_to: email };
    return {
      user_id: result.user.id,
      merchant_id: input.merchantId,
      email,
      role: input.role,
      url: `${config.publicUrl}/dashboard/invite/${token}`,
      expires_at: new Date(result.inv.expires_at).toISOString(),
    };
  }

  async function invitation(token: string) {
    const inv = linkToken(token, 'inv_') ? await repo.findValidInvitation(db, sha256Hex(token)) : undefined;
    if (!inv) throw new AppError('not_found', 'this invitation link is not valid (used, expired or mistyped)');
    return inv;
  }

  /** Sets the password of an invited user; the link works once. */
  async function acceptInvitation(token: string, password: string, ip: string | null) {
    const inv = await invitation(token);
    const problem = passwordProblem(password, inv.email);
    if (problem) throw validationError([{ field: 'password', code: 'len', message: problem }]);
    const hash = await hashPassword(password);
    return tables(db).transaction().execute(async (trx) => {
      const used = await repo.consumeInvitation(trx, sha256Hex(token));
      if (!used) throw new AppError('not_found', 'this invitation link is not valid (used, expired or mistyped)');
      await repo.setPassword(trx, used.user_id, hash);
      await repo.revokeUserSessions(trx, used.user_id);
      await insertAudit(trx, { merchantId: inv.merchant_id, userId: used.user_id, actor: inv.email, action: 'invitation_accepted', ip });
      return { user_id: used.user_id, email: inv.email };
    });
  }

  /** A new session, or undefined when the user was disabled meanwhile. */
  async function newSession(userId: number, ip: string | null, userAgent: string | null) {
    const cookie = crypto.randomBytes(32).toString('base64url');
    const csrf = crypto.randomBytes(32).toString('base64url');
    const made = await repo.insertSession(db, { idHash: sha256Hex(cookie), userId, csrf, ip, userAgent: userAgent?.slice(0, 300) ?? null, ttlSeconds: SESSION_TTL_SECONDS });
    return made ? { cookie, csrf } : undefined;
  }

  /**
   * Checks e-mail, password and (when enabled) the TOTP code; answers a brand-new session. Every
   * failure reads the same, is audited, and counts towards the account's lock-out and the address's
   * limit. Both counts reserve the attempt in the database BEFORE the password work (atomic: parallel
   * attempts cannot all pass a check made before any failure was recorded); an address over its limit
   * costs no scrypt. A known and an unknown address take the same statements and the same scrypt.
   */
  async function signIn(input: { email: string; password: string; code?: string; ip: string | null; userAgent: string | null }) {
    const ip = input.ip ?? 'unknown';
    const place = await repo.reserveAddressAttempt(db, ip, IP_FAILURE_WINDOW_SECONDS);
    if (place.attempts > IP_FAILURE_LIMIT) {
      throw tooMany('too many failed sign-ins from this address: try again later', place.secondsLeft);
    }
    const email = input.email.trim().slice(0, 254);
    const user = email ? await repo.findUserReservingAttempt(db, email, LOCK_AFTER_FAILURES, LOCK_SECONDS) : undefined;
    // The same scrypt work for an unknown address, a locked account and a known one.
    const passwordOk = await verifyPassword(input.password.slice(0, 1000), user?.password_hash ?? null);
    const fail = async (reason: string, u?: UserRow & { reserved: number | null }) => {
      const merchantId = u?.merchant_id ?? null;
      await insertAudit(db, { merchantId, userId: u?.id ?? null, actor: email || '(empty)', action: 'sign_in_failed', detail: { reason }, ip });
      if (u && u.reserved === LOCK_AFTER_FAILURES) {
        await insertAudit(db, { merchantId, userId: u.id, actor: u.email, action: 'account_locked', detail: { seconds: LOCK_SECONDS }, ip });
      }
      throw new AppError('unauthenticated', SIGN_IN_FAILED);
    };
    if (!user || user.disabled || user.password_hash === null) return fail('unknown or inactive account', user);
    if (user.reserved === null) return fail('locked', user); // no attempt left: the password is not looked at
    if (!passwordOk) return fail('wrong password', user);
    let step: number | undefined;
    if (user.totp_enabled) {
      step = matchTotp(user.totp_secret!, (input.code ?? '').trim(), clock.now().getTime(), Number(user.totp_last_step));
      if (step === undefined) return fail('wrong or reused authentication code', user);
    }
    if (!(await repo.recordSuccess(db, user.id, step))) return fail('authentication code already used', user);
    await repo.releaseAddressAttempt(db, ip);
    const session = await newSession(user.id, input.ip, input.userAgent);
    if (!session) return fail('disabled while signing in', user);
    await insertAudit(db, { merchantId: user.merchant_id, userId: user.id, actor: user.email, action: 'signed_in', ip });
    return { ...session, user };
  }

  /**
   * A signed-in user's form that asks for the password (and, when `withCode`, the authenticator's
   * code) again: the same limits as sign-in, through the same statements (the address's attempts and
   * the account's failures and lock, reserved in the database before the password work), so a stolen
   * session is no unlimited password oracle. Every failure is audited (`reauth_failed`, with the
   * form) as sign-in's are, the fifth in a row locks the account (sign-in included) and a success
   * resets the count and uses the code (a code works once). Throws; answers nothing.
   */
  async function recheck(user: SessionUser, input: { password: string; code?: string; withCode: boolean }, a: Actor, form: string): Promise<void> {
    const ip = a.ip ?? 'unknown';
    const place = await repo.reserveAddressAttempt(db, ip, IP_FAILURE_WINDOW_SECONDS);
    if (place.attempts > IP_FAILURE_LIMIT) {
      await insertAudit(db, { merchantId: user.merchant_id, userId: user.id, actor: user.email, action: 'reauth_failed', detail: { form, reason: 'address over its limit' }, ip });
      throw tooMany('too many failed attempts from this address: try again later', place.secondsLeft);
    }
    const row = await repo.findUserReservingAttempt(db, { id: user.id }, LOCK_AFTER_FAILURES, LOCK_SECONDS);
    const passwordOk = await verifyPassword(input.password.slice(0, 1000), row?.password_hash ?? null);
    const fail = async (reason: string): Promise<never> => {
      await insertAudit(db, { merchantId: user.merchant_id, userId: user.id, actor: user.email, action: 'reauth_failed', detail: { form, reason }, ip });
      if (row && row.reserved === LOCK_AFTER_FAILURES) {
        await insertAudit(db, { merchantId: user.merchant_id, userId: user.id, actor: user.email, action: 'account_locked', detail: { seconds: LOCK_SECONDS, form }, ip });
      }
      if (row && row.reserved === null) {
        const left = row.locked_until ? Math.ceil((new Date(row.locked_until).getTime() - clock.now().getTime()) / 1000) : LOCK_SECONDS;
        throw tooMany('too many wrong attempts: the account is locked for a while (sign-in too); try again later', Math.max(1, left));
      }
      throw validationError([{ field: 'password', code: 'password', message: RECHECK_FAILED }]);
    };
    if (!row || row.disabled || row.password_hash === null) return fail('inactive account');
    if (row.reserved === null) return fail('locked'); // no attempt left: the password is not looked at
    if (!passwordOk) return fail('wrong password');
    let step: number | undefined;
    if (input.withCode) {
      if (!row.totp_enabled || !row.totp_secret) return fail('no authenticator');
      step = matchTotp(row.totp_secret, (input.code ?? '').trim(), clock.now().getTime(), Number(row.totp_last_step));
      if (step === undefined) return fail('wrong or reused authentication code');
    }
    if (!(await repo.recordSuccess(db, row.id, step))) return fail('authentication code already used');
    await repo.releaseAddressAttempt(db, ip);
  }

  /** The signed-in user of a session cookie, or undefined. */
  async function authenticate(cookie: string | undefined): Promise<SessionUser | undefined> {
    if (!cookie || cookie.length > 100) return undefined;
    const hash = sha256Hex(cookie);
    const s = await repo.findLiveSession(db, hash, SESSION_IDLE_SECONDS);
    if (!s) return undefined;
    if (s.stale) await repo.touchSession(db, hash); // at most once a minute per session
    return { id: s.id, merchant_id: s.merchant_id, email: s.email, role: s.role, totp_enabled: s.totp_enabled, totp_required: s.totp_required, csrf: s.csrf_token, sessionHash: hash };
  }

  /**
   * A one-time password reset link for a user (an owner: of its merchant; an operator: anyone, the
   * scope given as the user's merchant, null for operators). Only the token's hash is stored; the
   * link is answered to the issuer to hand over, never logged. With SMTP configured the link is
   * e-mailed to the user by a job (which mints it) and shown to nobody: `sent_to` instead of `url`.
   */
  async function issuePasswordReset(scope: number | null, userId: number, by: Actor): Promise<{ email: string; sent_to: string } | { email: string; url: string; expires_at: string }> {
    const u = await repo.findUser(db, userId);
    if (!u || u.merchant_id !== scope) throw notFound();
    if (u.disabled) throw validationError([{ field: 'user', code: 'state', message: ACCOUNT_DISABLED }]);
    if (u.password_hash === null) throw validationError([{ field: 'user', code: 'state', message: 'this user has not accepted the invitation yet: invite the address again for a new link' }]);
    if (config.smtp) {
      await db.transaction().execute(async (trx) => {
        await enqueueMail(trx, { kind: 'password_reset', user_id: userId, by: by.actor });
        await insertAudit(trx, { merchantId: u.merchant_id, userId: by.userId, actor: by.actor, action: 'password_reset_issued', detail: { email: u.email, by_mail: true }, ip: by.ip });
      });
      return { email: u.email, sent_to: u.email };
    }
    const token = randomSecret('pwr_');
    const r = await tables(db).transaction().execute(async (trx) => {
      const row = await repo.insertPasswordReset(trx, { userId, tokenHash: sha256Hex(token), issuedBy: by.actor, ttlSeconds: PASSWORD_RESET_TTL_SECONDS });
      if (!row) throw validationError([{ field: 'user', code: 'state', message: ACCOUNT_DISABLED }]); // disabled meanwhile
      await insertAudit(trx, { merchantId: u.merchant_id, userId: by.userId, actor: by.actor, action: 'password_reset_issued', detail: { email: u.email }, ip: by.ip });
      return row;
    });
    return { email: u.email, url: `${config.publicUrl}/dashboard/reset/${token}`, expires_at: new Date(r.expires_at).toISOString() };
  }

  async function passwordReset(token: string) {
    const r = linkToken(token, 'pwr_') ? await repo.findValidPasswordReset(db, sha256Hex(token)) : undefined;
    if (!r) throw new AppError('not_found', RESET_INVALID);
    return r;
  }

  /** Sets a new password through a reset link: once; every session of the user ends; the lock-out is lifted. The authenticator stays. */
  async function completePasswordReset(token: string, password: string, ip: string | null) {
    const r = await passwordReset(token);
    const problem = passwordProblem(password, r.email);
    if (problem) throw validationError([{ field: 'password', code: 'len', message: problem }]);
    const hash = await hashPassword(password);
    return tables(db).transaction().execute(async (trx) => {
      const used = await repo.consumePasswordReset(trx, sha256Hex(token));
      if (!used) throw new AppError('not_found', RESET_INVALID);
      await repo.setPassword(trx, used.user_id, hash);
      await repo.revokeUserSessions(trx, used.user_id);
      await insertAudit(trx, { merchantId: r.merchant_id, userId: used.user_id, actor: r.email, action: 'password_reset_completed', ip });
      return { user_id: used.user_id, email: r.email };
    });
  }

  /**
   * "Forgot your password?" (sign-in page), with SMTP configured: the same answer and the same work
   * whatever the address (the job resolves it: no enumeration); each request counts against the
   * address's sign-in limit. Answers false when the gateway sends no e-mail.
   */
  async function requestPasswordReset(input: { email: string; ip: string | null }): Promise<boolean> {
    if (!config.smtp) return false;
    const email = input.email.trim();
    const problem = emailProblem(email);
    if (problem) throw validationError([{ field: 'email', code: 'email', message: problem }]);
    const ip = input.ip ?? 'unknown';
    const place = await repo.reserveAddressAttempt(db, ip, IP_FAILURE_WINDOW_SECONDS);
    if (place.attempts > IP_FAILURE_LIMIT) {
      throw tooMany('too many requests from this address: try again later', place.secondsLeft);
    }
    await db.transaction().execute(async (trx) => {
      await enqueueMail(trx, { kind: 'forgot_password', email, ip });
      await insertAudit(trx, { merchantId: null, userId: null, actor: email, action: 'password_reset_requested', ip });
    });
    return true;
  }

  async function setTeamRule(merchantId: number, required: boolean, a: Actor, detail?: Record<string, unknown>) {
    await db.transaction().execute(async (trx) => {
      await repo.setTeamRequiresTotp(trx, merchantId, required);
      await insertAudit(trx, { merchantId, userId: a.userId, actor: a.actor, action: required ? 'team_totp_required' : 'team_totp_optional', detail, ip: a.ip });
    });
  }

  let preKey: Promise<Buffer> | undefined;

  return {
    audit,
    /** The key of the pre-sign-in form tokens (web-session.ts), read once. */
    preSignInKey: () => (preKey ??= repo.webKey(db, 'pre_sign_in', crypto.randomBytes(32)).catch((err) => {
      preKey = undefined;
      throw err;
    })),
    invite,
    invitation,
    acceptInvitation,
    issuePasswordReset,
    requestPasswordReset,
    passwordReset,
    completePasswordReset,
    teamRequiresTotp: (merchantId: number) => repo.teamRequiresTotp(db, merchantId),

    /** An owner's rule for the team: everyone signs in with an authenticator. The owner sets one up first. */
    async setTeamRequiresTotp(user: SessionUser, required: boolean, a: Actor) {
      if (user.merchant_id === null) throw notFound();
      if (required && !user.totp_enabled) {
        throw validationError([{ field: 'require_totp', code: 'state', message: 'set up your own authenticator first (Your account), then require one of the team' }]);
      }
      await setTeamRule(user.merchant_id, required, a);
    },

    /** An operator's setting of a team's rule (console): operators always have an authenticator themselves. */
    async setTeamRequiresTotpAsOperator(merchantId: number, required: boolean, a: Actor) {
      if (!(await base.merchants.exists(merchantId))) throw notFound();
      await setTeamRule(merchantId, required, a, { by_operator: true });
    },
    signIn,
    authenticate,

    async signOut(user: SessionUser, a: Actor) {
      await repo.revokeSession(db, user.sessionHash);
      await audit(a, 'signed_out', user.merchant_id);
    },

    async signOutEverywhere(user: SessionUser, a: Actor) {
      const n = await repo.revokeUserSessions(db, user.id);
      await audit(a, 'signed_out_everywhere', user.merchant_id, { sessions: n });
    },

    /**
     * TOTP enrolment, step 1: a new secret, stored but not active until confirmed with a code. Only
     * while no authenticator is on: replacing one means turning it off first, which asks for the
     * password and is audited (a set-up must never switch the second factor off by itself).
     */
    async startTotp(user: SessionUser) {
      const secret = newTotpSecret();
      if (!(await repo.startTotpSetup(db, user.id, secret))) {
        throw validationError([{ field: 'totp', code: 'state', message: 'an authenticator is already on: turn it off first (with your password and a code) to set up another one' }]);
      }
      return { secret, uri: otpauthUri(secret, user.email) };
    },

    async confirmTotp(user: SessionUser, code: string, a: Actor) {
      const row = await repo.findUser(db, user.id);
      if (!row?.totp_secret || row.totp_enabled) throw validationError([{ field: 'code', code: 'state', message: 'start the set-up of an authenticator first' }]);
      const step = matchTotp(row.totp_secret, code.trim(), clock.now().getTime(), Number(row.totp_last_step));
      if (step === undefined) throw validationError([{ field: 'code', code: 'totp', message: 'the code does not match: check the clock of the device' }]);
      await repo.setTotp(db, user.id, { totp_secret: row.totp_secret, totp_enabled: true, totp_last_step: step });
      await audit(a, 'totp_enabled', user.merchant_id);
    },

    /**
     * Turns the authenticator off: asks for the password and a current code of the authenticator
     * (recheck: counted and audited like sign-in). Without an authenticator on there is nothing to
     * turn off: a clear error before any password is looked at.
     */
    async disableTotp(user: SessionUser, input: { password: string; code: string }, a: Actor) {
      if (user.totp_required) {
        throw validationError([{ field: 'totp', code: 'required', message: user.role === 'operator' ? 'operators always sign in with an authenticator: it cannot be turned off' : 'your team requires an authenticator: it cannot be turned off' }]);
      }
      if (!user.totp_enabled) throw validationError([{ field: 'totp', code: 'state', message: 'no authenticator is on: there is nothing to turn off' }]);
      await recheck(user, { ...input, withCode: true }, a, 'totp_disable');
      await repo.setTotp(db, user.id, { totp_secret: null, totp_enabled: false });
      await audit(a, 'totp_disabled', user.merchant_id);
    },

    listSessions: (userId: number) => repo.listSessions(db, userId),
    listUsers: (merchantId: number | null) => repo.listUsers(db, merchantId),

    /**
     * Disables a user of the given merchant (null: an operator): in one transaction its sessions and
     * its unused links (password reset, invitation) end, for good (disabled_at: enabling the user
     * again brings none of them back, nor a mail job queued before).
     */
    async setUserDisabled(merchantId: number | null, userId: number, disabled: boolean, a: Actor) {
      const u = await repo.findUser(db, userId);
      if (!u || u.merchant_id !== merchantId) throw notFound();
      if (u.id === a.userId) throw validationError([{ field: 'user', code: 'self', message: 'you cannot disable your own account' }]);
      await tables(db).transaction().execute(async (trx) => {
        await repo.setDisabled(trx, userId, disabled);
        if (disabled) {
          await repo.revokeUserSessions(trx, userId);
          await repo.endUserLinks(trx, userId);
        }
        await insertAudit(trx, { merchantId, userId: a.userId, actor: a.actor, action: disabled ? 'user_disabled' : 'user_enabled', detail: { email: u.email }, ip: a.ip });
      });
    },

    listAudit: (opts: { merchantId?: number; before?: number; limit: number }) => repo.listAudit(db, opts),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
