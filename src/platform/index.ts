// Chooses the platform adapter from config.platform.
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { Game } from '../domain/games.js';
import type { TradingPlatform } from './port.js';
import { createSandboxPlatform } from './sandbox/sandbox-platform.js';

export class PlatformConfigError extends Error {}

export function createPlatform(deps: { config: Config; db: Db; clock: Clock; itemsFor(game: Game): readonly { name: string; phase?: string }[] }): TradingPlatform {
  if (deps.config.platform === 'sandbox') {
    return createSandboxPlatform({ db: deps.db, clock: deps.clock, offerTtlSeconds: deps.config.offerTtlSeconds,
      itemsFor: deps.itemsFor,
      // Partner 90000013 answers an offer just after the gateway has given up on it.
      lateAnswerMs: deps.config.depositTimeoutMs + Math.min(500, Math.max(100, Math.round(deps.config.depositTimeoutMs / 2))),
    });
  }
  // No network here: a steam adapter (steam-user, steam-tradeoffer-manager) is not built yet.
  throw new PlatformConfigError('PLATFORM=steam is not supported by this build: the steam adapter is not implemented; use PLATFORM=sandbox');
}
