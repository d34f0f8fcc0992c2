// JSON body helpers of the parser (edges.ts). Whether a route's JSON body is optional: no body schema, or one that requires nothing. The JSON
// parser (edges.ts) reads an empty body sent with `Content-Type: application/json` (many HTTP
// clients add the header to every POST) as {} on such routes; routes that require fields keep
// answering 400 `invalid request body` to an empty body.
import type { FastifyRequest } from 'fastify';
import { exactNumber } from '../domain/money.js';

export function bodyIsOptional(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema?.body as { required?: unknown[] } | undefined;
  return !schema || !Array.isArray(schema.required) || schema.required.length === 0;
}

// Strings (skipped whole, a key when a colon follows) and number tokens of a JSON text.
const TOKENS = /"((?:[^"\\]|\\.)*)"(\s*:)?|-?\d[\d.eE+-]*/g;

/**
 * The first number of a JSON text that a JSON number (a double) cannot hold exactly as sent, with
 * the key it belongs to: JSON.parse would round it silently (`1.0000000000000001` to 1), and the
 * money rules (at most 3 decimals) must see the digits the client sent. Numbers of at most 15
 * significant digits and no exponent always survive, so the usual body costs one regex scan.
 */
export function inexactNumberIn(text: string): { field: string; token: string } | undefined {
  let key = 'body';
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m; m = TOKENS.exec(text)) {
    if (m[1] !== undefined) {
      if (m[2]) key = m[1];
      continue;
    }
    const token = m[0];
    if (token.length <= 15 && !/[eE]/.test(token)) continue;
    if (exactNumber(token) === undefined) return { field: key, token };
  }
  return undefined;
}
