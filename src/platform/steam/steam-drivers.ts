// The bots this instance drives (issue 11): it holds a lease on each (bots table, BOT_LEASE_SECONDS;
// another instance takes a bot over once the lease runs out), signs them in (refresh tokens stored
// encrypted in the database) and keeps one driver per bot. The poll and the record-facing calls
// reach the bots only through this module.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import * as bots from './bot-repo.js';
import { PlatformUnavailableError } from '../port.js';
import { createBackoff } from './backoff.js';
import { createSecretBox, parseSecretsKey, refreshTokenAad, secretsAad, type BotSecrets } from './secret-box.js';
import { BotSignInError, type SessionProvider } from './session.js';
import { BotDriver, type OfferSnapshot } from './steam-bot.js';
import { platformError } from './steam-send.js';

/** accepting: the bot takes new offers (enabled); a disabled one only drains its open offers. */
export interface Driven {
  driver: BotDriver;
  games: string[];
  accepting: boolean;
}

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

  async function driverFor(botId: number): Promise<BotDriver> {
    const row = await bots.botForDriver(db, botId);
    if (!row || !row.secrets) throw new PlatformUnavailableError(`bot ${botId} is not available`);
    const secrets = JSON.parse(box.open(row.secrets, secretsAad(row.account_name!))) as BotSecrets;
    const refreshToken = row.refresh_token ? box.open(row.refresh_token, refreshTokenAad(row.account_name!)) : undefined;
    const driver = new BotDriver(
      { id: Number(row.id), name: row.name, platformId: row.platform_id, accountName: row.account_name!, password: secrets.password, sharedSecret: secrets.shared_secret, identitySecret: secrets.identity_secret, refreshToken, webCookies: secrets.web_cookies, pollData: row.poll_data },
      {
        settings, sessions, backoff, offerTtlMs: config.offerTtlSeconds * 1000,
        events: {
          offerChanged: (o) => deps.offerChanged(Number(row.id), o),
          pollData: (data) => bots.saveDriverState(db, Number(row.id), { poll_data: data }),
          refreshToken: (t) => bots.saveDriverState(db, Number(row.id), { refresh_token: box.seal(t, refreshTokenAad(row.account_name!)) }),
          session: (st) => void sessionChanged(Number(row.id), st),
          webCookies: async () => {
            const now = await bots.botForDriver(db, Number(row.id));
            return now?.secrets ? (JSON.parse(box.open(now.secrets, secretsAad(row.account_name!))) as BotSecrets).web_cookies : undefined;
          },
        },
      },
    );
    await driver.signIn();
    if (!row.trade_protection_acknowledged_at) {
      // Without it (2025) offers from the account hang: once per account.
      await driver.acknowledgeTradeProtection();
      await bots.saveDriverState(db, Number(row.id), { trade_protection_acknowledged_at: new Date() });
    }
    return driver;
  }

  /** Last live-session state per bot, and when last_authenticated_at was last written (at most every 10 s). */
  const sessionSeen = new Map<number, { live: boolean; savedAt: number }>();
  async function sessionChanged(botId: number, st: { live: boolean; at: Date; error?: string }): Promise<void> {
    const seen = sessionSeen.get(botId);
    const changed = !seen || seen.live !== st.live;
    if (!changed && st.live && Date.now() - seen.savedAt < 10_000) return;
    sessionSeen.set(botId, { live: st.live, savedAt: Date.now() });
    if (changed && seen) {
      if (st.live) log.warn({ botId }, 'steam: bot session live again; back in rotation');
      else log.warn({ botId, reason: st.error }, 'steam: bot session lost (signed out, sign-in failed); out of rotation, signing in again with backoff');
    }
    await bots.saveSession(db, botId, st.live ? { last_authenticated_at: st.at, session_error: null } : { session_error: st.error ?? 'signed out' })
      .catch((err) => log.warn({ botId, err: (err as Error).message }, 'steam: session state not saved'));
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

  async function outOfRotation(botId: number, reason: string): Promise<void> {
    log.error({ botId, reason }, 'steam: bot cannot trade; taken out of rotation');
    await bots.setTradeState(db, botId, 'cannot_trade', reason);
    drivers.get(botId)?.driver.stop();
    drivers.delete(botId);
    await bots.releaseLeases(db, instanceId, [botId]);
  }

  async function leaseTick(): Promise<number[]> {
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
    for (const [id, d] of drivers) {
      if (!ids.includes(id)) {
        d.driver.stop();
        drivers.delete(id);
      }
    }
    for (const r of rows) {
      const id = Number(r.id);
      if (r.trade_state !== 'ok') {
        drivers.get(id)?.driver.stop();
        drivers.delete(id);
        continue;
      }
      const known = drivers.get(id);
      if (known) {
        if (known.accepting !== r.enabled) log.warn({ botId: id, accepting: r.enabled }, r.enabled ? 'steam: bot back in rotation' : 'steam: bot disabled; draining its open offers');
        known.games = r.games;
        known.accepting = r.enabled;
        continue;
      }
      try {
        drivers.set(id, { driver: await driverFor(id), games: r.games, accepting: r.enabled });
      } catch (err) {
        if (err instanceof BotSignInError) await outOfRotation(id, (err as Error).message);
        else log.warn({ botId: id, err: (err as Error).message }, 'steam: bot could not start; retrying on the next lease round');
      }
    }
    return [...drivers.keys()];
  }

  /** A signed-in bot of ours serving `game`, spread by `seed`. */
  function pickDriver(game: Game, seed: number): BotDriver {
    const list = [...drivers.values()].filter((d) => d.accepting && d.driver.signedIn && d.games.includes(game)).map((d) => d.driver);
    if (list.length === 0) throw new PlatformUnavailableError('no bot is available for this game');
    return list[Math.abs(seed) % list.length];
  }

  return {
    driverFor,
    withDriver,
    outOfRotation,
    leaseTick,
    pickDriver,
    /** The running driver of a bot this instance drives. */
    driverOf: (botId: number): BotDriver | undefined => drivers.get(botId)?.driver,
    /** The bots this instance drives, by id (read-only: only the lease round changes it). */
    driven: drivers as ReadonlyMap<number, Driven>,
    /** Stops every driver (the leases are the caller's to release). */
    stopAll(): void {
      for (const { driver } of drivers.values()) driver.stop();
      drivers.clear();
    },
  };
}

export type Drivers = ReturnType<typeof createDrivers>;
