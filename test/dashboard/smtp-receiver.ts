// A real SMTP receiver over TCP for the mail tests (smtp-server): plain SMTP on 127.0.0.1 with
// AUTH (user and password of the gateway's SMTP_URL), no STARTTLS; every message kept, its body
// decoded (quoted-printable), with the one-time link it carries.
import net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
  /** The one-time link of the message (reset or invitation), if any. */
  link?: string;
}

export const SMTP_USER = 'gateway-mailer';
export const SMTP_PASS = 'smtp-Pa55word-never-logged';

function decode(raw: string): { subject: string; text: string } {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  let body = rest.join('\n\n');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) {
    body = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  const subject = /^subject: (.*(?:\r?\n[ \t].*)*)/im.exec(head)?.[1].replace(/\r?\n[ \t]/g, ' ') ?? '';
  return { subject, text: body };
}

export interface SmtpReceiver {
  port: number;
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/** Starts the receiver (on `port` when given: a test that first has no server there). */
export async function startSmtpReceiver(port = 0, failAuth = 0): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  let refusals = failAuth;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (refusals > 0 || auth.username !== SMTP_USER || auth.password !== SMTP_PASS) {
        refusals--;
        return cb(new Error('Invalid username or password'));
      }
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const { subject, text } = decode(raw);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push({ from, to: session.envelope.rcptTo.map((r) => r.address), subject, text, raw, link: /https?:\/\/\S+\/dashboard\/(?:reset|invite)\/\S+/.exec(text)?.[0] });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as net.AddressInfo).port;
  return {
    port: bound,
    url: `smtp://${SMTP_USER}:${SMTP_PASS}@127.0.0.1:${bound}`,
    mails,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A port with nothing listening (taken and given back). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
