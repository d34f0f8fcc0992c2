// Operator-managed bots: add with encrypted secrets, list, show, update, disable,
// remove, and `check` (the platform adapter signs the bot in and reports what it can do).
// Secrets never leave this module in clear except to the steam driver, and never appear in views.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { rotationOf as rotationOfBot, type Rotation } from '../../domain/bot-rotation.js';
import { GAMES } from '../../domain/games.js';
import { isUniqueViolation } from '../../db/database.js';
import { AppError, notFound, validationError, type FieldError } from '../../domain/errors.js';
import type { TradingPlatform } from '../../platform/port.js';
import { createSecretBox, parseSecretsKey, proxyAad, secretsAad, type BotSecrets, type SecretBox } from '../../platform/steam/secret-box.js';
import { proxyUrlProblem } from '../../platform/steam/bot-route.js';
import * as repo from '../../platform/steam/bot-repo.js';

export interface NewBot extends BotSecrets {
  account_name: string;
  platform_id: string;
  name?: string;
  games?: string[];
  inventory_capacity?: number;
  /** The bot's own outbound proxy URL (stored sealed; none: direct). */
  proxy?: string;
}

export interface BotPatch {
  name?: string;
  enabled?: boolean;
  games?: string[];
  inventory_capacity?: number;
  /** A new outbound proxy URL, or null for none. */
  proxy?: string | null;
}

/** The secret box of BOT_SECRETS_KEY, or a clear error when the key is not configured. */
export function secretBoxOf(config: Config): SecretBox {
  if (!config.botSecretsKey) throw new AppError('validation', 'BOT_SECRETS_KEY is not set: bot secrets cannot be stored or read');
  return createSecretBox(parseSecretsKey(config.botSecretsKey));
}

const B64_20 = /^[A-Za-z0-9+/]{27}=$/; // 20 bytes, as in a Steam Guard maFile

function checkNew(input: NewBot): FieldError[] {
  const errors: FieldError[] = [];
  if (!/^[A-Za-z0-9_]{3,64}$/.test(input.account_name ?? '')) errors.push({ field: 'account_name', code: 'format', message: 'account_name: 3 to 64 letters, digits or _' });
  if (typeof input.password !== 'string' || input.password.length < 1 || input.password.length > 256) errors.push({ field: 'password', code: 'len', message: 'password: 1 to 256 characters' });
  if (!B64_20.test(input.shared_secret ?? '')) errors.push({ field: 'shared_secret', code: 'format', message: 'shared_secret: base64 of 20 bytes (the maFile value)' });
  if (!B64_20.test(input.identity_secret ?? '')) errors.push({ field: 'identity_secret', code: 'format', message: 'identity_secret: base64 of 20 bytes (the maFile value)' });
  if (!/^7656119\d{10}$/.test(input.platform_id ?? '')) errors.push({ field: 'platform_id', code: 'format', message: 'platform_id: the 17-digit 64-bit account ID (7656119…)' });
  if (input.web_cookies !== undefined) errors.push(...checkWebCookies(input.web_cookies, input.platform_id));
  return errors.concat(checkPatch(input));
}

/** A stored web session must carry the session cookie of this very account. */
function checkWebCookies(cookies: string[], platformId: string): FieldError[] {
  const secure = cookies.map((c) => /^steamLoginSecure=(\d{17})(?:%7C%7C|\|\|)\S+$/.exec(c.split(';')[0]!.trim())).find(Boolean);
  if (!secure) return [{ field: 'web_cookies', code: 'format', message: 'web_cookies: needs steamLoginSecure=<steamid>%7C%7C<access token>' }];
  if (secure[1] !== platformId) return [{ field: 'web_cookies', code: 'denied', message: 'web_cookies: the session belongs to another account than platform_id' }];
  return [];
}

function checkPatch(input: BotPatch): FieldError[] {
  const errors: FieldError[] = [];
  if (input.games !== undefined) {
    const bad = input.games.filter((g) => !(GAMES as readonly string[]).includes(g));
    if (input.games.length === 0 || bad.length) errors.push({ field: 'games', code: 'oneof', message: `games: one or more of ${GAMES.join(', ')}` });
  }
  const cap = input.inventory_capacity;
  if (cap !== undefined && (!Number.isInteger(cap) || cap < 1 || cap > 100_000)) errors.push({ field: 'inventory_capacity', code: 'max', message: 'inventory_capacity: 1 to 100000' });
  if (input.name !== undefined && (input.name.length < 1 || input.name.length > 200)) errors.push({ field: 'name', code: 'len', message: 'name: 1 to 200 characters' });
  const proxyProblem = typeof input.proxy === 'string' ? proxyUrlProblem(input.proxy) : null;
  if (proxyProblem) errors.push({ field: 'proxy', code: 'format', message: proxyProblem });
  return errors;
}

type BotRow = Awaited<ReturnType<typeof repo.listBots>>[number];

/**
 * A bots row's rotation: the one rule (domain/bot-rotation.ts) on the state the driving instance
 * wrote (lease, session) and the operator's (enabled, trade state). The admin API, the console and
 * the metric read it; the picker applies the same rule to its drivers.
 */
export function rotationOf(b: { account_name: string | null; removed_at: Date | string | null; enabled: boolean; trade_state: string; trade_state_reason: string | null; session_error?: string | null; sign_in_retry_at?: Date | string | null; lease_expires_at: Date | string | null; signed_in?: boolean }): { rotation: Rotation; reason: string | null } {
  return rotationOfBot({
    managed: b.account_name !== null,
    removed: Boolean(b.removed_at),
    enabled: b.enabled,
    tradeState: b.trade_state,
    tradeStateReason: b.trade_state_reason,
    driven: Boolean(b.lease_expires_at && new Date(b.lease_expires_at) > new Date()),
    live: Boolean(b.signed_in),
    sessionError: b.session_error ?? null,
    signInRetryAt: b.sign_in_retry_at ? new Date(b.sign_in_retry_at) : null,
  });
}

/** The operator's view of a bot: state, lease and capabilities; never a secret. */
export function botView(b: BotRow | Awaited<ReturnType<typeof repo.insertBot>>) {
  const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
  const status = b.removed_at ? 'removed' : !b.enabled ? 'disabled' : b.trade_state === 'cannot_trade' ? 'cannot_trade' : 'active';
  const signedIn = 'signed_in' in b ? Boolean(b.signed_in) : false;
  const rot = rotationOf({ ...b, signed_in: signedIn });
  return {
    id: Number(b.id),
    name: b.name,
    account_name: b.account_name,
    platform_id: b.platform_id,
    status,
    enabled: b.enabled,
    trade_state: b.trade_state,
    trade_state_reason: b.trade_state_reason,
    games: b.games,
    inventory_capacity: b.inventory_capacity,
    signed_in: signedIn,
    last_authenticated_at: iso(b.last_authenticated_at),
    session_error: b.session_error,
    proxy: 'proxy_set' in b && b.proxy_set ? 'set' : null,
    sign_in_retry_at: iso(b.sign_in_retry_at),
    rotation: rot.rotation,
    rotation_reason: rot.reason,
    lease_owner: b.lease_expires_at && new Date(b.lease_expires_at) > new Date() ? b.lease_owner : null,
    lease_expires_at: iso(b.lease_expires_at),
    trade_protection_acknowledged_at: iso(b.trade_protection_acknowledged_at),
    last_checked_at: iso(b.last_checked_at),
    created_at: iso(b.created_at),
    removed_at: iso(b.removed_at),
  };
}

export function createBotService(deps: { db: Db; config: Config; platform: TradingPlatform }) {
  const { db } = deps;

  // On the sandbox platform its seeded bots (no account) are the bots the console shows and toggles.
  const consoleScope: repo.BotScope = deps.platform.kind === 'sandbox' ? 'all' : 'managed';

  async function show(id: number, scope: repo.BotScope = 'managed') {
    const b = await repo.findBot(db, id, scope);
    if (!b) throw notFound();
    return botView(b);
  }

  async function updateIn(scope: repo.BotScope, id: number, patch: BotPatch) {
    const errors = checkPatch(patch);
    if (errors.length) throw validationError(errors);
    const { proxy, ...rest } = patch;
    let sealedProxy: { proxy?: Buffer | null } = {};
    if (proxy !== undefined) {
      const row = await repo.botForDriver(db, id);
      if (!row?.account_name) throw notFound();
      sealedProxy = { proxy: proxy === null ? null : secretBoxOf(deps.config).seal(proxy, proxyAad(row.account_name)) };
    }
    if (!(await repo.updateBot(db, id, { ...rest, ...sealedProxy }, scope))) throw notFound();
    // Enabling a bot is also the operator's word that it may trade again.
    if (patch.enabled === true) await repo.setTradeState(db, id, 'ok', null);
    // The picker takes the change up before the answer, so the view answered is the picker's.
    await deps.platform.botsChanged?.();
    return show(id, scope);
  }

  return {
    async add(input: NewBot) {
      const errors = checkNew(input);
      if (errors.length) throw validationError(errors);
      const box = secretBoxOf(deps.config);
      // Steam mode: the sandbox's seeded rows must not hold a real bot's platform id.
      if (deps.platform.kind === 'steam') await repo.dropSandboxBots(db);
      const secrets: BotSecrets = { password: input.password, shared_secret: input.shared_secret, identity_secret: input.identity_secret, ...(input.web_cookies ? { web_cookies: input.web_cookies } : {}) };
      try {
        const row = await repo.insertBot(db, {
          name: input.name ?? input.account_name,
          platform_id: input.platform_id,
          account_name: input.account_name,
          secrets: box.seal(JSON.stringify(secrets), secretsAad(input.account_name)),
          games: input.games ?? [...GAMES],
          inventory_capacity: input.inventory_capacity ?? 1000,
          ...(input.proxy ? { proxy: box.seal(input.proxy, proxyAad(input.account_name)) } : {}),
        });
        return botView(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw validationError([{ field: 'account_name', code: 'exist', message: 'a bot with this account name, name or platform_id already exists' }]);
        throw err;
      }
    },
    /** Steam mode at start-up: the sandbox's seeded bots go (those no record names). */
    dropSandboxBots: () => (deps.platform.kind === 'steam' ? repo.dropSandboxBots(db) : Promise.resolve(0)),
    async list(limit = 100, offset = 0) {
      return (await repo.listBots(db, limit, offset)).map(botView);
    },
    show: (id: number) => show(id),
    update: (id: number, patch: BotPatch) => updateIn('managed', id, patch),
    /** The console's list: the managed bots, plus the seeded ones on the sandbox platform. */
    async listForConsole(limit = 100, offset = 0) {
      return (await repo.listBots(db, limit, offset, consoleScope)).map(botView);
    },
    /** The console's disable / enable, in the same scope as its list. */
    setEnabled: (id: number, enabled: boolean) => updateIn(consoleScope, id, { enabled }),
    async remove(id: number) {
      if (!(await repo.removeBot(db, id))) throw notFound();
      await deps.platform.botsChanged?.();
      return show(id);
    },
    /**
     * Stores a new web session for the bot (sealed with its secrets); its driver uses it at the
     * next sign-in, i.e. when the current session expires. Secrets are re-sealed in one update.
     */
    async setWebSession(id: number, cookies: string[]) {
      const row = await repo.botForDriver(db, id);
      if (!row || !row.secrets) throw notFound();
      const errors = checkWebCookies(cookies, row.platform_id);
      if (errors.length) throw validationError(errors);
      const box = secretBoxOf(deps.config);
      const aad = secretsAad(row.account_name!);
      const secrets = { ...(JSON.parse(box.open(row.secrets, aad)) as BotSecrets), web_cookies: cookies };
      if (!(await repo.replaceSecrets(db, id, box.seal(JSON.stringify(secrets), aad)))) throw notFound();
      return show(id);
    },
    /** Signs the bot in on the platform and reports what it can do (steam only). */
    async check(id: number) {
      await show(id);
      if (!deps.platform.checkBot) throw new AppError('validation', `the ${deps.platform.kind} platform has no real bots to check`);
      const report = await deps.platform.checkBot(id);
      return { bot: await show(id), check: report };
    },
  };
}

export type BotService = ReturnType<typeof createBotService>;
