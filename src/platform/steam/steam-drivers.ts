// The bots this instance drives: it holds a lease on each (bots table, BOT_LEASE_SECONDS;
// another instance takes a bot over once the lease runs out), signs them in (refresh tokens stored
// encrypted in the database) and keeps one driver per bot. The poll and the record-facing calls
// reach the bots only through this module.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { rotationOf, type Rotation } from '../../domain/bot-rotation.js';
import type { Game } from '../../domain/games.js';
import * as bots from './bot-repo.js';
import { NoBotAvailableError, PlatformOfferUncertainError, PlatformUnavailableError } from '../port.js';
import { createBackoff } from './backoff.js';
import { createSecretBox, parseSecretsKey, proxyAad, refreshTokenAad, secretsAad, type BotSecrets } from './secret-box.js';
import { BotSignInError, type SessionProvider } from './session.js';
import { BotDriver, type OfferSnapshot, type SessionState } from './steam-bot.js';
import { platformError } from './steam-send.js';

/** accepting: the operator's word (enabled); a disabled bot only drains its open offers. Whether it takes new offers: rotationOfDriven. */
export interface Driven {
  driver: BotDriver;
  games: string[];
  accepting: boolean;
}

/** A driven bot's rotation: the one rule (domain/bot-rotation.ts) on its driver's own state. */
export function rotationOfDriven(d: Driven): { rotation: Rotation; reason: string | null } {
  const st = d.driver.sessionState();
  // A driven bot is able to trade (the lease round stops the driver of one that is not) and not removed.
  return rotationOf({ managed: true, removed: false, enabled: d.accepting, tradeState: 'ok', tradeStateReason: null, driven: true, live: st.live, sessionError: st.error, signInRetryAt: st.retryAt });
}

/** Sign-ins tried on the platform per bot and outcome, since the process started (read by the metrics). */
export type SignInCounts = Record<string, Record<'ok' | 'failed' | 'rate_limited', number>>;

/** The "no bot" refusal, whatever the reason: every candidate is out of rotation or failed signed out. */
export const NO_BOT_MESSAGE = 'no bot is available for this game';

export interface DriverDeps {
  db: Db;
  config: Config;
  log: Logger;
  sessions: SessionProvider;
  instanceId: string;
  /** A change the driver's poll saw on one of the bot's offers. */
  offerChanged(botId: number, o: OfferSnapshot): Promise<void>;
}

export function createDrivers(deps: DriverDeps) {
  const { db, config, log, sessions, instanceId } = deps;
  const settings = config.steam;
  const box = createSecretBox(parseSecretsKey(config.botSecretsKey ?? ''));
  const backoff = createBackoff({ baseMs: settings.backoffBaseMs, maxMs: 60_000, attempts: 4 });
  const drivers = new Map<number, Driven>();
  const signIns: SignInCounts = {};
  const webSessionAad = (account: string) => `bot-web-session:${account}`;

  /** A driver for the bot, not signed in yet (the lease round starts it; one-off callers sign it in). */
  async function newDriver(botId: number): Promise<{ driver: BotDriver; acknowledged: boolean }> {
    const row = await bots.botForDriver(db, botId);
    if (!row || !row.secrets) throw new PlatformUnavailableError(`bot ${botId} is not available`);
    const account = row.account_name!;
    const secrets = JSON.parse(box.open(row.secrets, secretsAad(account))) as BotSecrets;
    const refreshToken = row.refresh_token ? box.open(row.refresh_token, refreshTokenAad(account)) : undefined;
    const proxy = row.proxy ? box.open(row.proxy, proxyAad(account)) : undefined;
    // The stored web session to start from: the driver's last working one, else the operator's.
    const storedSession = async (): Promise<string[] | undefined> => {
      const now = await bots.botForDriver(db, botId);
      if (now?.web_session) {
        try {
          return JSON.parse(box.open(now.web_session, webSessionAad(account))) as string[];
        } catch {
          // Sealed under another key: not usable, the operator's session or a sign-in instead.
        }
      }
      return now?.secrets ? (JSON.parse(box.open(now.secrets, secretsAad(account))) as BotSecrets).web_cookies : undefined;
    };
    const driver = new BotDriver(
      { id: botId, name: row.name, platformId: row.platform_id, accountName: account, password: secrets.password, sharedSecret: secrets.shared_secret, identitySecret: secrets.identity_secret, refreshToken, webCookies: secrets.web_cookies, pollData: row.poll_data, proxy },
      {
        settings, sessions, backoff, offerTtlMs: config.offerTtlSeconds * 1000,
        events: {
          offerChanged: (o) => deps.offerChanged(botId, o),
          pollData: (data) => bots.saveDriverState(db, botId, { poll_data: data }),
          refreshToken: (t) => bots.saveDriverState(db, botId, { refresh_token: box.seal(t, refreshTokenAad(account)) }),
          session: (st) => sessionChanged(botId, st),
          webCookies: storedSession,
          webSession: (ws) => bots.saveWebSession(db, botId, box.seal(JSON.stringify(ws.cookies), webSessionAad(account))),
          signInTried: (outcome) => {
            const c = (signIns[row.name] ??= { ok: 0, failed: 0, rate_limited: 0 });
            c[outcome]++;
            log.info({ botId, outcome, signIns: c }, 'steam: bot sign-in on the platform');
          },
        },
      },
    );
    return { driver, acknowledged: Boolean(row.trade_protection_acknowledged_at) };
  }

  /** Without it (2025) offers from the account hang: once per account. */
  async function acknowledge(botId: number, driver: BotDriver): Promise<void> {
    await driver.acknowledgeTradeProtection();
    await bots.saveDriverState(db, botId, { trade_protection_acknowledged_at: new Date() });
  }

  /** A signed-in driver of the bot for one caller (the CLI's check, a bot another instance drives). */
  async function driverFor(botId: number): Promise<BotDriver> {
    const { driver, acknowledged } = await newDriver(botId);
    try {
      await driver.signIn();
      if (!acknowledged) await acknowledge(botId, driver);
    } catch (err) {
      driver.stop();
      throw err;
    }
    return driver;
  }

  /**
   * The session state each running driver last wrote, written again on every change (in order, one
   * write at a time per bot) so the bots row — what the operator, the console and the metrics read —
   * says what the picker decides on; an unchanged live session refreshes last_authenticated_at at
   * most every 10 s. Only a transition of `live` is logged: a bot leaves or enters the rotation once.
   */
  const sessionSeen = new Map<number, { st: SessionState; savedAt: number; chain: Promise<void> }>();
  function sessionChanged(botId: number, st: SessionState): void {
    const seen = sessionSeen.get(botId);
    const same = seen && seen.st.live === st.live && seen.st.error === st.error && seen.st.retryAt?.getTime() === st.retryAt?.getTime();
    if (same && Date.now() - seen.savedAt < 10_000) return;
    if (seen && seen.st.live !== st.live) {
      if (st.live) log.warn({ botId }, 'steam: bot session live again (a signed-in call went through); back in rotation');
      else log.warn({ botId, reason: st.error }, 'steam: bot session lost (signed out, sign-in failed); out of rotation, signing in again with backoff');
    }
    const chain = (seen?.chain ?? Promise.resolve()).then(() => bots.saveSession(db, botId, instanceId, {
      session_live: st.live, session_error: st.error, sign_in_retry_at: st.retryAt, ...(st.live && st.at ? { last_authenticated_at: st.at } : {}),
    })).catch((err) => log.warn({ botId, err: (err as Error).message }, 'steam: session state not saved'));
    sessionSeen.set(botId, { st, savedAt: Date.now(), chain });
  }

  /** The bot's running driver, or one opened for this call (the CLI, or a bot another instance drives). */
  async function withDriver<T>(botId: number, fn: (d: BotDriver) => Promise<T>): Promise<T> {
    const running = drivers.get(botId)?.driver;
    const driver = running ?? (await driverFor(botId));
    try {
      return await fn(driver);
    } catch (err) {
      throw platformError(err);
    } finally {
      if (!running) driver.stop();
    }
  }

  function stopDriver(botId: number): void {
    drivers.get(botId)?.driver.stop();
    drivers.delete(botId);
    sessionSeen.delete(botId);
  }

  async function outOfRotation(botId: number, reason: string): Promise<void> {
    log.error({ botId, reason }, 'steam: bot cannot trade; taken out of rotation');
    await bots.setTradeState(db, botId, 'cannot_trade', reason);
    stopDriver(botId);
    await bots.releaseLeases(db, instanceId, [botId]);
  }

  /** Lease rounds run one at a time (the timer's and an operator's change): one driver per bot. */
  let leaseRound: Promise<unknown> = Promise.resolve();
  function leaseTick(): Promise<number[]> {
    const round = leaseRound.catch(() => {}).then(leaseRoundNow);
    leaseRound = round;
    return round;
  }

  async function leaseRoundNow(): Promise<number[]> {
    // Our fair share; bots above it are handed back so the other instances can take them. A lease
    // not renewed this round (its row locked by someone else) is still ours while it runs: only
    // leases beyond our share are released, never one merely skipped.
    const share = await bots.fairShare(db, instanceId, settings.leaseSeconds);
    const renewed = await bots.acquireLeases(db, instanceId, settings.leaseSeconds, share);
    const mine = await bots.heldLeases(db, instanceId);
    const held = mine.filter((b) => b.leasable).map((b) => b.id);
    const beyond = held.filter((id) => !renewed.includes(id)).slice(0, Math.max(0, held.length - share));
    await bots.releaseLeases(db, instanceId, [...beyond, ...mine.filter((b) => !b.leasable).map((b) => b.id)]);
    const ids = held.filter((id) => !beyond.includes(id));
    const rows = ids.length ? await db.selectFrom('bots').select(['id', 'games', 'trade_state', 'enabled']).where('id', 'in', ids).execute() : [];
    for (const id of drivers.keys()) if (!ids.includes(id)) stopDriver(id);
    for (const r of rows) {
      const id = Number(r.id);
      if (r.trade_state !== 'ok') {
        stopDriver(id);
        continue;
      }
      const known = drivers.get(id);
      if (known) {
        if (known.accepting !== r.enabled) log.warn({ botId: id, accepting: r.enabled }, r.enabled ? 'steam: bot enabled again' : 'steam: bot disabled; draining its open offers');
        known.games = r.games;
        known.accepting = r.enabled;
        continue;
      }
      let started: { driver: BotDriver; acknowledged: boolean };
      try {
        started = await newDriver(id);
      } catch (err) {
        log.warn({ botId: id, err: (err as Error).message }, 'steam: bot could not start; retrying on the next lease round');
        continue;
      }
      // Driven from now on, in rotation once its session is proven: a sign-in that fails keeps it
      // out with its reason, and the polls sign in again with backoff (never each lease round).
      drivers.set(id, { driver: started.driver, games: r.games, accepting: r.enabled });
      try {
        await started.driver.start();
        if (!started.acknowledged) await acknowledge(id, started.driver);
      } catch (err) {
        if (err instanceof BotSignInError) await outOfRotation(id, (err as Error).message);
        else log.warn({ botId: id, err: (err as Error).message, reason: rotationOfDriven(drivers.get(id)!).reason }, 'steam: bot started without a live session; out of rotation until one is proven');
      }
      // The round ends with the bot's state written: what the operator reads after it is the picker's.
      await sessionSeen.get(id)?.chain;
    }
    return [...drivers.keys()];
  }

  /**
   * The picker's documented rule: the bots of this instance in rotation (rotationOfDriven) serving
   * `game`, by bot id; `seed` (a deposit id, a partner's account id) chooses the first, the others
   * follow in turn. A merchant call whose bot answers signed out goes on to the next one.
   */
  function candidates(game: Game, seed: number): BotDriver[] {
    const list = [...drivers.values()].filter((d) => d.games.includes(game) && rotationOfDriven(d).rotation === 'in')
      .map((d) => d.driver).sort((a, b) => a.bot.id - b.bot.id);
    const first = list.length ? Math.abs(seed) % list.length : 0;
    return [...list.slice(first), ...list.slice(0, first)];
  }

  /** The bot the rule picks first (candidates). */
  function pickDriver(game: Game, seed: number): BotDriver {
    const first = candidates(game, seed)[0];
    if (!first) throw new NoBotAvailableError(NO_BOT_MESSAGE);
    return first;
  }

  /**
   * Runs a call on the picked bot; when that bot's session died during the call (it left the
   * rotation: a signed-out answer and no sign-in that works), on the next candidate, and so on.
   * None left: NoBotAvailableError (the merchant API's 503). Other errors are the call's own.
   */
  async function withPicked<T>(game: Game, seed: number, fn: (d: BotDriver) => Promise<T>): Promise<T> {
    const tried = new Set<number>();
    for (;;) {
      const d = candidates(game, seed).find((c) => !tried.has(c.bot.id));
      if (!d) throw new NoBotAvailableError(NO_BOT_MESSAGE);
      tried.add(d.bot.id);
      try {
        return await fn(d);
      } catch (err) {
        // An offer that may exist stays with its bot: the record waits for it, never a second bot's.
        if (err instanceof PlatformOfferUncertainError) throw err;
        const driven = drivers.get(d.bot.id);
        if (driven && rotationOfDriven(driven).rotation === 'in') throw err;
        log.warn({ botId: d.bot.id, err: (err as Error).message }, 'steam: the picked bot left the rotation during the call; trying the next one');
      }
    }
  }

  return {
    driverFor,
    withDriver,
    outOfRotation,
    leaseTick,
    pickDriver,
    candidates,
    withPicked,
    /** Sign-ins tried per bot (metrics: gateway_steam_sign_ins_total). */
    signIns,
    /** The running driver of a bot this instance drives. */
    driverOf: (botId: number): BotDriver | undefined => drivers.get(botId)?.driver,
    /** The bots this instance drives, by id (read-only: only the lease round changes it). */
    driven: drivers as ReadonlyMap<number, Driven>,
    /** Stops every driver (the leases are the caller's to release). */
    stopAll(): void {
      for (const id of [...drivers.keys()]) stopDriver(id);
    },
  };
}

export type Drivers = ReturnType<typeof createDrivers>;
