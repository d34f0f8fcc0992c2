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

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** Whether the quote at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let b = at - 1;
  while (text.charCodeAt(b) === 92) b--;
  return (at - 1 - b) % 2 === 1;
}

/**
 * The first number of a JSON text that a JSON number (a double) cannot hold exactly as sent, with
 * the key it belongs to: JSON.parse would round it silently (`1.0000000000000001` to 1), and the
 * money rules (at most 3 decimals) must see the digits the client sent. Numbers of at most 15
 * significant digits and no exponent always survive, so the usual body costs one scan.
 *
 * `text` is valid JSON (called after JSON.parse took it): strings end, a backslash escapes the next
 * character, and outside strings a '-' or a digit starts a number. The scan copies nothing until it
 * has found a number to report: a regex with captures made an array and a string per string of the
 * body (2 000 names a get-prices request), the largest garbage of the request path.
 */
export function inexactNumberIn(text: string): { field: string; token: string } | undefined {
  let keyStart = -1;
  let keyEnd = -1;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: skipped whole (indexOf finds its closing quote natively: a character loop here was
      // three quarters of the scan); a quote after an odd run of backslashes is escaped
      const start = i + 1;
      let end = text.indexOf('"', start);
      while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return undefined; // not JSON (the caller parsed it first): nothing more to find
      i = end + 1;
      let j = i;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (j < n && text.charCodeAt(j) === 58) {
        keyStart = start;
        keyEnd = end;
      }
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i;
      let exponent = false;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 101 || d === 69) exponent = true;
        else if (!((d >= 48 && d <= 57) || d === 46 || d === 43 || d === 45)) break;
      }
      if (i - start <= 15 && !exponent) continue;
      const token = text.slice(start, i);
      if (exactNumber(token) === undefined) return { field: keyStart < 0 ? 'body' : text.slice(keyStart, keyEnd), token };
      continue;
    }
    i++;
  }
  return undefined;
}
