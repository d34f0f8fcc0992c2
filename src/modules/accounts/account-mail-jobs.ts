// The mail job of accounts (its letters: invitations and password resets; mail/ renders and sends
// them): every e-mail is sent by the job worker, never by a page, so a slow or
// absent mail server costs no request anything; graphile-worker retries a failed send with its
// exponential backoff (MAIL_MAX_ATTEMPTS attempts: about 3.5 hours). A payload never carries a
// secret: the one-time link is minted by the handler at each attempt (mail/letters.ts), so it exists only
// as a hash in the database and in the e-mail itself.
import crypto from 'node:crypto';
import type { Db, Trx } from '../../db/database.js';
import { addJob, idField, stringField } from '../../jobs/enqueue.js';

export const MAIL_TASK = 'mail_send';
export const MAIL_MAX_ATTEMPTS = 10;

export type MailJob = (
  /** A reset link issued by an owner or an operator (dashboard team page, console). */
  | { kind: 'password_reset'; user_id: number; by: string }
  /** "Forgot your password?" on the sign-in page: the address is resolved by the job, never by the page. */
  | { kind: 'forgot_password'; email: string; ip: string | null }
  /** An invitation (dashboard team page, console). */
  | { kind: 'invitation'; user_id: number; by: string }
) & {
  /**
   * When it was asked for (ms since the epoch; set by enqueueMail): a user disabled since gets no
   * link from it, even once enabled again (mail/letters.ts). Absent in a job queued before it existed.
   */
  at?: number;
};

declare global {
  namespace GraphileWorker {
    interface Tasks {
      mail_send: MailJob;
    }
  }
}

/** One waiting mail per user and purpose (a repeated request replaces it: one live link at a time). */
export function mailJobKey(job: MailJob): string {
  if (job.kind === 'forgot_password') return `mail:forgot:${crypto.createHash('sha256').update(job.email.toLowerCase()).digest('hex').slice(0, 32)}`;
  return `mail:${job.kind}:${job.user_id}`;
}

/** Adds the mail job in the caller's transaction (the job outbox): it exists only if that commits. */
export function enqueueMail(db: Db | Trx, job: MailJob): Promise<void> {
  // A self-service request keeps the waiting job's time (repeating it does not postpone the mail).
  return addJob(db, MAIL_TASK, { ...job, at: job.at ?? Date.now() }, { jobKey: mailJobKey(job), jobKeyMode: job.kind === 'forgot_password' ? 'preserve_run_at' : 'replace', maxAttempts: MAIL_MAX_ATTEMPTS });
}

/** A stored payload, checked (it is read back from the database). */
export function parseMailJob(payload: unknown): MailJob | undefined {
  const kind = stringField(payload, 'kind');
  const rawAt = typeof payload === 'object' && payload !== null ? (payload as { at?: unknown }).at : undefined;
  const at = typeof rawAt === 'number' && Number.isFinite(rawAt) ? { at: rawAt } : {};
  if (kind === 'forgot_password') {
    const email = stringField(payload, 'email');
    return email ? { kind, email, ip: stringField(payload, 'ip') ?? null, ...at } : undefined;
  }
  if (kind !== 'password_reset' && kind !== 'invitation') return undefined;
  const userId = idField(payload, 'user_id');
  return userId ? { kind, user_id: userId, by: stringField(payload, 'by') ?? 'unknown', ...at } : undefined;
}
