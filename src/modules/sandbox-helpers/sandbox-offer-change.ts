// What the deposit and purchase sandbox helpers share: their actions, the offer change each one
// reports through the platform port (ctx.platform.simulate → the handler wired in context.ts), and
// the optional body.
import type { Config } from '../../config.js';
import type { TradingPlatform } from '../../platform/port.js';
import { validationError, type FieldError } from '../../domain/errors.js';
import { OFFER_CHANGE_ACTION } from '../../platform/offers.js';
import type { OfferChange } from '../../platform/port.js';

/** What the sandbox helpers use. */
export interface SandboxDeps {
  config: Pick<Config, 'platform'>;
  platform: TradingPlatform;
}

export const SANDBOX_ACTIONS = ['accept', 'decline', 'expire', 'cancel', 'release', 'revert'] as const;
export type SandboxAction = (typeof SANDBOX_ACTIONS)[number];

/** The offer change each helper action simulates: the inverse of the offer layer's change → action names. */
export const ACTION_CHANGE = Object.fromEntries(Object.entries(OFFER_CHANGE_ACTION).map(([change, action]) => [action, change])) as Record<
  SandboxAction,
  OfferChange['change']
>;

export type SandboxBody = { hold?: boolean; by?: 'user' | 'gateway' };

/** The body is optional (POST without one is fine), so it is checked here rather than by a schema. */
export function parseSandboxBody(raw: unknown, title: string): SandboxBody {
  if (raw == null || raw === '') return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw validationError([{ field: title, code: 'type', message: 'body must be an object' }]);
  const b = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (b.hold !== undefined && typeof b.hold !== 'boolean') errors.push({ field: `${title}.hold`, code: 'type', message: 'hold must be a boolean' });
  if (b.by !== undefined && b.by !== 'user' && b.by !== 'gateway') errors.push({ field: `${title}.by`, code: 'oneof', message: 'by must be one of: user, gateway' });
  if (errors.length) throw validationError(errors);
  return { hold: b.hold as boolean | undefined, by: b.by as SandboxBody['by'] };
}

/** The sandbox platform's simulate, or undefined when the platform has none (helpers not registered). */
export function simulatorOf(ctx: SandboxDeps): ((change: OfferChange) => Promise<unknown>) | undefined {
  if (ctx.config.platform !== 'sandbox' || !ctx.platform.simulate) return undefined;
  return ctx.platform.simulate.bind(ctx.platform);
}

/** The change a helper call reports: the calling merchant scopes it (another merchant's record is 404). */
export function helperChange(offer: OfferChange['offer'], merchantId: number, recordId: number, action: SandboxAction, body: SandboxBody): OfferChange {
  const change: OfferChange = { offer, recordId, change: ACTION_CHANGE[action], merchantId };
  if (action === 'accept' && body.hold !== undefined) change.hold = body.hold;
  if (action === 'revert' && body.by !== undefined) change.by = body.by;
  return change;
}
