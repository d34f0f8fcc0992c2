// The access log (LOG_REQUESTS): one line per answer at info, written when it is sent, instead of
// Fastify's two (incoming request + request completed). `all` logs every answer, `errors` those
// with status ≥ 400, `off` none. Errors of the reply itself are logged in every mode. URLs go
// through the logger's `req` serializer, which masks hosted page tokens (server.ts).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

export class AccessLog extends LogController {
  private readonly minStatus: number;

  constructor(mode: Config['logRequests']) {
    super();
    this.minStatus = mode === 'all' ? 0 : mode === 'errors' ? 400 : Infinity;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    } else if (reply.statusCode >= this.minStatus) {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
