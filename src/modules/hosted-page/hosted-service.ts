// The hosted deposit page's back end (redirect flow, spec 2.2 / 6.3). The hosted token is the only
// credential: it names one intent, and through it one merchant. Inventory, deposit and status are
// the deposits feature's own operations, called for that merchant and that intent.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { isoUtc } from '../../domain/clock.js';
import { GAMES, type Game } from '../../domain/games.js';
import { forbidden, notFound, validationError, type FieldError } from '../../domain/errors.js';
import type { MerchantRow } from '../../db/tables/merchants.js';
import { findIntentByToken, type IntentRow } from './intent-repo.js';
import { platformErrorToAppError } from '../deposits/deposit-platform.js';
import { intentExpired, intentLinkExpired } from '../deposits/deposit-rules.js';
import { disabledRefusal } from '../merchants/disabled.js';

/** What the hosted page needs from the deposits feature (ctx.deposits). */
export interface HostedDepositsPort {
  inventory(merchant: MerchantRow, req: { game: Game; partner: number; token: string }): Promise<unknown>;
  createDeposit(
    merchant: MerchantRow,
    req: {
      merchant_tx_id: string;
      game: Game;
      partner: number;
      token: string;
      asset_ids: string[];
      result_url?: string;
      success_url?: string;
      fail_url?: string;
      custom_currency?: string;
      custom_currency_multiplier?: number;
      custom_currency_rate?: number;
    },
    opts?: { intentId?: number },
  ): Promise<unknown>;
  status(merchant: MerchantRow, q: { id?: number; merchant_tx_id?: string }): Promise<unknown>;
}

/** What the hosted page needs of merchants: the intent's merchant's row (the assembly passes the merchant service). */
export interface HostedMerchants {
  findRow(merchantId: number): Promise<MerchantRow | undefined>;
}

export interface HostedDeps {
  db: Db;
  config: Pick<Config, 'publicUrl'>;
  deposits: HostedDepositsPort;
  merchants: HostedMerchants;
  clock: { now(): Date };
}

/** Tokens are 43 base64url characters; anything else is not looked up at all. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,128}$/;

export interface TradeLinkInput {
  partner?: number;
  token?: string;
  game?: string;
}

export interface HostedState {
  id: number;
  merchant_tx_id: string;
  merchant_name: string;
  status: string;
  game: Game | null;
  games: readonly Game[];
  needs_trade_link: boolean;
  max_items: number;
  amount: number | null;
  bot_name: string | null;
  trade_offer_id: string | null;
  trade_offer_expiry_at: string | null;
  hold_end_date: string | null;
  fail_reason: string | null;
  success_url: string | null;
  fail_url: string | null;
  server_time: string;
  /** When the link stops taking deposits (INTENT_TTL_SECONDS after create-intent). */
  expires_at: string | null;
  /** The link expired before a deposit was made through it (status stays new; nothing can be deposited). */
  expired: boolean;
  /** Exact origins the page may post its status to; empty = any parent ('*'). */
  parent_origins: string[];
}

function pick<T>(wire: Record<string, unknown>, key: string): T | null {
  const v = wire[key];
  return v === undefined ? null : (v as T);
}

export function createHostedService(deps: HostedDeps) {
  async function load(hostedToken: string): Promise<{ intent: IntentRow; merchant: MerchantRow }> {
    if (typeof hostedToken !== 'string' || !TOKEN_SHAPE.test(hostedToken)) throw notFound();
    const intent = await findIntentByToken(deps.db, hostedToken);
    if (!intent) throw notFound();
    const merchant = await deps.merchants.findRow(intent.merchant_id);
    if (!merchant) throw notFound();
    const disabled = disabledRefusal(merchant); // every hosted page and call of a disabled merchant
    if (disabled) throw disabled;
    return { intent, merchant };
  }

  function assertUsable(intent: IntentRow, merchant: MerchantRow): void {
    if (intent.status !== 'new') {
      throw validationError([{ field: 'status', code: 'denied', message: `this deposit was already submitted (status ${intent.status})` }]);
    }
    // An intent already in a deposit follows that deposit; one still new expires with its link.
    if (intentLinkExpired(intent, deps.clock.now())) throw intentExpired();
  }

  /** The intent's trade link and game, else the ones the user typed on the page. */
  function resolveTradeLink(intent: IntentRow, input: TradeLinkInput, title: string): { game: Game; partner: number; token: string } {
    const errors: FieldError[] = [];
    const hasLink = intent.partner !== null && intent.token !== null;
    const partner = hasLink ? Number(intent.partner) : input.partner;
    const token = hasLink ? intent.token! : input.token;
    const game = (intent.game ?? input.game) as Game | undefined;
    if (partner === undefined) errors.push({ field: `${title}.partner`, code: 'required', message: 'partner is required: paste your trade link' });
    if (token === undefined) errors.push({ field: `${title}.token`, code: 'required', message: 'token is required: paste your trade link' });
    if (game === undefined) errors.push({ field: `${title}.game`, code: 'required', message: 'game is required' });
    if (errors.length) throw validationError(errors);
    return { game: game!, partner: partner!, token: token! };
  }

  async function state(intent: IntentRow, merchant: MerchantRow): Promise<HostedState> {
    // The deposit's own status answer (4.7) is the source of truth once the intent is committed.
    const wire = (await deps.deposits.status(merchant, { id: intent.id })) as Record<string, unknown>;
    const amount = pick<number>(wire, 'amount');
    return {
      id: intent.id,
      merchant_tx_id: intent.merchant_tx_id,
      merchant_name: merchant.name,
      status: (pick<string>(wire, 'status') ?? intent.status),
      game: (intent.game as Game | null) ?? (pick<Game>(wire, 'game') ?? null),
      games: GAMES,
      needs_trade_link: intent.partner === null || intent.token === null,
      max_items: merchant.max_items,
      amount: intent.status === 'new' && !amount ? null : amount,
      bot_name: pick(wire, 'bot_name'),
      trade_offer_id: pick(wire, 'trade_offer_id'),
      trade_offer_expiry_at: pick(wire, 'trade_offer_expiry_at'),
      hold_end_date: pick(wire, 'hold_end_date'),
      fail_reason: pick(wire, 'fail_reason'),
      success_url: intent.success_url,
      fail_url: intent.fail_url,
      server_time: deps.clock.now().toISOString(),
      expires_at: intent.hosted_expires_at ? isoUtc(new Date(intent.hosted_expires_at)) : null,
      expired: intentLinkExpired(intent, deps.clock.now()),
      parent_origins: postMessageOrigins(merchant.frame_ancestors),
    };
  }

  return {
    /** The merchant behind a token (the page route needs its frame_ancestors). */
    load,

    async state(hostedToken: string): Promise<HostedState> {
      const { intent, merchant } = await load(hostedToken);
      return state(intent, merchant);
    },

    async inventory(hostedToken: string, input: TradeLinkInput): Promise<unknown> {
      const { intent, merchant } = await load(hostedToken);
      assertUsable(intent, merchant);
      const link = resolveTradeLink(intent, input, 'HostedInventoryRequest');
      try {
        return await deps.deposits.inventory(merchant, link);
      } catch (err) {
        throw platformErrorToAppError(err);
      }
    },

    async deposit(hostedToken: string, input: TradeLinkInput & { asset_ids: string[] }): Promise<HostedState> {
      const { intent, merchant } = await load(hostedToken);
      assertUsable(intent, merchant);
      const link = resolveTradeLink(intent, input, 'HostedDepositRequest');
      const optional = {
        result_url: intent.result_url ?? undefined,
        success_url: intent.success_url ?? undefined,
        fail_url: intent.fail_url ?? undefined,
        ...(intent.custom_currency !== null
          ? {
              custom_currency: intent.custom_currency,
              custom_currency_multiplier: Number(intent.custom_currency_multiplier),
              custom_currency_rate: Number(intent.custom_currency_rate),
            }
          : {}),
      };
      try {
        await deps.deposits.createDeposit(merchant, { merchant_tx_id: intent.merchant_tx_id, ...link, asset_ids: input.asset_ids, ...optional }, { intentId: intent.id });
      } catch (err) {
        throw platformErrorToAppError(err);
      }
      // The page gets its own view (the same as /status): active with the offer, or failed in-band.
      return state(intent, merchant);
    },
  };
}

export type HostedService = ReturnType<typeof createHostedService>;

/**
 * Where the page's status messages may go: the merchant's frame_ancestors when every entry is an
 * exact origin (so txId and status reach only the merchant's own pages); otherwise any parent.
 */
export function postMessageOrigins(frameAncestors: readonly string[] | null | undefined): string[] {
  const list = frameAncestors ?? [];
  const exact = list.filter((o) => /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/i.test(o));
  return exact.length > 0 && exact.length === list.length ? exact.map((o) => o.toLowerCase()) : [];
}
