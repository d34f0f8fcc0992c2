// Finishes the document @fastify/swagger generates from the route schemas: the prose and tags,
// operation ids, the error responses every operation can give (the envelope, the validation list,
// Retry-After), examples, the sandbox helpers' optional body, and the two webhooks (3.1 `webhooks`).
// Pure: document in, document out.
import { Type } from '@sinclair/typebox';
import { OPERATIONS, type ErrorStatus } from './openapi-operations.js';
import { DESCRIPTIONS, INTRO, TAGS, TAG_GROUPS } from '../http/openapi-guide.js';
import { DepositWebhookBody, PurchaseWebhookBody } from '../modules/webhooks/webhook-schemas.js';
import { depositWebhook, purchaseWebhook } from './openapi-examples.js';

type Json = Record<string, any>;

const SPEC = 'the merchant API specification';
const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

const FieldError = Type.Object(
  {
    field: Type.String({ description: 'request type and field, e.g. CreateDepositRequest.token' }),
    code: Type.String({ description: 'required, len, oneof, min, max, numeric, url, format, type, or a domain code (exist, inventory_reload, trade_link_invalid, …)' }),
    message: Type.String(),
  },
  { title: 'FieldError' },
);
const ErrorEnvelope = {
  title: 'Error',
  type: 'object',
  required: ['success', 'message'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    message: { type: 'string' },
    data: { type: 'array', items: { $ref: '#/components/schemas/FieldError' }, description: 'field errors (validation error, invalid transition, already exist error, …)' },
  },
};

const errorExample = (message: string, data?: unknown) => ({ value: { success: false, message, ...(data ? { data } : {}) } });
const errorResponse = (description: string, examples: Record<string, { value: unknown }>, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples } },
});

const RETRY_AFTER = { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } };
const ETAG = { description: 'Version of this page; send it back in If-None-Match', schema: { type: 'string' } };
/** On every answer of a rate-limited operation (the merchant API per key, the hosted API per address). */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests that may be sent now without waiting', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the full limit is available again', schema: { type: 'integer', minimum: 0 } },
};

const RESPONSES: Record<string, Json> = {
  BadRequest: errorResponse('Bad request: `validation error` with the list of field errors, `invalid request body`, `invalid game code`, `page must be 1 or greater`…', {
    validation: errorExample('validation error', [{ field: 'CreateDepositRequest.token', code: 'len', message: 'token must NOT have fewer than 8 characters' }]),
    tradeLink: errorExample('validation error', [{ field: 'partner', code: 'trade_banned', message: 'the account has a trade ban' }]),
    body: errorExample('invalid request body'),
  }),
  Unauthorized: errorResponse('Missing or invalid credentials', {
    missing: errorExample('missing authorization header'),
    invalid: errorExample('invalid API key'),
  }),
  Forbidden: errorResponse('Merchant disabled, IP not whitelisted, or feature not enabled', {
    disabled: errorExample('merchant account is disabled'),
    ip: errorExample('IP not whitelisted: 198.51.100.23'),
  }),
  NotFound: errorResponse('Not found, or owned by another merchant', { notFound: errorExample('not found error') }),
  Conflict: errorResponse('Duplicate merchant_tx_id, or a status change the current status does not allow', {
    duplicate: errorExample('already exist error', [{ field: 'merchant_tx_id', code: 'exist', message: 'merchant_tx_id already exists' }]),
    transition: errorExample('invalid transition', [{ field: 'status', code: 'invalid_transition', message: 'cannot accept from status completed' }]),
  }),
  PayloadTooLarge: errorResponse('The body is larger than BODY_LIMIT_BYTES', { tooLarge: errorExample('request body too large') }),
  UnsupportedMediaType: errorResponse('The body is not application/json', { mediaType: errorExample('unsupported content type: send application/json') }),
  InternalError: errorResponse('Internal error, or the trading platform did not answer (`integration service error`): retry with backoff', {
    internal: errorExample('internal error'),
    integration: errorExample('integration service error'),
    pricesStale: errorExample('integration service error', [{ field: 'prices', code: 'prices_stale', message: 'prices are 3700 s old (limit 3600 s); retry later' }]),
  }),
  ServiceUnavailable: errorResponse(
    'Temporarily unavailable (the database restarting or failing over, the catalogue being rebuilt, the gateway busy): retry after Retry-After seconds',
    { database: errorExample('service unavailable', [{ field: 'database', code: 'service_unavailable', message: 'the database is unavailable for a moment; retry after 2 s' }]),
      rebuilding: errorExample('catalogue is being rebuilt, retry shortly'), busy: errorExample('internal error'), shed: errorExample('the gateway is busy: retry shortly') },
    { 'Retry-After': RETRY_AFTER },
  ),
  TooManyRequests: errorResponse(
    'Over the rate limit (per API key on the merchant API, per client address on the hosted API): nothing was done; retry after Retry-After seconds',
    { tooMany: errorExample('too many requests') },
    { 'Retry-After': RETRY_AFTER, ...RATE_LIMIT_HEADERS },
  ),
  NotModified: { description: 'Not modified: the page still has the ETag given in If-None-Match', headers: { ETag: ETAG } },
};

/** Parameter examples by name; an enum parameter whose example is not one of its values shows its first value. */
const PARAMETER_EXAMPLES: Record<string, unknown> = {
  id: 42, merchant_tx_id: 'order-1001', game: 'csgo', full: 'true', extended: 'false', page: '2', names: ['AK-47 | Redline (Field-Tested)'],
  since: '2026-11-23T10:15:00.000Z', limit: 50, offset: 0, status: 'completed', date_range: 30, search: 'buy-2001', sort: '-id',
  token: 'dpt_Yk3s9QmW0aZr2LxE7vNc', action: 'accept', 'If-None-Match': '"c3VwZXJ2aXNvcg"', merchant_id: 1, before: 1000,
  flag: 'outlier', market_hash_name: 'AK-47 | Redline (Field-Tested)',
  cursor: 'evt_812', type: 'deposit.completed', deposit_id: 42, purchase_id: 7, created_from: '2026-11-23T00:00:00.000Z', created_to: '2026-11-24T00:00:00.000Z',
};

function exampleParameters(op: Json): void {
  for (const p of op.parameters ?? []) {
    if (p.example !== undefined || !(p.name in PARAMETER_EXAMPLES)) continue;
    const wanted = PARAMETER_EXAMPLES[p.name];
    const values: unknown[] | undefined = p.schema?.enum;
    p.example = values && !values.includes(wanted) ? values[0] : p.schema?.type === 'string' && typeof wanted === 'number' ? String(wanted) : wanted;
  }
}

const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted: queued' };

const STATUS_RESPONSE: Record<ErrorStatus, string> = {
  304: 'NotModified', 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict',
  413: 'PayloadTooLarge', 415: 'UnsupportedMediaType', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable',
};

const SANDBOX_BODY = {
  required: false,
  content: {
    'application/json': {
      schema: {
        title: 'SandboxActionRequest',
        type: 'object',
        properties: {
          hold: { type: 'boolean', description: 'accept only: false = completed at once, true = the game hold (default)' },
          by: { type: 'string', enum: ['user', 'gateway'], description: 'revert only: who reverted the trade' },
        },
      },
    },
  },
};

/** OpenAPI 3.0's `nullable` (what Fastify's serialiser reads) as a 3.1 type list. */
export function toJsonSchema2020<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(toJsonSchema2020) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema as Json)) if (k !== 'nullable') out[k] = toJsonSchema2020(v);
  if ((schema as Json).nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out as T;
}

function webhook(summary: string, description: string, schemaName: string, example: unknown) {
  const header = (name: string, d: string, ex: string) => ({ name, in: 'header', required: true, description: d, schema: { type: 'string' }, example: ex });
  return {
    post: {
      operationId: `${schemaName.charAt(0).toLowerCase()}${schemaName.slice(1)}`,
      tags: ['Webhooks'],
      summary,
      description,
      security: [],
      parameters: [
        header('webhook-id', 'event id, stable across retries: deduplicate on it', 'evt_12'),
        header('webhook-timestamp', 'Unix seconds of this attempt', '1795428902'),
        header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "id.timestamp.body">, keyed with the bytes after whsec_', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` }, example } } },
      responses: {
        '200': { description: 'Any 2xx acknowledges the event; anything else (or no answer within 15 s) is retried' },
        '400': { description: 'Not acknowledged: retried on the schedule' },
      },
    },
  };
}

function finishOperation(path: string, method: string, op: Json): void {
  const info = OPERATIONS[`${method} ${path}`];
  if (!info) return; // the contract test names it
  op.operationId = info.id;
  op.tags = [info.tag];
  const spec = info.spec ? `Section ${info.spec} of ${SPEC}.` : '';
  op.description = [DESCRIPTIONS[info.id], op.description, spec].filter(Boolean).join('\n\n') || op.summary;
  if (!op.security) op.security = [];
  if (info.id.startsWith('sandbox')) op.requestBody = structuredClone(SANDBOX_BODY);
  const body = op.requestBody?.content?.['application/json'];
  if (body && info.request !== undefined) {
    delete body.example;
    body.examples = { example: { value: info.request }, ...Object.fromEntries(Object.entries(info.requests ?? {}).map(([k, v]) => [k, { value: v }])) };
  }
  for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
    if (r.description === 'Default Response') r.description = SUCCESS[status] ?? 'Success';
  }
  for (const [status, example] of Object.entries(info.response ?? {})) {
    const media = op.responses?.[status]?.content?.['application/json'];
    if (media) media.example = example;
  }
  if (op.responses?.['200'] && info.errors.includes(304)) {
    op.responses['200'].headers = { ETag: ETAG };
    op.parameters = [...(op.parameters ?? []), { name: 'If-None-Match', in: 'header', required: false, description: 'the ETag of your copy of the page: 304 while it is current', schema: { type: 'string' } }];
  }
  if (info.errors.includes(429)) {
    for (const status of Object.keys(SUCCESS)) {
      const r = op.responses?.[status];
      if (r) r.headers = { ...(r.headers ?? {}), ...RATE_LIMIT_HEADERS };
    }
  }
  // An operation that reads or writes the database (every one that may answer 500) answers 503
  // service_unavailable while the database restarts or fails over (http/errors.ts databaseUnavailable).
  const errors: ErrorStatus[] = info.errors.includes(500) && !info.errors.includes(503) ? [...info.errors, 503] : info.errors;
  for (const status of errors) op.responses[String(status)] = ref(STATUS_RESPONSE[status]);
  exampleParameters(op);
}

export function finishDocument(doc: Json): Json {
  const out = toJsonSchema2020(doc);
  out.info = { ...out.info, description: INTRO, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } };
  out.servers = [{ url: '/', description: 'this gateway' }];
  out.tags = [...TAGS, { name: 'Webhooks', description: 'What your webhook URL receives (spec 6.1, 6.2), signed twice; see "Webhooks" above for the verification recipe.' }];
  out['x-tagGroups'] = [...TAG_GROUPS, { name: 'Webhooks', tags: ['Webhooks'] }];
  out.components = {
    ...out.components,
    schemas: {
      ...out.components?.schemas,
      FieldError: toJsonSchema2020(FieldError),
      Error: ErrorEnvelope,
      DepositWebhook: toJsonSchema2020(DepositWebhookBody),
      PurchaseWebhook: toJsonSchema2020(PurchaseWebhookBody),
    },
    responses: RESPONSES,
  };
  for (const [path, ops] of Object.entries<Json>(out.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(ops)) finishOperation(path, method, op);
  }
  out.webhooks = {
    depositStatusChanged: webhook(
      'Deposit status changed (spec 6.1)',
      'Sent when a deposit becomes hold, completed, failed, canceled or reverted, to its result_url, else the merchant webhook_url. `sign` = base64(sha256(String(trade_id) + secret)).',
      'DepositWebhook',
      depositWebhook,
    ),
    purchaseStatusChanged: webhook(
      'Purchase status changed (spec 6.2)',
      'Sent when a purchase becomes active, hold, completed, failed, canceled or reverted, to the merchant webhook_url. `sign` = base64(sha256(String(purchase_id) + secret)).',
      'PurchaseWebhook',
      purchaseWebhook,
    ),
  };
  return out;
}
