// The request log recorder: the merchant API's answers are noted in memory after they are sent
// (an onSend hook reads the error body, nothing waits) and written in batches — one INSERT per
// FLUSH_MS or per BATCH rows — so the API's hot path pays a push to an array. A buffer past
// MAX_BUFFERED (the database is down or slow) drops the newest entries and counts them: the log
// is a convenience, never a reason to hold memory or slow answers. Pruned by age every hour.
// Identical "not modified" answers (same merchant, key, client and request line) noted before one
// flush are one entry with their count (`repeats`): a merchant polling its catalogue pages with
// If-None-Match would otherwise write a row per poll for answers that say nothing new.
// Credentials a client put in the URL, and any its error answer quotes, are masked before the entry
// is buffered (src/domain/redaction.ts, the access log's rule): the table never holds them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fieldOf } from '../../http/typed-routes.js';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import { normaliseIp } from '../../http/client-ip.js';
import { insertBatch, pruneOlderThan, type RequestLogEntry } from './request-log-repo.js';
import { pacer } from '../../jobs/pacing.js';
import { maskText, maskUrl } from '../../domain/redaction.js';

const FLUSH_MS = 1000;
const BATCH = 500;
const MAX_BUFFERED = 20_000;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5000;
const MAX_ERROR_BODY = 2048;
const MAX_PATH = 500;

interface Answered {
  id: string;
  method: string;
  url: string;
  ip: string;
  merchant: { id: number; api_key_prefix: string };
  statusCode: number;
  responseTime: number;
}

export interface RequestLogRecorder {
  /** The merchant API's onSend hook: notes the answer (with its body when it is an error). */
  onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void;
  /** Notes an answer sent without Fastify's hooks (the catalogue's 304 lane). */
  note(a: Answered): void;
  /** Writes what is buffered now. */
  flush(): Promise<void>;
  /** Deletes the entries older than REQUEST_LOG_DAYS (hourly on its own); returns how many. */
  prune(): Promise<number>;
  stop(): Promise<void>;
  /** Entries dropped because the buffer was full. */
  dropped(): number;
}

function merchantTxIdOf(request: FastifyRequest): string | null {
  const fromBody = fieldOf(request.body, 'merchant_tx_id');
  if (typeof fromBody === 'string') return fromBody.slice(0, 128);
  const fromQuery = fieldOf(request.query, 'merchant_tx_id');
  return typeof fromQuery === 'string' ? fromQuery.slice(0, 128) : null;
}

/** The answer of a failed request as stored: its first MAX_ERROR_BODY characters, credentials masked. */
function errorBodyOf(status: number, payload: unknown): string | null {
  if (status < 400) return null;
  const text = typeof payload === 'string' ? payload.slice(0, MAX_ERROR_BODY) : Buffer.isBuffer(payload) ? payload.toString('utf8', 0, MAX_ERROR_BODY) : null;
  return text === null ? null : maskText(text);
}

/** `busyPercent`: RETENTION_BUSY_PERCENT, the prune's pacing (src/jobs/pacing.ts). */
export function createRequestLogRecorder(deps: { db: Db; log: Logger; days: number; busyPercent: number }): RequestLogRecorder {
  const { db, log, days } = deps;
  let buffer: RequestLogEntry[] = [];
  /** The 304 entries of `buffer`, by what makes two of them identical. */
  let notModified = new Map<string, RequestLogEntry>();
  let droppedCount = 0;
  let writing: Promise<void> = Promise.resolve();
  const enabled = days > 0;

  function push(e: RequestLogEntry) {
    let sameKey: string | undefined;
    if (e.status === 304) {
      sameKey = `${e.merchantId} ${e.keyPrefix} ${e.clientIp} ${e.method} ${e.path}`;
      const same = notModified.get(sameKey);
      if (same) {
        same.repeats++;
        return;
      }
    }
    if (buffer.length >= MAX_BUFFERED) {
      droppedCount++;
      return;
    }
    buffer.push(e);
    if (sameKey !== undefined) notModified.set(sameKey, e);
    if (buffer.length >= BATCH) void flush();
  }

  function flush(): Promise<void> {
    if (buffer.length === 0) return writing;
    const rows = buffer;
    buffer = [];
    notModified = new Map();
    writing = writing.then(async () => {
      for (let i = 0; i < rows.length; i += BATCH) {
        try {
          await insertBatch(db, rows.slice(i, i + BATCH));
        } catch (err) {
          if (!noteDatabaseError(db, err)) log.warn({ err, rows: rows.length - i }, 'request log batch not recorded');
          return;
        }
      }
    });
    return writing;
  }

  const timer = enabled ? setInterval(() => void flush(), FLUSH_MS) : undefined;
  timer?.unref();
  // A paced prune can outlast the hour between two: one at a time; stop() ends it between batches.
  const stopping = new AbortController();
  let pruning: Promise<number> | undefined;
  async function pruneBatches(): Promise<number> {
    const pace = pacer(deps.busyPercent, stopping.signal);
    let total = 0;
    try {
      for (;;) {
        const n = await pruneOlderThan(db, days, PRUNE_BATCH);
        total += n;
        if (n < PRUNE_BATCH || !(await pace.next())) break;
      }
    } catch (err) {
      log.warn({ err }, 'request log prune failed');
    }
    return total;
  }
  function prune(): Promise<number> {
    pruning ??= pruneBatches().finally(() => (pruning = undefined));
    return pruning;
  }
  const pruner = enabled ? setInterval(() => void prune(), PRUNE_EVERY_MS) : undefined;
  pruner?.unref();

  return {
    onSend(request, reply, payload, done) {
      const m = (request as { merchant?: { id: number; api_key_prefix: string } }).merchant;
      if (enabled && m) {
        const status = reply.statusCode;
        push({
          merchantId: m.id,
          at: new Date(),
          method: request.method,
          path: maskUrl(request.url).slice(0, MAX_PATH),
          status,
          durationMs: Math.round(reply.elapsedTime),
          requestId: String(request.id),
          keyPrefix: m.api_key_prefix,
          clientIp: normaliseIp(request.ip),
          merchantTxId: merchantTxIdOf(request),
          repeats: 1,
          errorBody: errorBodyOf(status, payload),
        });
      }
      done(null, payload);
    },
    note(a) {
      if (!enabled) return;
      push({
        merchantId: a.merchant.id, at: new Date(), method: a.method, path: maskUrl(a.url).slice(0, MAX_PATH), status: a.statusCode, durationMs: Math.round(a.responseTime),
        requestId: a.id, keyPrefix: a.merchant.api_key_prefix, clientIp: normaliseIp(a.ip), merchantTxId: null, errorBody: null, repeats: 1,
      });
    },
    flush,
    prune: () => (enabled ? prune() : Promise.resolve(0)),
    async stop() {
      if (timer) clearInterval(timer);
      if (pruner) clearInterval(pruner);
      stopping.abort();
      await pruning;
      await flush();
    },
    dropped: () => droppedCount,
  };
}
