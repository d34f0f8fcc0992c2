// The mail job's handler: the payload checked, the letter minted (letters.ts), sent over SMTP
// (mailer.ts). A failed send ends the minted link and throws: graphile-worker retries the job.
// Log lines name the kind and the user, never the link.
import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { insertAudit } from '../accounts/audit-log.js';
import { createMailer, type SendMail } from './mailer.js';
import { letterFor, type MailMerchants } from './letters.js';
import { MAIL_TASK, parseMailJob } from '../accounts/account-mail-jobs.js';

export interface MailTaskDeps {
  db: Db;
  log: Logger;
  config: Config;
  merchants: MailMerchants;
}

export function mailTasks(ctx: MailTaskDeps): TaskList {
  let send: SendMail | undefined;
  return {
    [MAIL_TASK]: async (payload) => {
      const job = parseMailJob(payload);
      if (!job) return ctx.log.warn('mail: a job without a valid payload is dropped');
      if (!ctx.config.smtp) return ctx.log.warn({ kind: job.kind }, 'mail: SMTP_URL is not set (any more): the e-mail is dropped');
      send ??= createMailer(ctx.config.smtp);
      const letter = await letterFor(ctx, job);
      if (!letter) return ctx.log.info({ kind: job.kind }, 'mail: nothing to send (unknown, inactive or changed account, or a link sent moments ago)');
      try {
        await send(letter);
      } catch (err) {
        await letter.undo();
        throw err;
      }
      await insertAudit(ctx.db, { merchantId: letter.merchantId, userId: letter.userId, actor: 'mail', action: 'mail_sent', detail: { kind: job.kind, email: letter.to }, ip: job.kind === 'forgot_password' ? job.ip : null });
      ctx.log.info({ kind: job.kind, user_id: letter.userId }, 'mail: sent');
    },
  };
}
