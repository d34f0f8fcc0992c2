// The e-mails of accounts. At each attempt of a mail job the user is read again and a
// fresh one-time link minted (only its hash stored; the user's older links end), so no link ever
// waits in a job payload; `undo` ends the link when the send fails, so only a delivered link works.
// Nothing but the link is secret in a letter.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { randomSecret, sha256Hex } from '../../domain/secrets.js';
import * as repo from '../accounts/accounts-repo.js';
import { INVITATION_TTL_SECONDS, PASSWORD_RESET_TTL_SECONDS } from '../accounts/accounts-service.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import type { Letter } from './mailer.js';
import type { MailJob } from '../accounts/account-mail-jobs.js';

/** A self-service request sends at most one link per account in this time (a mailbox is not flooded). */
export const FORGOT_COOLDOWN_SECONDS = 60;

export interface MintedLetter extends Letter {
  userId: number;
  merchantId: number | null;
  undo: () => Promise<void>;
}

/** What letters need of merchants: the team's name (the assembly passes the merchant service). */
export interface MailMerchants {
  findRow(merchantId: number): Promise<MerchantRow | undefined>;
}

const until = (d: Date | string) => `${new Date(d).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The letter of a job with its link minted, or undefined when there is nothing to send (any more). */
export async function letterFor(deps: { db: Db; config: Pick<Config, 'publicUrl'>; merchants: MailMerchants }, job: MailJob): Promise<MintedLetter | undefined> {
  const { db, config } = deps;
  const u = job.kind === 'forgot_password' ? await repo.findUserByEmail(db, job.email) : await repo.findUser(db, job.user_id);
  if (!u || u.disabled) return undefined;
  // Disabled since this was asked for: what was asked before a disable never comes, even once enabled.
  if (u.disabled_at !== null && (job.at === undefined || job.at <= new Date(u.disabled_at).getTime())) return undefined;
  const site = config.publicUrl;
  if (job.kind === 'invitation') {
    if (u.password_hash !== null) return undefined; // accepted meanwhile
    const merchant = u.merchant_id === null ? undefined : await deps.merchants.findRow(u.merchant_id);
    const where = merchant ? `the team of ${merchant.name}` : 'the operators';
    if (u.account_elsewhere) {
      // The address already has an account: it is told so (it holds that account), and gets no link.
      return {
        to: u.email,
        subject: merchant ? `You are invited to ${merchant.name} on the skin trading gateway` : 'You are invited to the skin trading gateway',
        text: `${job.by} invited you (${u.email}) to ${where} on the skin trading gateway at ${site}, as ${u.role}.\n\n`
          + 'This address already has an account on this gateway, and an address belongs to one account only, so this invitation cannot be accepted with it. '
          + `To join, ask ${job.by} to invite another address of yours. Nobody was told that this address has an account.\n\n`
          + 'If you did not expect this, ignore this e-mail: nothing changes for your account.\n',
        userId: u.id,
        merchantId: u.merchant_id,
        undo: async () => {},
      };
    }
    const token = randomSecret('inv_');
    const inv = await repo.insertInvitation(db, { userId: u.id, tokenHash: sha256Hex(token), invitedBy: job.by, ttlSeconds: INVITATION_TTL_SECONDS });
    if (!inv) return undefined; // disabled meanwhile
    return {
      to: u.email,
      subject: merchant ? `You are invited to ${merchant.name} on the skin trading gateway` : 'You are invited as an operator of the skin trading gateway',
      text: `${job.by} invited you (${u.email}) to ${where} on the skin trading gateway at ${site}, as ${u.role}.\n\n`
        + `Choose a password to activate the account (the link works once, until ${until(inv.expires_at)}):\n\n${site}/dashboard/invite/${token}\n\n`
        + 'If you did not expect this, ignore this e-mail: no account is activated without the link.\n',
      userId: u.id,
      merchantId: u.merchant_id,
      undo: () => repo.voidInvitation(db, inv.id),
    };
  }
  if (u.password_hash === null) return undefined; // not activated: an invitation is what it needs
  if (job.kind === 'forgot_password' && (await repo.hasRecentPasswordReset(db, u.id, FORGOT_COOLDOWN_SECONDS))) return undefined;
  const token = randomSecret('pwr_');
  const r = await repo.insertPasswordReset(db, { userId: u.id, tokenHash: sha256Hex(token), issuedBy: job.kind === 'forgot_password' ? 'self-service' : job.by, ttlSeconds: PASSWORD_RESET_TTL_SECONDS });
  if (!r) return undefined; // disabled meanwhile
  const who = job.kind === 'forgot_password' ? 'Someone (you, we hope) asked on the sign-in page' : `${job.by} asked`;
  return {
    to: u.email,
    subject: 'Choose a new password for the skin trading gateway',
    text: `${who} for a new password for your account (${u.email}) at ${site}.\n\n`
      + `Choose a new password here (the link works once, until ${until(r.expires_at)}; every signed-in session of the account ends):\n\n${site}/dashboard/reset/${token}\n\n`
      + 'If you did not ask for this, ignore this e-mail: your password stays as it is.\n',
    userId: u.id,
    merchantId: u.merchant_id,
    undo: () => repo.voidPasswordReset(db, r.id),
  };
}
