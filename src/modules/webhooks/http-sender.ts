// One HTTP attempt: POST the body to the target, connecting only to pre-vetted addresses
// (a custom `lookup` answers from them, so DNS is not asked again and cannot be rebound),
// no redirects, a hard deadline for the whole exchange, and at most a small excerpt of the answer.
// The outcome is the status code, known as soon as the response headers arrive: a receiver that
// answers 2xx and then never finishes its body has acknowledged (the excerpt is what arrived by the
// deadline).
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './target.js';

export const RESPONSE_EXCERPT_BYTES = 1024;

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  addresses: ResolvedAddress[];
  /** Deadline of the whole attempt, counted from `startedAt` (the name lookup before it included). */
  timeoutMs: number;
  /** performance.now() when the attempt began; defaults to now. Latency is measured from it too. */
  startedAt?: number;
}

export interface SendResult {
  statusCode: number | null;
  headers: http.IncomingHttpHeaders;
  excerpt: string | null;
  error: string | null;
  latencyMs: number;
}

function excerptOf(chunks: Buffer[], size: number): string | null {
  return size ? Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') : null;
}

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_host: string, opts: { all?: boolean } | number | undefined, cb: (...args: unknown[]) => void) => {
    if (typeof opts === 'object' && opts?.all) cb(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else cb(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

export function sendWebhook(input: SendInput): Promise<SendResult> {
  const started = input.startedAt ?? performance.now();
  const url = new URL(input.url);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: Math.round(performance.now() - started) });
    };
    const req = mod.request(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
        lookup: pinnedLookup(input.addresses),
        agent: false, // a fresh connection per attempt: no pooled socket to a previously vetted address
      },
      (res) => {
        // Headers are in: the status code decides the attempt. The body is read only for the
        // excerpt, until it ends, 1 KiB has arrived, or the deadline.
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          finish({ statusCode: res.statusCode ?? null, headers: res.headers, excerpt: excerptOf(chunks, size), error: null });
          res.destroy();
          req.destroy();
        };
        onDeadline = done;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          if (size >= RESPONSE_EXCERPT_BYTES) done(); // enough: the rest is not read
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    let onDeadline: (() => void) | undefined;
    const timer = setTimeout(
      () => {
        if (onDeadline) return onDeadline(); // the answer is known; its body is just slow
        finish({ statusCode: null, headers: {}, excerpt: null, error: `timeout after ${input.timeoutMs} ms` });
        req.destroy();
      },
      Math.max(0, started + input.timeoutMs - performance.now()),
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ statusCode: null, headers: {}, excerpt: null, error: err.code ? `${err.code}: ${err.message}` : err.message });
    });
    req.end(input.body);
  });
}
