// Bad-input generators for the fuzz suite, driven by the gateway's own OpenAPI document: a valid
// sample of each schema, then every kind of breakage one field (or one part) at a time.

export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
  nullable?: boolean;
  additionalProperties?: boolean | Schema;
};

/** Realistic values for well-known fields, so mutated bodies get past the first checks. */
const REALISTIC: Record<string, unknown> = { partner: 12345678, token: 'abcdEFGH', game: 'csgo' };

/** A value the schema accepts (best effort: enough to get past validation into the services). */
export function sample(s: Schema | undefined, name = ''): unknown {
  if (name in REALISTIC) return REALISTIC[name];
  if (!s) return 'x';
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return sample(alt.find((a) => a.type !== 'null') ?? alt[0], name);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) out[k] = sample(s.properties?.[k], k);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => sample(s.items, name));
    case 'integer':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? Math.floor(s.exclusiveMinimum) + 1 : 1);
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'string': {
      if (s.format === 'http-url' || /url/.test(name)) return 'https://shop.example/cb';
      if (s.pattern === '^[0-9]+$') return '1';
      return `${name || 's'}-fuzz`.padEnd(s.minLength ?? 1, 'x').slice(0, s.maxLength ?? 100);
    }
    default:
      return 'x';
  }
}

const LONG = 'a'.repeat(100_000);

/** Replacement values for one field: wrong types, absurd numbers, awkward strings. */
export const BAD_VALUES: unknown[] = [
  null,
  true,
  '',
  'abc',
  '1',
  -1,
  0,
  1e308,
  -1e308,
  2 ** 53 + 1,
  1.0005,
  1e-10,
  1000000.0006,
  0.5,
  {},
  [],
  [1, 2],
  { a: { b: { c: 1 } } },
  LONG,
  'a\u0000b',
  'x\ud800',
  '\udc00',
  ' 12 ',
  '0x10',
  '<script>',
  "'; drop table merchants; --",
];

/** Raw JSON bodies (text) that break at the parser or type level. */
export const RAW_BODIES: string[] = [
  '{',
  '{"a":',
  '{"a":1,}',
  '[',
  'nul',
  '"just a string"',
  '123',
  'null',
  '[]',
  '[{}]',
  '{}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":1e999999}',
  '\u0000',
  '\ufeff{}',
  '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
];

export interface FuzzCase {
  label: string;
  body?: string;
  contentType?: string;
  query?: string;
}

/** Cases for a JSON body: parser breakage, wrong content types, then per-field mutations of a valid body. */
export function bodyCases(schema: Schema | undefined): FuzzCase[] {
  const valid = (sample(schema) ?? {}) as Record<string, unknown>;
  const text = JSON.stringify(valid);
  const cases: FuzzCase[] = [
    ...RAW_BODIES.map((body) => ({ label: `raw ${body.slice(0, 20)}`, body })),
    { label: 'valid sample', body: text },
    { label: 'truncated', body: text.slice(0, Math.max(1, Math.floor(text.length / 2))) },
    { label: 'empty json body', body: '' },
    { label: 'text/plain', body: text, contentType: 'text/plain' },
    { label: 'form', body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
    { label: 'multipart', body: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
    { label: 'xml', body: '<a/>', contentType: 'application/xml' },
    { label: 'json charset latin1', body: text, contentType: 'application/json; charset=latin1' },
    { label: 'doubled content-type', body: text, contentType: 'application/json, text/plain' },
    { label: 'array for object', body: JSON.stringify([valid]) },
    { label: 'extra fields', body: JSON.stringify({ ...valid, unknown_field: 1, __proto__x: { deep: [1] } }) },
  ];
  const props = schema?.properties ?? {};
  for (const key of Object.keys(props)) {
    const without = { ...valid };
    delete without[key];
    cases.push({ label: `missing ${key}`, body: JSON.stringify(without) });
    for (const v of BAD_VALUES) cases.push({ label: `${key}=${JSON.stringify(v)?.slice(0, 20)}`, body: JSON.stringify({ ...valid, [key]: v }) });
    const inner = props[key]?.items ?? props[key];
    if (inner?.type === 'object' && inner.properties) {
      const base = sample(inner) as Record<string, unknown>;
      for (const sub of Object.keys(inner.properties)) {
        for (const v of BAD_VALUES) {
          const bad = { ...base, [sub]: v };
          cases.push({ label: `${key}.${sub}=${JSON.stringify(v)?.slice(0, 20)}`, body: JSON.stringify({ ...valid, [key]: props[key]?.items ? [bad] : bad }) });
        }
      }
    }
  }
  return cases;
}

const QUERY_VALUES = ['', '-1', '0', '1e308', '9007199254740993', '1.0005', '0x10', '%20', '%00', '%ED%A0%80', '%ff', 'a'.repeat(5000), 'true', '[]', '{}', 'null', '1,2'];

/** Query-string cases: every parameter with bad values, doubled, and as an array. */
export function queryCases(params: { name: string; schema?: Schema }[]): FuzzCase[] {
  const cases: FuzzCase[] = [{ label: 'no query', query: '' }, { label: 'unknown param', query: 'zzz=1&zzz=2' }];
  const valid = params.map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, p.name)))}`).join('&');
  cases.push({ label: 'valid sample', query: valid });
  for (const p of params) {
    for (const v of QUERY_VALUES) cases.push({ label: `${p.name}=${v.slice(0, 12)}`, query: `${p.name}=${v}` });
    cases.push({ label: `${p.name} doubled`, query: `${p.name}=1&${p.name}=2` });
    cases.push({ label: `${p.name}[]`, query: `${p.name}[]=1&${p.name}[0]=2` });
    cases.push({ label: `${p.name} no value`, query: p.name });
  }
  return cases;
}

export const PATH_VALUES = ['0', '-1', '0x10', '2e0', '%202', 'a', 'a'.repeat(600), '%00', '%ED%A0%80', '%ff', '9007199254740993', '1.5', '99999999'];
