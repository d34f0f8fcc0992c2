// Whether a route's JSON body is optional: no body schema, or one that requires nothing. The JSON
// parser (edges.ts) reads an empty body sent with `Content-Type: application/json` (many HTTP
// clients add the header to every POST) as {} on such routes; routes that require fields keep
// answering 400 `invalid request body` to an empty body.
import type { FastifyRequest } from 'fastify';

export function bodyIsOptional(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema?.body as { required?: unknown[] } | undefined;
  return !schema || !Array.isArray(schema.required) || schema.required.length === 0;
}
