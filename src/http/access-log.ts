// The access log (LOG_REQUESTS): one line per answer at info, written when it is sent, instead of
// Fastify's two (incoming request + request completed). `all` logs every answer, `errors` those
// with status ≥ 400, `off` none. Errors of the reply itself are logged in every mode.
//
// The line of a plain answer is written by hand straight to the logger's destination, in pino's
// own format (level, time, the logger's bindings, then the fields): going through pino's child
// logger and its `req`/`res` serializers cost ≈ 15 µs per answer, a third of a 304 (bench/RESULTS.md).
// The lines of one turn of the event loop go out in one write at the end of the turn (setImmediate,
// and at exit): a write per answer was ≈ 8 µs of a 304. A crash loses at most that turn's lines.
// The 304 lane's answers (a merchant polling its pages) that repeat one another within a turn (same
// merchant, client address, host and URL) are one line: the first's request id, time and response
// time, with "repeats": N, written after the turn's other lines — the request log sums identical
// 304s too (request_logs.repeats, per flush). Building and
// writing a line per poll was ≈ 9 µs of a 304's 36 (bench/RESULTS.md).
// Credentials in the URL are masked (maskUrl, src/domain/redaction.ts: the request log's rule too), as the
// logger's `req` serializer does (server.ts).
import pino, { type Logger } from 'pino';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { maskUrl } from '../domain/redaction.js';

interface LineSink {
  write(line: string): unknown;
}

/** What an access line says of a request (a FastifyRequest has them all). */
export interface AccessFields {
  id: string;
  method: string;
  url: string;
  host: string;
  ip: string;
}

export class AccessLog extends LogController {
  private readonly minStatus: number;
  /** pino's destination and the logger's serialised bindings (`,"pid":…,"hostname":…`), when the logger is pino's. */
  private readonly direct?: { sink: LineSink; bindings: string; enabled: () => boolean };

  /** `quiet`: answers that get no line (the limits' refusals, counted in /metrics instead: rate-limit.ts). */
  constructor(mode: Config['logRequests'], logger?: Logger, private readonly quiet: (reply: FastifyReply) => boolean = () => false) {
    super();
    this.minStatus = mode === 'all' ? 0 : mode === 'errors' ? 400 : Infinity;
    const l = logger as unknown as Record<symbol, unknown> | undefined;
    const sink = l?.[pino.symbols.streamSym] as LineSink | undefined;
    const bindings = l?.[pino.symbols.chindingsSym];
    if (logger && sink && typeof sink.write === 'function' && typeof bindings === 'string') {
      this.direct = { sink, bindings, enabled: () => logger.isLevelEnabled('info') };
    }
  }

  private pending = '';
  /** This turn's repeatable answers by who asked what (answered's `repeatKey`): the first one and how many. */
  private readonly repeats = new Map<string, { request: AccessFields; statusCode: number; responseTime: number; time: number; n: number }>();
  private scheduled = false;
  private readonly flushNow = () => this.flush();

  override incomingRequest(): void {}

  private write(line: string): void {
    this.pending += line;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    unflushed.add(this);
    setImmediate(this.flushNow);
  }

  /** Writes the lines of this turn (called at the end of the turn and at exit). */
  flush(): void {
    this.scheduled = false;
    unflushed.delete(this);
    if (!this.direct) return;
    // Summed lines come last in the turn's write, each with its first answer's time.
    for (const r of this.repeats.values()) this.pending += accessLine(this.direct.bindings, r.request, r.statusCode, r.responseTime, r.n, r.time);
    this.repeats.clear();
    if (!this.pending) return;
    const out = this.pending;
    this.pending = '';
    this.direct.sink.write(out);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    } else if (reply.statusCode >= this.minStatus && !this.quiet(reply)) {
      if (this.direct) {
        if (this.direct.enabled()) this.write(accessLine(this.direct.bindings, request, reply.statusCode, reply.elapsedTime));
      } else {
        reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
      }
    }
  }

  /** Whether an answer of this status gets a line (the lane builds no repeat key when not). */
  keeps(statusCode: number): boolean {
    return statusCode >= this.minStatus && this.direct !== undefined;
  }

  /**
   * The line of an answer sent without Fastify (the 304 lane, server.ts): written only when the
   * logger is pino's. `repeatKey` (who asked: the lane gives the merchant, client address, host and
   * URL) makes the answers of one turn with the same key one line with their count.
   */
  answered(request: AccessFields, statusCode: number, responseTime: number, repeatKey?: string): void {
    if (statusCode < this.minStatus || !this.direct?.enabled()) return;
    if (repeatKey === undefined) return this.write(accessLine(this.direct.bindings, request, statusCode, responseTime));
    const key = `${statusCode} ${repeatKey}`;
    const seen = this.repeats.get(key);
    if (seen) {
      seen.n++;
      return;
    }
    this.repeats.set(key, { request, statusCode, responseTime, time: Date.now(), n: 1 });
    this.schedule();
  }
}

// Access logs holding lines of the current turn; written out if the process exits before the turn ends.
const unflushed = new Set<AccessLog>();
process.on('exit', () => {
  for (const log of [...unflushed]) log.flush();
});

/**
 * One access line as pino writes it: {"level":30,"time":…,<bindings>,"reqId":…,"req":{…},"res":{…},"responseTime":…,"msg":…};
 * `repeats` above 1 adds "repeats": N after responseTime (answers summed into this line).
 */
export function accessLine(bindings: string, request: AccessFields, statusCode: number, responseTime: number, repeats = 1, time = Date.now()): string {
  return (
    `{"level":30,"time":${time}${bindings},"reqId":${JSON.stringify(String(request.id))},` +
    `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(maskUrl(request.url))},` +
    `"host":${JSON.stringify(request.host)},"remoteAddress":${JSON.stringify(request.ip)}},` +
    `"res":{"statusCode":${statusCode}},"responseTime":${responseTime},${repeats > 1 ? `"repeats":${repeats},` : ''}"msg":"request completed"}\n`
  );
}

// The URL for logs: credentials in its path or query masked by the one masking rule of every
// request record (src/domain/redaction.ts); the name stays for the logger's serializer (server.ts).
export { maskUrl as maskTokens };
