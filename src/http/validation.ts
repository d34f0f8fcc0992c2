// Request validation: Ajv compiled from the TypeBox route schemas, every failure of a request
// reported (allErrors), mapped to the spec's [{field, code, message}] with field names like
// `CreateIntentRequest.merchant_tx_id` (schema title + path).
import AjvModule, { type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { validationError, type FieldError } from './errors.js';
import { textProblem, type TextKind } from '../domain/text-rules.js';

const Ajv = AjvModule.default ?? AjvModule;

/** The schema keyword of the text rules: `{ 'x-text': 'identifier' }` (http/schemas.ts TextRule). */
export const TEXT_KEYWORD = 'x-text';
const addFormats = addFormatsModule.default ?? addFormatsModule;

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    messages: true,
  });
  addFormats(ajv);
  ajv.addFormat('http-url', {
    type: 'string',
    validate: (s: string) => isHttpUrl(s),
  });
  // `x-text: identifier | line` (TEXT_KEYWORD): the text rules of src/domain/text-rules.ts, the broken
  // rule named in the message (code `format`).
  const checkText: SchemaValidateFunction = (kind: TextKind, data: string) => {
    const problem = textProblem(data, kind);
    checkText.errors = problem ? [{ keyword: TEXT_KEYWORD, message: problem.message, params: { rule: problem.rule } }] : [];
    return problem === undefined;
  };
  ajv.addKeyword({ keyword: TEXT_KEYWORD, type: 'string', schemaType: 'string', errors: true, validate: checkText });
  return ajv;
}

/**
 * An absolute http(s) URL written with `//` and a host. WHATWG URL parsing alone accepts
 * `http:127.0.0.1/x` or `http:\\host` (it repairs them); a browser redirect or a webhook client
 * may read them differently, so only the plain form is taken.
 */
export function isHttpUrl(s: string): boolean {
  if (s.length > 2048 || !/^https?:\/\/[^/?#]/i.test(s) || /[\s\\]/.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

const NUMERIC_PATTERN = '^[0-9]+$';

function codeOf(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'required';
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return 'len';
    case 'enum':
    case 'const':
    case 'anyOf':
    case 'oneOf':
      return 'oneof';
    case 'minimum':
    case 'exclusiveMinimum':
      return 'min';
    case 'maximum':
    case 'exclusiveMaximum':
      return 'max';
    case 'format':
      return (e.params as { format?: string }).format === 'http-url' ? 'url' : 'format';
    case 'pattern':
      return (e.params as { pattern?: string }).pattern === NUMERIC_PATTERN ? 'numeric' : 'format';
    case 'type':
      return (e.params as { type?: string }).type === 'integer' || (e.params as { type?: string }).type === 'number'
        ? 'numeric'
        : 'type';
    case 'additionalProperties':
      return 'unknown';
    case TEXT_KEYWORD:
      return 'format';
    default:
      return e.keyword;
  }
}

function pathOf(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') parts.push((e.params as { missingProperty: string }).missingProperty);
  if (e.keyword === 'additionalProperties') parts.push((e.params as { additionalProperty: string }).additionalProperty);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

function messageOf(e: ErrorObject, field: string): string {
  const name = field || 'value';
  switch (e.keyword) {
    case 'required':
      return `${name} is required`;
    case 'enum':
      return `${name} must be one of: ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
    case 'format':
      return (e.params as { format?: string }).format === 'http-url'
        ? `${name} must be a valid http(s) URL`
        : `${name} ${e.message}`;
    case 'pattern':
      return (e.params as { pattern?: string }).pattern === NUMERIC_PATTERN
        ? `${name} must be numeric`
        : `${name} has an invalid format`;
    case 'additionalProperties':
      return `${name} is not a known field`;
    default:
      return `${name} ${e.message ?? 'is invalid'}`;
  }
}

export function mapAjvErrors(errors: ErrorObject[], title: string): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    // anyOf reports each branch's failure too; keep the summary only.
    if (e.keyword === 'if') continue;
    const path = pathOf(e);
    const field = title ? (path ? `${title}.${path}` : title) : path;
    const code = codeOf(e);
    const key = `${field}|${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, code, message: messageOf(e, path) });
  }
  return out;
}

const cache = new WeakMap<object, ValidateFunction>();

/**
 * A hand-written check for a hot schema: true only when the data is certainly valid (defaults
 * applied), false when in doubt; then Ajv runs and reports the errors, so the messages and codes
 * stay Ajv's. For bodies where a per-item schema walk costs (get-prices: 2 000 names).
 */
const fastChecks = new WeakMap<object, (data: unknown) => boolean>();
export function withFastCheck<T extends object>(schema: T, check: (data: unknown) => boolean): T {
  fastChecks.set(schema, check);
  return schema;
}

/** Query and path parts arrive as text; Ajv's coercion would read `0x10`, `2e0` or ` 2` as numbers. */
const INTEGER_TEXT = { params: /^[0-9]+$/, querystring: /^-?[0-9]+$/ } as const;
const NUMBER_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

function numericProps(schema: object): { name: string; integer: boolean }[] {
  const props = (schema as { properties?: Record<string, { type?: string; anyOf?: { type?: string }[] }> }).properties ?? {};
  const out: { name: string; integer: boolean }[] = [];
  for (const [name, p] of Object.entries(props)) {
    const types = [p.type, ...(p.anyOf ?? []).map((a) => a.type)];
    if (types.includes('integer')) out.push({ name, integer: true });
    else if (types.includes('number')) out.push({ name, integer: false });
  }
  return out;
}

/** Field errors for numeric query/path values whose text is not plain decimal digits. */
function checkNumericText(data: unknown, props: { name: string; integer: boolean }[], intText: RegExp, title: string): FieldError[] {
  if (data === null || typeof data !== 'object') return [];
  const errors: FieldError[] = [];
  for (const { name, integer } of props) {
    const raw = (data as Record<string, unknown>)[name];
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.some((v) => typeof v === 'string' && !(integer ? intText : NUMBER_TEXT).test(v))) {
      errors.push({ field: title ? `${title}.${name}` : name, code: 'numeric', message: `${name} must be numeric` });
    }
  }
  return errors;
}

/**
 * Schemas whose Ajv compile is still to do. Compiling all route schemas at start costs a fifth of a
 * second of a restart's time from start to ready, so a route's validator compiles on its first use,
 * or sooner: `warmValidators()` compiles the rest in slices once the server listens.
 */
const uncompiled = new Set<() => void>();

/** Compiles the validators not used yet, a few per turn of the event loop, so requests run between. */
export async function warmValidators(): Promise<void> {
  for (const compile of uncompiled) {
    compile();
    await new Promise((r) => setImmediate(r));
  }
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  let fn = cache.get(schema as object);
  const compile = () => {
    uncompiled.delete(compile);
    if (fn) return fn;
    fn = cache.get(schema as object) ?? ajv.compile(schema as object);
    cache.set(schema as object, fn);
    return fn;
  };
  if (!fn) uncompiled.add(compile);
  const title = (schema as { title?: string }).title ?? '';
  const textRule = httpPart === 'params' || httpPart === 'querystring' ? INTEGER_TEXT[httpPart] : undefined;
  const numeric = textRule ? numericProps(schema as object) : [];
  const fast = fastChecks.get(schema as object);
  return (data: unknown) => {
    if (fast?.(data)) return { value: data };
    if (textRule && numeric.length > 0) {
      const bad = checkNumericText(data, numeric, textRule, title);
      if (bad.length > 0) return { error: validationError(bad) };
    }
    const validate = fn ?? compile();
    if (validate(data)) return { value: data };
    return { error: validationError(mapAjvErrors(validate.errors ?? [], title)) };
  };
};
