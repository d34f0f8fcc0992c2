// A real HTTP receiver on 127.0.0.1 for webhook tests, plus independent signature verifiers
// written straight from the spec with node:crypto (not the gateway's own signing code).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

export type Reply =
  | {
      status: number;
      headers?: Record<string, string>;
      body?: string;
      /** Answer only once this settles (an attempt held in flight). */
      until?: Promise<unknown>;
      /** Send the headers and `body` (default "partial"), then never end the response. */
      neverEnd?: boolean;
    }
  | 'hang';

export interface Receiver {
  port: number;
  url(path?: string): string;
  received: Received[];
  /** Decides the answer to the n-th request (0-based) on a path; default 200. */
  respond: (req: Received, n: number) => Reply;
  on(path: string): Received[];
  /** TCP connections accepted so far (keep-alive reuses them). */
  connections(): number;
  close(): Promise<void>;
}

export async function startReceiver(port = 0, respond?: Receiver['respond']): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const path = req.url ?? '/';
      const r: Received = { path, headers: req.headers, raw, body, at: Date.now() };
      const n = received.filter((x) => x.path === path).length;
      received.push(r);
      const reply = rx.respond(r, n);
      if (reply === 'hang') return; // never answer: the sender must time out
      void (async () => {
        if (reply.until) await reply.until.catch(() => {});
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...(reply.headers ?? {}) });
        if (reply.neverEnd) res.write(reply.body ?? 'partial'); // headers and a first chunk, no end
        else res.end(reply.body ?? 'ok');
      })();
    });
  });
  let accepted = 0;
  server.on('connection', (s) => {
    accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const rx: Receiver = {
    port: actual,
    url: (path = '/hook') => `http://127.0.0.1:${actual}${path}`,
    received,
    respond: respond ?? (() => ({ status: 200 })),
    on: (path) => received.filter((r) => r.path === path),
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return rx;
}

/** A port that nothing listens on (for "receiver down"). */
export async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Spec 6.1 / 6.2: sign = base64(sha256(String(id) + secret)). */
export function verifySpecSign(body: any, secret: string): boolean {
  const id = body.trade_id ?? body.purchase_id;
  const expected = crypto.createHash('sha256').update(`${id}${secret}`).digest('base64');
  return typeof body.sign === 'string' && body.sign === expected;
}

/**
 * Standard Webhooks: HMAC-SHA256 keyed with the bytes after `whsec_` (base64url-decoded) over
 * "<webhook-id>.<webhook-timestamp>.<raw body>", header "v1,<base64>" (space-separated list).
 */
export function verifyStandard(r: Received, secret: string, toleranceSec = 300): boolean {
  const id = r.headers['webhook-id'] as string;
  const ts = r.headers['webhook-timestamp'] as string;
  const sigs = String(r.headers['webhook-signature'] ?? '').split(' ');
  if (!id || !ts || Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSec) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64url');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${ts}.${r.raw}`).digest();
  return sigs.some((s) => {
    const [v, b64] = s.split(',');
    if (v !== 'v1' || !b64) return false;
    const got = Buffer.from(b64, 'base64');
    return got.length === expected.length && crypto.timingSafeEqual(got, expected);
  });
}
