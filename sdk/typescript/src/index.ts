// Skin Trading Gateway SDK for TypeScript / JavaScript (Node 18+; no dependencies).
//
//   const gw = new SkinGateway({ baseUrl: 'https://gateway.example', apiKey: process.env.GATEWAY_KEY! });
//   const inv = await gw.getInventory({ game: 'csgo', partner: 12345678, token: 'abcdefgh' });
//
// Types and the operation table come from the gateway's /openapi.json (src/api.gen.ts, generated).
import crypto from 'node:crypto';
import { INT64_FIELDS, OPERATIONS, type paths, type components } from './api.gen.js';

export type { paths, components };
export { OPERATIONS };

type Ops = typeof OPERATIONS;
export type OperationId = keyof Ops;
type PathOf<K extends OperationId> = `/api/v1/merchant${Ops[K]['path']}`;
type OpOf<K extends OperationId> = PathOf<K> extends keyof paths ? paths[PathOf<K>][Lowercase<Ops[K]['method']> & keyof paths[PathOf<K>]] : never;

/** The JSON request body of an operation. */
export type RequestBody<K extends OperationId> = OpOf<K> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters of an operation. */
export type Query<K extends OperationId> = OpOf<K> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The `data` of an operation's success answer. */
export type Data<K extends OperationId> = OpOf<K> extends { responses: { 200: { content: { 'application/json': { data: infer D } } } } } ? D : never;

export type FieldError = components['schemas']['FieldError'];
export type DepositWebhook = components['schemas']['DepositWebhook'];
export type PurchaseWebhook = components['schemas']['PurchaseWebhook'];
export type SandboxAction = 'accept' | 'decline' | 'expire' | 'release' | 'revert' | 'cancel';

// ---------------------------------------------------------------------------------------------
// Errors: every non-2xx answer is a GatewayError subclass with the envelope's message and the
// validation list [{field, code, message}] when there is one.

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The envelope's `data`: the {field, code, message} list on 400, or other details. */
    readonly data: unknown,
    /** True when the answer came to a retried request (its first attempt's answer was lost). */
    readonly afterRetry = false,
  ) {
    super(message);
    this.name = new.target.name;
  }
  /** The validation list (empty when the answer has none). */
  get errors(): FieldError[] {
    return Array.isArray(this.data) ? (this.data.filter((e) => e && typeof e === 'object' && 'code' in e) as FieldError[]) : [];
  }
  /** The domain code: the first entry of data with a code, else data.fail_reason, else the message (as the spec's clients read it). */
  get code(): string {
    const first = this.errors[0];
    if (first) return first.code;
    const reason = (this.data as { fail_reason?: unknown } | null)?.fail_reason;
    return typeof reason === 'string' ? reason : this.message;
  }
}
export class ValidationError extends GatewayError {}
export class AuthenticationError extends GatewayError {}
export class ForbiddenError extends GatewayError {}
export class NotFoundError extends GatewayError {}
/** 409: the merchant_tx_id is already used (adopt the existing record). */
export class ConflictError extends GatewayError {}
export class ServiceUnavailableError extends GatewayError {
  constructor(status: number, message: string, data: unknown, afterRetry: boolean, readonly retryAfterSec: number | null) {
    super(status, message, data, afterRetry);
  }
}
/** No answer at all (network error, timeout, cut-off body) after the last retry. */
export class ConnectionError extends Error {
  constructor(message: string, readonly cause?: unknown) {
    super(message);
    this.name = 'ConnectionError';
  }
}

function errorFor(status: number, body: { message?: string; data?: unknown } | undefined, afterRetry: boolean, retryAfter: number | null): GatewayError {
  const message = body?.message ?? `HTTP ${status}`;
  const data = body?.data;
  switch (status) {
    case 400:
      return new ValidationError(status, message, data, afterRetry);
    case 401:
      return new AuthenticationError(status, message, data, afterRetry);
    case 403:
      return new ForbiddenError(status, message, data, afterRetry);
    case 404:
      return new NotFoundError(status, message, data, afterRetry);
    case 409:
      return new ConflictError(status, message, data, afterRetry);
    case 429:
    case 503:
      return new ServiceUnavailableError(status, message, data, afterRetry, retryAfter);
    default:
      return new GatewayError(status, message, data, afterRetry);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON with 64-bit integers kept exact: the fields the document types as int64 (bot_platform_id…)
// are read as strings, since JSON.parse rounds integers above 2^53.

const INT64_PATTERN = INT64_FIELDS.length ? new RegExp(`"(${INT64_FIELDS.join('|')})"(\\s*):(\\s*)(-?\\d+)`, 'g') : null;

export function parseJson<T = unknown>(text: string): T {
  return JSON.parse(INT64_PATTERN ? text.replace(INT64_PATTERN, '"$1"$2:$3"$4"') : text) as T;
}

// ---------------------------------------------------------------------------------------------
// The client.

export interface ClientOptions {
  /** The gateway's base URL, e.g. https://gateway.example (no /api/v1/merchant). */
  baseUrl: string;
  apiKey: string;
  /** Retries of a request that got no answer, a 5xx or a 429 (default 2). The same body is sent again: idempotent by merchant_tx_id. */
  maxRetries?: number;
  /** First backoff in ms (doubled each retry; a Retry-After wins). Default 500. */
  retryDelayMs?: number;
  /** Per-attempt timeout in ms (default 30 000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  query?: Record<string, unknown>;
  body?: unknown;
  pathParams?: Record<string, string | number>;
  headers?: Record<string, string>;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function queryString(q: Record<string, unknown> | undefined): string {
  if (!q) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) sp.append(k, String(one));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  afterRetry: boolean;
}

export interface CataloguePage {
  /** false: the page still has the ETag you sent (304), `page` is undefined. */
  modified: boolean;
  etag: string | null;
  page?: Data<'getCatalogue'>;
}

export class SkinGateway {
  private readonly base: string;
  private readonly opts: Required<Omit<ClientOptions, 'fetch' | 'baseUrl' | 'apiKey'>>;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.opts = { maxRetries: options.maxRetries ?? 2, retryDelayMs: options.retryDelayMs ?? 500, timeoutMs: options.timeoutMs ?? 30_000 };
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** One HTTP exchange with retries; answers whatever status came last. */
  async raw(operation: OperationId, call: CallOptions = {}): Promise<RawAnswer> {
    const op = OPERATIONS[operation];
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(call.pathParams?.[name] ?? '')));
    const url = `${this.base}/api/v1/merchant${path}${queryString(call.query)}`;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      const afterRetry = attempt > 0;
      try {
        const res = await this.fetchImpl(url, {
          method: op.method,
          headers: { 'x-api-key': this.options.apiKey, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...call.headers },
          body,
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        });
        const text = await res.text();
        if (!RETRYABLE.has(res.status) || attempt >= this.opts.maxRetries) return { status: res.status, headers: res.headers, text, afterRetry };
        const retryAfter = Number(res.headers.get('retry-after'));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : this.opts.retryDelayMs * 2 ** attempt);
      } catch (err) {
        lastError = err;
        if (attempt >= this.opts.maxRetries) throw new ConnectionError(`no answer from ${op.method} ${path}: ${(err as Error).message}`, err);
        await sleep(this.opts.retryDelayMs * 2 ** attempt);
      }
      void lastError;
    }
  }

  /** Calls an operation and answers its `data`, or throws the GatewayError of the answer. */
  async call<K extends OperationId>(operation: K, call: CallOptions = {}): Promise<Data<K>> {
    const r = await this.raw(operation, call);
    return this.dataOf(r) as Data<K>;
  }

  private dataOf(r: RawAnswer): unknown {
    let body: { success?: boolean; message?: string; data?: unknown } | undefined;
    try {
      body = r.text ? parseJson(r.text) : undefined;
    } catch {
      body = undefined;
    }
    if (r.status >= 200 && r.status < 300 && body?.success !== false) return body?.data;
    const retryAfter = Number(r.headers.get('retry-after'));
    throw errorFor(r.status, body, r.afterRetry, Number.isFinite(retryAfter) && r.headers.has('retry-after') ? retryAfter : null);
  }

  // ---- deposits (spec 4.1–4.7) ----
  createIntent(body: RequestBody<'createIntent'>) {
    return this.call('createIntent', { body });
  }
  getInventory(body: RequestBody<'getInventory'>) {
    return this.call('getInventory', { body });
  }
  /**
   * Creates the deposit. When the first answer was lost and the retry meets 409 (the first
   * attempt had created it), the existing deposit is answered (by merchant_tx_id).
   */
  async createDeposit(body: RequestBody<'createDeposit'>): Promise<Data<'createDeposit'> | Data<'getDepositStatus'>> {
    try {
      return await this.call('createDeposit', { body });
    } catch (err) {
      if (err instanceof ConflictError && err.afterRetry) return this.getDepositStatus({ merchant_tx_id: (body as { merchant_tx_id: string }).merchant_tx_id } as Query<'getDepositStatus'>);
      throw err;
    }
  }
  getPrices(body: RequestBody<'getPrices'>) {
    return this.call('getPrices', { body });
  }
  createDepositByHashName(body: RequestBody<'createDepositByHashName'>) {
    return this.call('createDepositByHashName', { body });
  }
  previewDeposit(body: RequestBody<'previewDeposit'>) {
    return this.call('previewDeposit', { body });
  }
  getDepositStatus(query: Query<'getDepositStatus'>) {
    return this.call('getDepositStatus', { query });
  }

  // ---- purchases (spec 4.8–4.10) ----
  /** Idempotent on merchant_tx_id: a repeat answers the stored purchase (HTTP 200). */
  createPurchase(body: RequestBody<'createPurchase'>) {
    return this.call('createPurchase', { body });
  }
  getPurchaseStatus(query: Query<'getPurchaseStatus'>) {
    return this.call('getPurchaseStatus', { query });
  }
  listPurchases(query: Query<'listPurchases'> = {} as Query<'listPurchases'>) {
    return this.call('listPurchases', { query });
  }

  // ---- catalogue (spec 4.11, 4.12) ----
  /** One of the 16 pages; pass the ETag of your copy to get `modified: false` (304) while it is current. */
  async getCatalogue(query: Query<'getCatalogue'> & { page: string | number }, opts: { etag?: string | null } = {}): Promise<CataloguePage> {
    const r = await this.raw('getCatalogue', { query, headers: opts.etag ? { 'if-none-match': opts.etag } : {} });
    if (r.status === 304) return { modified: false, etag: r.headers.get('etag') ?? opts.etag ?? null };
    const page = this.dataOf(r) as Data<'getCatalogue'>;
    return { modified: true, etag: r.headers.get('etag'), page };
  }
  /** Pages 1 to 16 of a game, each once (a walk never skips or repeats a listing). */
  async *walkCatalogue(query: Omit<Query<'getCatalogue'>, 'page'>, etags: Record<number, string | null> = {}): AsyncGenerator<CataloguePage & { number: number }> {
    for (let n = 1; n <= 16; n++) yield { number: n, ...(await this.getCatalogue({ ...query, page: String(n) } as Query<'getCatalogue'> & { page: string }, { etag: etags[n] })) };
  }
  /** The whole catalogue of a game in one (streamed) answer. A cut-off body is an error, never a catalogue. */
  downloadCatalogue(query: Omit<Query<'getCatalogue'>, 'page'>) {
    return this.call('getCatalogue', { query });
  }
  searchCatalogue(query: Query<'searchCatalogue'>) {
    return this.call('searchCatalogue', { query });
  }
  /** The catalogue change feed (beyond the spec). */
  getCatalogueEvents(query: Query<'getCatalogueEvents'>) {
    return this.call('getCatalogueEvents', { query });
  }

  // ---- balance, events ----
  getBalance() {
    return this.call('getBalance');
  }
  /** Your webhook events, newest first (beyond the spec). */
  listEvents(query: Query<'listEvents'> = {} as Query<'listEvents'>) {
    return this.call('listEvents', { query });
  }
  getEvent(id: string) {
    return this.call('getEvent', { pathParams: { id } });
  }

  // ---- sandbox helpers (PLATFORM=sandbox) ----
  sandboxDepositAction(id: number, action: SandboxAction, body: { hold?: boolean; by?: 'user' | 'gateway' } = {}) {
    return this.call('sandboxDepositAction', { pathParams: { id, action }, body });
  }
  sandboxPurchaseAction(id: number, action: SandboxAction, body: { hold?: boolean; by?: 'user' | 'gateway' } = {}) {
    return this.call('sandboxPurchaseAction', { pathParams: { id, action }, body });
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks: both signatures the gateway sends (docs/webhooks.md).

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The HMAC key: the bytes encoded after `whsec_`, in the base64url or the standard base64 alphabet. */
export function webhookKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const encoded = secret.slice('whsec_'.length);
    if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
      const key = Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (key.length > 0) return key;
    }
  }
  return Buffer.from(secret, 'utf8');
}

const safeEqual = (a: Buffer, b: Buffer) => a.length === b.length && crypto.timingSafeEqual(a, b);

/** The spec's `sign`: base64(sha256(String(trade_id | purchase_id) + secret)). */
export function verifySign(body: { sign?: unknown; trade_id?: unknown; purchase_id?: unknown }, secret: string): boolean {
  const id = body.trade_id ?? body.purchase_id;
  if (typeof body.sign !== 'string' || id === undefined) return false;
  const expected = crypto.createHash('sha256').update(String(id) + secret, 'utf8').digest('base64');
  return safeEqual(Buffer.from(body.sign), Buffer.from(expected));
}

type HeaderBag = Record<string, string | string[] | undefined> | Headers;
const header = (h: HeaderBag, name: string): string | undefined => {
  const v = h instanceof Headers ? h.get(name) ?? undefined : h[name] ?? h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

/** Standard Webhooks: `webhook-signature` = v1,base64(HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")). */
export function verifyStandardSignature(headers: HeaderBag, rawBody: string, secret: string, opts: { toleranceSec?: number; nowSec?: number } = {}): boolean {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sig = header(headers, 'webhook-signature');
  if (!id || !ts || !sig || !/^\d+$/.test(ts)) return false;
  const now = opts.nowSec ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (opts.toleranceSec ?? 300)) return false;
  const expected = crypto.createHmac('sha256', webhookKey(secret)).update(`${id}.${ts}.${rawBody}`, 'utf8').digest();
  return sig.split(' ').some((part) => {
    const [version, value] = part.split(',');
    return version === 'v1' && value !== undefined && safeEqual(Buffer.from(value, 'base64'), expected);
  });
}

export type WebhookBody = (DepositWebhook & { kind: 'deposit' }) | (PurchaseWebhook & { kind: 'purchase' });

/**
 * Verifies a webhook request (both signatures; the raw body exactly as received) and answers the
 * body with `kind` ('deposit': it has trade_id; 'purchase': purchase_id). Throws WebhookVerificationError.
 */
export function verifyWebhook(input: { rawBody: string | Buffer; headers: HeaderBag; secret: string; toleranceSec?: number; nowSec?: number }): WebhookBody {
  const raw = typeof input.rawBody === 'string' ? input.rawBody : input.rawBody.toString('utf8');
  if (!verifyStandardSignature(input.headers, raw, input.secret, input)) throw new WebhookVerificationError('webhook-signature does not match (or the timestamp is too old)');
  let body: Record<string, unknown>;
  try {
    body = parseJson(raw);
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
  if (!verifySign(body, input.secret)) throw new WebhookVerificationError('sign does not match');
  return { ...body, kind: 'purchase_id' in body ? 'purchase' : 'deposit' } as WebhookBody;
}
