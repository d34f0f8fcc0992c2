// Response validation for the whole test suite: every test gateway (test/helpers.ts) checks each
// answer of a documented operation against the OpenAPI document it serves. A status code the
// operation does not document, a body that does not match, or a field the schema does not name is
// a violation; the setup file (response-check-setup.ts) fails the test file that produced one.
// The handler's object is checked before Fastify's serialiser could drop undocumented fields.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { isHttpUrl } from '../../src/http/validation.js';

type Ajv = import('ajv/dist/2020.js').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (opts: object) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as FormatsPlugin;

type Json = Record<string, any>;
const violations: string[] = [];

/** The violations recorded so far, cleared. */
export function takeViolations(): string[] {
  return violations.splice(0, violations.length);
}

/** Every object schema that lists properties and says nothing else allows no other property. */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'example' || k === 'examples') out[k] = v;
    else if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, strict(s)]));
    else out[k] = strict(v);
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

const compilers = new WeakMap<object, Ajv>();

function ajvFor(doc: Json) {
  let ajv = compilers.get(doc);
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(ajv);
    ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });
    ajv.addSchema({ $id: 'https://gateway.invalid/openapi.json', components: strict(doc.components ?? {}) });
    compilers.set(doc, ajv);
  }
  return ajv;
}

/** A strict validator of `schema` (a schema of `doc`): returns the errors as text, or undefined. */
export function compileStrict(doc: Json, schema: unknown): (value: unknown) => string | undefined {
  const text = JSON.stringify(strict(schema)).replaceAll('"#/components/', '"https://gateway.invalid/openapi.json#/components/');
  const validate: ValidateFunction = ajvFor(doc).compile(JSON.parse(text));
  return (value) => {
    if (validate(value)) return undefined;
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`)
      .join('; ');
  };
}

const show = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x)) ?? String(v);

function resolveResponse(doc: Json, r: Json | undefined): Json | undefined {
  const ref = r?.$ref as string | undefined;
  return ref ? doc.components?.responses?.[ref.split('/').pop()!] : r;
}

export function installResponseCheck(app: FastifyInstance): void {
  let doc: Json | undefined;
  const validators = new Map<string, (value: unknown) => string | undefined>();
  const checked = new WeakSet<FastifyRequest>();

  function operation(request: FastifyRequest): Json | undefined {
    const url = request.routeOptions?.url;
    if (!url || request.method === 'HEAD' || request.method === 'OPTIONS') return undefined;
    doc ??= app.swagger() as Json;
    return doc.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[request.method.toLowerCase()];
  }

  function check(request: FastifyRequest, status: number, body: unknown, hasBody: boolean): void {
    try {
      const op = operation(request);
      if (!op) return;
      const where = `${request.method} ${request.routeOptions.url} ${status}`;
      const response = resolveResponse(doc!, op.responses?.[String(status)]);
      if (!response) return void violations.push(`${where}: status ${status} is not documented (${show(body).slice(0, 200)})`);
      const schema = response.content?.['application/json']?.schema;
      if (!schema) {
        if (hasBody) violations.push(`${where}: documented without a body, answered one`);
        return;
      }
      let validate = validators.get(where);
      if (!validate) validators.set(where, (validate = compileStrict(doc!, schema)));
      const errors = validate(body);
      if (errors) violations.push(`${where}: ${errors} — ${show(body).slice(0, 300)}`);
    } catch (err) {
      violations.push(`${request.method} ${request.url}: response check failed: ${String(err)}`);
    }
  }

  app.addHook('preSerialization', async (request, reply, payload) => {
    checked.add(request);
    // As JSON sees it (Dates as strings); 64-bit integers, which the serialiser writes as integers, as numbers.
    const asJson = JSON.parse(JSON.stringify(payload, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    check(request, reply.statusCode, asJson, true);
    return payload;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (checked.has(request)) return payload;
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      const text = payload.toString();
      let body: unknown = text;
      if (text !== '' && /json/.test(String(reply.getHeader('content-type') ?? ''))) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      check(request, reply.statusCode, body, text !== '');
    } else if (payload === undefined || payload === null) {
      check(request, reply.statusCode, undefined, false);
    } else if (operation(request) && !operation(request)!.responses?.[String(reply.statusCode)]) {
      // A stream: its status is checked, its body is the streaming tests' business.
      violations.push(`${request.method} ${request.routeOptions.url} ${reply.statusCode}: status is not documented (stream)`);
    }
    return payload;
  });
}
