// create-intent (spec 4.1): the rules beyond the schema, then one insert. Idempotency is the
// database's job: a duplicate merchant_tx_id fails on the unique constraint and answers 409.
import crypto from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { conflictDuplicate, validationError, type FieldError } from '../../domain/errors.js';
import { isUniqueViolation } from '../../db/database.js';
import type { TradingPlatform } from '../../platform/port.js';
import { callPlatform } from '../deposits/deposit-platform.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import { assertWebhookTarget } from '../webhooks/target.js';
import { insertIntent } from './intent-repo.js';
import type { CreateIntentBody } from './intent-schemas.js';

const F = 'CreateIntentRequest';
const CURRENCY_FIELDS = ['custom_currency', 'custom_currency_multiplier', 'custom_currency_rate'] as const;

export interface IntentDeps {
  db: Db;
  config: Pick<Config, 'publicUrl' | 'webhookAllowPrivate' | 'depositTimeoutMs' | 'intentTtlSeconds'>;
  platform: Pick<TradingPlatform, 'checkTradeLink'>;
  clock: Clock;
}

export interface CreatedIntent {
  id: number;
  merchant_tx_id: string;
  url: string;
}

/** 256 random bits, base64url (43 characters): the only credential of the hosted page. */
export function newHostedToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hostedPageUrl(publicUrl: string, hostedToken: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/deposit/${hostedToken}`;
}

export function createIntentService(deps: IntentDeps) {
  function checkPairs(body: CreateIntentBody): void {
    const errors: FieldError[] = [];
    // A trade link is partner and token together; one without the other cannot be checked.
    if (body.partner !== undefined && body.token === undefined) {
      errors.push({ field: `${F}.token`, code: 'required', message: 'token is required when partner is given' });
    }
    if (body.token !== undefined && body.partner === undefined) {
      errors.push({ field: `${F}.partner`, code: 'required', message: 'partner is required when token is given' });
    }
    // Custom currency: all three fields or none (spec 8).
    const given = CURRENCY_FIELDS.filter((k) => body[k] !== undefined);
    if (given.length > 0 && given.length < CURRENCY_FIELDS.length) {
      for (const k of CURRENCY_FIELDS) {
        if (body[k] === undefined) {
          errors.push({ field: `${F}.${k}`, code: 'required', message: `${k} is required when ${given.join(', ')} is given: send all three currency fields or none` });
        }
      }
    }
    if (errors.length) throw validationError(errors);
  }

  return {
    async create(merchant: MerchantRow, body: CreateIntentBody): Promise<CreatedIntent> {
      checkPairs(body);
      if (body.result_url !== undefined) await assertWebhookTarget(body.result_url, deps.config.webhookAllowPrivate, 'result_url');

      let platformId: string | null = null;
      if (body.partner !== undefined && body.token !== undefined) {
        const game = (body.game ?? 'csgo') as Game;
        const { partner, token } = body;
        // The same time limit and error mapping as every deposit path (deposit-platform.ts).
        const user = await callPlatform(() => deps.platform.checkTradeLink(game, partner, token), deps.config.depositTimeoutMs);
        platformId = user.platformId;
      }

      const hostedToken = newHostedToken();
      let id: number;
      try {
        ({ id } = await insertIntent(deps.db, {
          merchant_id: merchant.id,
          merchant_tx_id: body.merchant_tx_id,
          game: body.game ?? null,
          partner: body.partner ?? null,
          token: body.token ?? null,
          platform_id: platformId,
          result_url: body.result_url ?? null,
          success_url: body.success_url ?? null,
          fail_url: body.fail_url ?? null,
          custom_currency: body.custom_currency ?? null,
          custom_currency_multiplier: body.custom_currency_multiplier ?? null,
          custom_currency_rate: body.custom_currency_rate ?? null,
          hosted_token: hostedToken,
          hosted_expires_at: new Date(deps.clock.now().getTime() + deps.config.intentTtlSeconds * 1000),
        }));
      } catch (err) {
        if (isUniqueViolation(err, 'deposits_merchant_tx_id_key')) throw conflictDuplicate();
        throw err;
      }
      return { id, merchant_tx_id: body.merchant_tx_id, url: hostedPageUrl(deps.config.publicUrl, hostedToken) };
    },
  };
}

export type IntentService = ReturnType<typeof createIntentService>;
