// Merchant accounts: creation with fresh secrets, updates, key and secret rotation.
import net from 'node:net';
import type { Db } from '../../db/database.js';
import { randomSecret, sha256Hex } from '../../domain/secrets.js';
import { millsToUsd, scaledInteger } from '../../domain/money.js';
import { textProblem } from '../../domain/text-rules.js';
import { AppError, notFound, validationError, type FieldError } from '../../domain/errors.js';
import { isHttpUrl } from '../../http/validation.js';
import { RATE_LIMIT_MAX_PER_MINUTE } from '../../config.js';
import { getBalance } from '../ledger/ledger-moves.js';
import { assertWebhookTarget } from '../webhooks/target.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import * as repo from './merchant-repo.js';
import type { MerchantRow } from './merchant-repo.js';

export const API_KEY_PREFIX = 'sk_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export interface MerchantInput {
  name?: string;
  webhook_url?: string | null;
  ip_whitelist?: string[];
  deposit_preview_enabled?: boolean;
  max_items?: number;
  enabled?: boolean;
  deposit_multiplier?: number;
  purchase_markup?: number;
  frame_ancestors?: string[];
  /** Requests per minute on the merchant API (http/rate-limit.ts); null: RATE_LIMIT_MERCHANT_PER_MINUTE. */
  rate_limit_per_minute?: number | null;
}

const EDITABLE_FIELDS = [
  'name',
  'webhook_url',
  'ip_whitelist',
  'deposit_preview_enabled',
  'max_items',
  'enabled',
  'deposit_multiplier',
  'purchase_markup',
  'frame_ancestors',
  'rate_limit_per_minute',
] as const satisfies readonly (keyof MerchantInput)[];

/** Only the operator-editable columns, whatever the caller passed (the route schema refuses the rest too). */
function editable(input: MerchantInput): MerchantInput {
  const out: Record<string, unknown> = {};
  for (const k of EDITABLE_FIELDS) if (input[k] !== undefined) out[k] = input[k];
  return out as MerchantInput;
}

export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = randomSecret(API_KEY_PREFIX);
  return { key, hash: sha256Hex(key), prefix: key.slice(0, 10) };
}

/** The merchant record as the operator sees it: no secrets, ever. */
export function publicMerchant(m: MerchantRow) {
  return {
    id: m.id,
    name: m.name,
    enabled: m.enabled,
    api_key_prefix: m.api_key_prefix,
    webhook_url: m.webhook_url,
    ip_whitelist: m.ip_whitelist,
    deposit_preview_enabled: m.deposit_preview_enabled,
    max_items: m.max_items,
    deposit_multiplier: Number(m.deposit_multiplier),
    purchase_markup: Number(m.purchase_markup),
    frame_ancestors: m.frame_ancestors,
    rate_limit_per_minute: m.rate_limit_per_minute,
    created_at: new Date(m.created_at).toISOString(),
    updated_at: new Date(m.updated_at).toISOString(),
  };
}

/** A merchant's name: 1 to this many characters, not blank, no control or invisible formatting character (domain/text-rules.ts; the one rule for the admin API, the CLI and the console). */
export const MERCHANT_NAME_MAX = 200;
/**
 * The smallest deposit multiplier and purchase markup: below it, an item of the smallest price
 * (0.001 USD) would round to 0, and a deposit or purchase of amount 0 could be made.
 */
export const MIN_RATE = 0.5;

function checkInput(input: MerchantInput): void {
  const errors: FieldError[] = [];
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > MERCHANT_NAME_MAX)) {
    errors.push({ field: 'name', code: 'len', message: `name must have 1 to ${MERCHANT_NAME_MAX} characters and not be blank` });
  }
  const nameProblem = typeof input.name === 'string' ? textProblem(input.name, 'line') : undefined;
  if (nameProblem) errors.push({ field: 'name', code: 'format', message: `name ${nameProblem.message}` });
  if (input.webhook_url != null && !isHttpUrl(input.webhook_url)) {
    errors.push({ field: 'webhook_url', code: 'url', message: 'webhook_url must be a valid http(s) URL' });
  }
  for (const [i, ip] of (input.ip_whitelist ?? []).entries()) {
    if (net.isIP(ip) === 0) {
      errors.push({ field: `ip_whitelist[${i}]`, code: 'ip', message: `${ip} is not an IP address (exact addresses only, no CIDR ranges)` });
    }
  }
  for (const [i, origin] of (input.frame_ancestors ?? []).entries()) {
    if (!/^https?:\/\/[a-z0-9.*:-]+$/i.test(origin)) {
      errors.push({ field: `frame_ancestors[${i}]`, code: 'url', message: 'frame_ancestors entries are origins like https://shop.example' });
    }
  }
  // The columns are numeric(10,6): a finer rate would be rounded (1e-10 to 0), so refuse it.
  for (const field of ['deposit_multiplier', 'purchase_markup'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    try {
      scaledInteger(v, 6, field);
      if (v < MIN_RATE) errors.push({ field, code: 'min', message: `${field} must be at least ${MIN_RATE}: a smaller rate would price an item of 0.001 USD at 0` });
    } catch {
      errors.push({ field, code: 'numeric', message: `${field} has more than 6 decimals` });
    }
  }
  const limit = input.rate_limit_per_minute;
  if (limit != null && (!Number.isInteger(limit) || limit < 1 || limit > RATE_LIMIT_MAX_PER_MINUTE)) {
    errors.push({ field: 'rate_limit_per_minute', code: 'max', message: `rate_limit_per_minute must be a whole number of requests per minute from 1 to ${RATE_LIMIT_MAX_PER_MINUTE}, or empty for the default` });
  }
  if (errors.length) throw validationError(errors);
}

/** SSRF check of webhook_url (resolves the host unless private targets are allowed). */
async function checkWebhookTarget(input: MerchantInput, allowPrivate: boolean): Promise<void> {
  if (input.webhook_url != null) await assertWebhookTarget(input.webhook_url, allowPrivate, 'webhook_url');
}

export function createMerchantService(db: Db, opts: { webhookAllowPrivate?: boolean } = {}) {
  async function get(id: number) {
    const m = await repo.findById(db, id);
    if (!m) throw notFound();
    const b = await getBalance(db, id);
    const available = b?.available ?? 0;
    const hold = b?.hold ?? 0;
    return {
      ...publicMerchant(m),
      balance: { available: millsToUsd(available), hold: millsToUsd(hold), total: millsToUsd(available + hold) },
    };
  }

  return {
    async create(input: MerchantInput & { name: string }) {
      checkInput(input);
      await checkWebhookTarget(input, opts.webhookAllowPrivate ?? false);
      const key = newApiKey();
      const webhookSecret = newWebhookSecret();
      const row = await db.transaction().execute((trx) =>
        repo.insertMerchant(trx, {
          name: input.name,
          api_key_hash: key.hash,
          api_key_prefix: key.prefix,
          webhook_secret: webhookSecret,
          webhook_url: input.webhook_url ?? null,
          ip_whitelist: input.ip_whitelist ?? [],
          deposit_preview_enabled: input.deposit_preview_enabled ?? false,
          max_items: input.max_items ?? 50,
          enabled: input.enabled ?? true,
          deposit_multiplier: input.deposit_multiplier,
          purchase_markup: input.purchase_markup,
          frame_ancestors: input.frame_ancestors,
          rate_limit_per_minute: input.rate_limit_per_minute ?? null,
        }),
      );
      return { ...publicMerchant(row), api_key: key.key, webhook_secret: webhookSecret };
    },

    get,

    /** Whether the merchant exists (the directory that ledger, webhooks and accounts take, as their narrow view of merchants). */
    async exists(id: number): Promise<boolean> {
      return (await repo.findById(db, id)) !== undefined;
    },

    /** The merchant's row as stored (its secrets too), or undefined: for the gateway's own pages, hosted page and letters, never an API answer as it is. */
    findRow(id: number): Promise<MerchantRow | undefined> {
      return repo.findById(db, id);
    },

    async list(limit: number, offset: number) {
      return (await repo.listMerchants(db, limit, offset)).map(publicMerchant);
    },

    async update(id: number, input: MerchantInput) {
      const patch = editable(input);
      checkInput(patch);
      await checkWebhookTarget(patch, opts.webhookAllowPrivate ?? false);
      if (Object.keys(patch).length === 0) return get(id);
      const row = await repo.updateMerchant(db, id, patch);
      if (!row) throw notFound();
      return publicMerchant(row);
    },

    async rotateKey(id: number) {
      const key = newApiKey();
      const row = await repo.updateMerchant(db, id, { api_key_hash: key.hash, api_key_prefix: key.prefix });
      if (!row) throw notFound();
      return { id: row.id, api_key: key.key, api_key_prefix: key.prefix };
    },

    async rotateWebhookSecret(id: number) {
      const secret = newWebhookSecret();
      const row = await repo.updateMerchant(db, id, { webhook_secret: secret });
      if (!row) throw notFound();
      return { id: row.id, webhook_secret: secret };
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
export { AppError };
