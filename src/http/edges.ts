// The edges of HTTP that never reach a route: connection timeouts, errors Node's parser raises
// (malformed request, headers too large, request timeout), router errors (bad URL encoding, a
// path parameter too long), and strings no route may take. All answer in the envelope with an
// x-request-id, like every other answer.
import crypto from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError, validationError } from './errors.js';
import { bodyIsOptional, inexactNumberIn } from './json-body.js';
import type { Config } from '../config.js';

type TimeoutSettings = Pick<Config, 'httpRequestTimeoutMs' | 'httpHeadersTimeoutMs' | 'httpIdleTimeoutMs' | 'httpKeepAliveTimeoutMs'>;

/** Fastify and Node server options for the timeouts (slow clients cannot hold connections). */
export function timeoutOptions(c: TimeoutSettings): Pick<FastifyServerOptions, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout'> & {
  http: http.ServerOptions;
} {
  const requestTimeout = c.httpRequestTimeoutMs;
  return {
    requestTimeout,
    connectionTimeout: c.httpIdleTimeoutMs,
    keepAliveTimeout: c.httpKeepAliveTimeoutMs,
    http: {
      requestTimeout,
      // Node refuses a headers timeout above the request timeout.
      headersTimeout: Math.min(c.httpHeadersTimeoutMs, requestTimeout),
      // Node checks both deadlines on this interval (30 s by default): check often enough to honour them.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(c.httpHeadersTimeoutMs, requestTimeout) / 4))),
    },
  };
}

function envelope(message: string): string {
  return JSON.stringify({ success: false, message });
}

/** Node's parser errors (before Fastify sees a request): written straight to the socket, then closed. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'malformed HTTP request';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'request timeout: the request was not received in time';
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'request headers too large';
  }
  const body = envelope(message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${crypto.randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Router errors Fastify reports outside the routes. */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [status, message] =
    err.code === 'FST_ERR_BAD_URL'
      ? [400, 'invalid URL: bad percent-encoding']
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? [414, 'URI too long']
        : [400, 'invalid request'];
  reply.header('x-request-id', request.id).code(status).send({ success: false, message });
}

/**
 * When an answer goes out before the request body was read (401 on a merchant route, 413, a
 * refusal in onRequest), stop reading: close the connection once the answer is written, so a
 * client trickling a body cannot hold it.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  const announced = raw.headers['content-length'] !== undefined || raw.headers['transfer-encoding'] !== undefined;
  if (!announced || raw.complete) return;
  reply.header('connection', 'close');
  reply.raw.once('finish', () => raw.socket?.destroySoon?.());
}

const NUL_MESSAGE = 'NUL characters (U+0000) are not allowed';
const SURROGATE_MESSAGE = 'lone UTF-16 surrogates (\\ud800-\\udfff) are not allowed';
// String.prototype.isWellFormed (V8 ≥ 11.3, Node 20): false exactly when a lone surrogate is present.
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

function badString(s: string): string | undefined {
  return s.includes('\u0000') ? NUL_MESSAGE : isWellFormed(s) ? undefined : SURROGATE_MESSAGE;
}

/**
 * Path of the first string that cannot be stored or compared safely: U+0000 or a lone surrogate.
 * Runs on every request over body, query and params (2 000-name bodies included): paths are only
 * built on a hit.
 */
export function findBadString(value: unknown, path: string, depth = 0): { path: string; message: string } | undefined {
  if (typeof value === 'string') {
    const message = badString(value);
    return message ? { path, message } : undefined;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'string') {
        const message = badString(v);
        if (message) return { path: `${path}[${i}]`, message };
      } else if (v !== null && typeof v === 'object') {
        const hit = findBadString(v, `${path}[${i}]`, depth + 1);
        if (hit) return hit;
      }
    }
    return undefined;
  }
  for (const k in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    const keyMessage = badString(k);
    if (keyMessage) return { path: path ? `${path}.${k}` : k, message: keyMessage };
    if (typeof v === 'string') {
      const message = badString(v);
      if (message) return { path: path ? `${path}.${k}` : k, message };
    } else if (v !== null && typeof v === 'object') {
      const hit = findBadString(v, path ? `${path}.${k}` : k, depth + 1);
      if (hit) return hit;
    }
  }
  return undefined;
}

/**
 * True when the query string has a percent-encoding that is not valid UTF-8 (`%ff`, `%ED%A0%80`).
 * The query parser would turn it into U+FFFD silently, so `a%ff` and `a%fe` would name the same id.
 */
export function hasBadQueryEncoding(url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('%', q)) return false;
  for (const part of url.slice(q + 1).split(/[&=]/)) {
    try {
      decodeURIComponent(part);
    } catch {
      return true;
    }
  }
  return false;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies must be valid UTF-8. The default parser decodes bytes leniently (0xff → U+FFFD), so
 * two different byte strings would become the same merchant_tx_id or reference. Parsing itself
 * (and its prototype-poisoning guard) stays Fastify's.
 */
export function useStrictJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      done(new AppError('validation', 'invalid request body: not valid UTF-8'), undefined);
      return;
    }
    // Many clients send Content-Type: application/json on every POST: no body where none is required is {}.
    if (text === '' && bodyIsOptional(request)) return done(null, {});
    parseJson(request, text, (err, value) => {
      // A number JSON.parse would round (money included) is refused with its field, never rounded.
      const inexact = err ? undefined : inexactNumberIn(text);
      if (inexact) return done(validationError([{ field: inexact.field, code: 'numeric', message: `${inexact.field}: ${inexact.token} has more digits than a number keeps exactly (send at most 15 significant digits)` }]), undefined);
      done(err, value);
    });
  });
}
