// Chooses the platform adapter from config.platform.
import type { Config } from '../config.js';
import { ConfigError } from '../config-parse.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { Game } from '../domain/games.js';
import type { TradingPlatform } from './port.js';
import type { Logger } from 'pino';
import { createSandboxPlatform } from './sandbox/sandbox-platform.js';
import type { SessionProvider } from './steam/session.js';

// The steam adapter's libraries (steamcommunity, steam-session, …) take about 0.6 s to load: only a
// steam gateway loads them, before its context is made (startGateway, the CLI's context).
let steamAdapter: typeof import('./steam/steam-platform.js') | undefined;
export async function loadPlatformAdapter(config: Pick<Config, 'platform'>): Promise<void> {
  if (config.platform === 'steam') steamAdapter ??= await import('./steam/steam-platform.js');
}

export function createPlatform(deps: {
  config: Config; db: Db; clock: Clock; log: Logger;
  itemsFor(game: Game): readonly { name: string; phase?: string }[];
  /** steam: how bots sign in (default: steam-session over HTTP); tests and stand-ins pass their own. */
  steamSessions?: SessionProvider;
}): TradingPlatform {
  if (deps.config.platform === 'sandbox') {
    return createSandboxPlatform({ db: deps.db, clock: deps.clock, offerTtlSeconds: deps.config.offerTtlSeconds,
      itemsFor: deps.itemsFor,
      holdSeconds: deps.config.holdSeconds,
      // Partner 90000013 answers an offer just after the gateway has given up on it.
      lateAnswerMs: deps.config.depositTimeoutMs + Math.min(500, Math.max(100, Math.round(deps.config.depositTimeoutMs / 2))),
    });
  }
  if (!deps.config.botSecretsKey) throw new ConfigError('PLATFORM=steam needs BOT_SECRETS_KEY');
  // Bots are driven only once start() is called (npm start), never by the CLI's context.
  if (!steamAdapter) throw new Error('loadPlatformAdapter(config) must run before createPlatform');
  return steamAdapter.createSteamPlatform({ db: deps.db, config: deps.config, clock: deps.clock, log: deps.log, sessions: deps.steamSessions });
}
