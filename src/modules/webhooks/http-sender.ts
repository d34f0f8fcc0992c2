// One HTTP attempt: POST the body to the target, connecting only to pre-vetted addresses
// (a custom `lookup` answers from them, so DNS is not asked again and cannot be rebound),
// no redirects, a hard deadline for the whole exchange, and at most a small excerpt of the answer.
// The outcome is the status code, known as soon as the response headers arrive: a receiver that
// answers 2xx and then never finishes its body has acknowledged (the excerpt is what arrived by the
// deadline).
//
// Connections are kept alive per target when the caller passes `agents`: one agent per origin AND
// set of vetted addresses, so a pooled socket is only reused while the name still resolves to the
// very addresses it was opened to (a changed or newly refused address gets a new agent, or none).
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './target.js';

export const RESPONSE_EXCERPT_BYTES = 1024;
/** Idle pooled sockets are closed after this: below the 5 s keep-alive of common servers (Node's). */
const IDLE_SOCKET_MS = 4_000;

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  addresses: ResolvedAddress[];
  /** Deadline of the whole attempt, counted from `startedAt` (the name lookup before it included). */
  timeoutMs: number;
  /** performance.now() when the attempt began; defaults to now. Latency is measured from it too. */
  startedAt?: number;
  /** Keep-alive connections per target; without it a fresh connection per attempt. */
  agents?: AgentPool;
}

export interface SendResult {
  statusCode: number | null;
  headers: http.IncomingHttpHeaders;
  excerpt: string | null;
  error: string | null;
  latencyMs: number;
}

/** Keep-alive agents keyed by origin and vetted addresses. */
export class AgentPool {
  private readonly agents = new Map<string, http.Agent>();

  get(url: URL, addresses: ResolvedAddress[]): http.Agent {
    const key = `${url.protocol}//${url.host}|${addresses.map((a) => a.address).join(',')}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
      agent = new Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Drops agents that hold no socket (targets not seen lately). */
  prune(): void {
    for (const [key, a] of this.agents) {
      const busy = [a.sockets, a.freeSockets, a.requests].some((m) => Object.keys(m).length > 0);
      if (!busy) {
        a.destroy();
        this.agents.delete(key);
      }
    }
  }

  get size(): number {
    return this.agents.size;
  }

  destroy(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
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
  const agent = input.agents ? input.agents.get(url, input.addresses) : false;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let onDeadline: (() => void) | undefined;
    let current: http.ClientRequest | undefined;
    const finish = (r: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: Math.round(performance.now() - started) });
    };
    const attempt = (retried: boolean) => {
      const req = mod.request(
        {
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
          lookup: pinnedLookup(input.addresses),
          agent,
        },
        (res) => {
          // Headers are in: the status code decides the attempt. The body is read only for the
          // excerpt, until it ends (the socket then goes back to the pool), 1 KiB has arrived, or
          // the deadline (then the socket is closed: it cannot be reused mid-body).
          const chunks: Buffer[] = [];
          let size = 0;
          const result = () => ({ statusCode: res.statusCode ?? null, headers: res.headers, excerpt: excerptOf(chunks, size), error: null });
          const abandon = () => {
            finish(result());
            res.destroy();
            req.destroy();
          };
          onDeadline = abandon;
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            size += c.length;
            if (size >= RESPONSE_EXCERPT_BYTES) abandon(); // enough: the rest is not read
          });
          res.on('end', () => finish(result()));
          res.on('error', abandon);
          res.on('close', () => finish(result()));
        },
      );
      current = req;
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A pooled socket the server closed as we reused it: the request never reached it. Once,
        // on another connection, within the same deadline.
        if (!retried && !onDeadline && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !settled) return attempt(true);
        finish({ statusCode: null, headers: {}, excerpt: null, error: err.code ? `${err.code}: ${err.message}` : err.message });
      });
      req.end(input.body);
    };
    const timer = setTimeout(
      () => {
        if (onDeadline) return onDeadline(); // the answer is known; its body is just slow
        finish({ statusCode: null, headers: {}, excerpt: null, error: `timeout after ${input.timeoutMs} ms` });
        current?.destroy();
      },
      Math.max(0, started + input.timeoutMs - performance.now()),
    );
    attempt(false);
  });
}
