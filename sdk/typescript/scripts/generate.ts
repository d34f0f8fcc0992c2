// Generates src/api.gen.ts from the gateway's /openapi.json: the merchant API's types
// (openapi-typescript, 64-bit integers typed as strings: the client reads them as strings so no
// digit is lost), the operation table the client calls, and the names of the 64-bit fields.
// A gateway test (test/sdk/typescript-sdk.test.ts) regenerates it from the live document and
// fails when the committed file differs, so the SDK cannot drift from the API.
//
//   npx tsx sdk/typescript/scripts/generate.ts http://127.0.0.1:8080/openapi.json
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';

type Json = any;
export const MERCHANT_PREFIX = '/api/v1/merchant';

/** The merchant operations of the document: operationId → method and path. */
export function merchantOperations(doc: Json): Record<string, { method: string; path: string }> {
  const out: Record<string, { method: string; path: string }> = {};
  for (const [p, ops] of Object.entries<Json>(doc.paths)) {
    if (!p.startsWith(MERCHANT_PREFIX)) continue;
    for (const [method, op] of Object.entries<Json>(ops)) out[op.operationId] = { method: method.toUpperCase(), path: p.slice(MERCHANT_PREFIX.length) };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** Property names whose schema is a 64-bit integer (format int64) anywhere in the document. */
export function int64Fields(doc: Json): string[] {
  const names = new Set<string>();
  const walk = (node: Json) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries<Json>(node.properties ?? {})) if (v && v.format === 'int64') names.add(k);
    for (const v of Object.values(node)) walk(v);
  };
  walk(doc);
  return [...names].sort();
}

export async function generate(doc: Json): Promise<string> {
  const merchantOnly = { ...doc, paths: Object.fromEntries(Object.entries<Json>(doc.paths).filter(([p]) => p.startsWith(MERCHANT_PREFIX))) };
  const types = astToString(
    await openapiTS(merchantOnly, {
      transform(schema) {
        const s = schema as Json;
        if (s.format !== 'int64') return undefined;
        const str = ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword);
        const nullable = Array.isArray(s.type) && s.type.includes('null');
        return nullable ? ts.factory.createUnionTypeNode([str, ts.factory.createLiteralTypeNode(ts.factory.createNull())]) : str;
        return undefined;
      },
    }),
  );
  return [
    '// GENERATED from the gateway\'s /openapi.json by scripts/generate.ts: do not edit by hand.',
    '/* eslint-disable */',
    types.trimEnd(),
    '',
    `export const OPERATIONS = ${JSON.stringify(merchantOperations(doc), null, 2)} as const;`,
    '',
    '/** 64-bit integer fields: read as strings (JSON.parse would round them). */',
    `export const INT64_FIELDS: readonly string[] = ${JSON.stringify(int64Fields(doc))};`,
    '',
  ].join('\n');
}

/** sdk/python/skin_gateway/operations.py: the same operation table for the Python SDK. */
export function generatePython(doc: Json): string {
  const ops = merchantOperations(doc);
  const lines = Object.entries(ops).map(([id, op]) => `    ${JSON.stringify(id)}: (${JSON.stringify(op.method)}, ${JSON.stringify(op.path)}),`);
  return [
    "# GENERATED from the gateway's /openapi.json by sdk/typescript/scripts/generate.ts: do not edit by hand.",
    '# The merchant operations: operationId -> (HTTP method, path under /api/v1/merchant).',
    '',
    'OPERATIONS = {',
    ...lines,
    '}',
    '',
    '# 64-bit integer fields (Python ints hold them exactly).',
    `INT64_FIELDS = (${int64Fields(doc).map((f) => JSON.stringify(f) + ',').join(' ')})`,
    '',
  ].join('\n');
}

export const PYTHON_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'python', 'skin_gateway', 'operations.py');

export const GENERATED_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'api.gen.ts');

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const url = process.argv[2] ?? 'http://127.0.0.1:8080/openapi.json';
  const doc = await (await fetch(url)).json();
  await fs.writeFile(GENERATED_FILE, await generate(doc));
  await fs.writeFile(PYTHON_FILE, generatePython(doc));
  console.log(`wrote ${GENERATED_FILE} and ${PYTHON_FILE}`);
}
