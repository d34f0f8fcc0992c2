// One e-mail over SMTP (nodemailer), with the settings' timeouts: SMTP_URL smtp://user:pass@host:port
// (STARTTLS when offered) or smtps:// (TLS from the start). Plain text only. An error is re-thrown
// with a message that names the failure but carries no link (graphile-worker logs it).
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../../config.js';

export interface Letter {
  to: string;
  subject: string;
  text: string;
}

export type SendMail = (letter: Letter) => Promise<void>;

/** One-time link tokens (reset, invitation) masked in any text. */
export const maskLinkTokens = (text: string) => text.replace(/\b(pwr|inv)_[\w-]+/g, '$1_***');

export function createMailer(s: SmtpSettings): SendMail {
  const transport = nodemailer.createTransport({
    url: s.url,
    connectionTimeout: s.timeoutMs,
    greetingTimeout: s.timeoutMs,
    socketTimeout: s.timeoutMs,
    logger: false,
    debug: false,
  });
  return async (letter) => {
    try {
      await transport.sendMail({ from: s.from, to: letter.to, subject: letter.subject, text: letter.text, disableFileAccess: true, disableUrlAccess: true });
    } catch (err) {
      const e = err as Error & { code?: string; responseCode?: number };
      throw new Error(maskLinkTokens(`SMTP send failed (${e.code ?? 'error'}${e.responseCode ? ` ${e.responseCode}` : ''}): ${e.message}`));
    }
  };
}
