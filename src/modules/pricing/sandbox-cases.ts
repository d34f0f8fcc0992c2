// PRICE_SANDBOX_CASES=1: magic items that play the reference-price rules, in every game, so a
// merchant can see them through get-prices (they are never put into sandbox inventories). Three
// made-up market sources and a guard give the readings; the rules are the configured ones.
//   Sandbox Price | Agreed    three sources agree at $10.00 → credited $10.00
//   Sandbox Price | Outlier   $10.00, $10.20 and $100.00 → the $100.00 source is left out: $10.10
//   Sandbox Price | Stale     every reading older than PRICE_ITEM_MAX_AGE_SECONDS → not accepted
//   Sandbox Price | Illiquid  every reading below PRICE_MIN_LIQUIDITY → not accepted
//   Sandbox Price | Jump      $10.00, then $16.00 (60 %) → held at $10.00 until confirmed
//   Sandbox Price | Guard     $10.00 against a Steam Market price of $2.00 → not accepted
//   Sandbox Price | Pinned    sources at $10.00, pinned by the operator at $5.00 → $5.00
//   Sandbox Price | Blocked   sources at $10.00, blocked by the operator → not accepted
import type { Game } from '../../domain/games.js';
import type { PricingConfig } from '../../config.js';
import type { Override } from './reference-price.js';
import type { PollResult } from './sources/source.js';

export const SANDBOX_CASE_SOURCES = [
  { id: 'sandbox-a', role: 'market' },
  { id: 'sandbox-b', role: 'market' },
  { id: 'sandbox-c', role: 'market' },
  { id: 'sandbox-steam', role: 'guard' },
] as const;

export const SANDBOX_CASE_PREFIX = 'Sandbox Price | ';

type Case = { name: string; prices: [number, number, number]; old?: boolean; thin?: boolean; guard?: number; then?: number; override?: Override };
const CASES: Case[] = [
  { name: 'Agreed', prices: [10_000, 10_000, 10_000] },
  { name: 'Outlier', prices: [10_000, 10_200, 100_000] },
  { name: 'Stale', prices: [10_000, 10_000, 10_000], old: true },
  { name: 'Illiquid', prices: [10_000, 10_000, 10_000], thin: true },
  { name: 'Jump', prices: [10_000, 10_000, 10_000], then: 16_000 },
  { name: 'Guard', prices: [10_000, 10_000, 10_000], guard: 2_000 },
  { name: 'Pinned', prices: [10_000, 10_000, 10_000], override: { action: 'pin', price: 5_000 } },
  { name: 'Blocked', prices: [10_000, 10_000, 10_000], override: { action: 'block' } },
];

/**
 * The readings of each case source, in two rounds (the jump's second price comes in round 2), and
 * the cases' overrides. Liquid readings carry ten times the liquidity floor.
 */
export function sandboxCaseReadings(games: readonly Game[], cfg: Pick<PricingConfig, 'itemMaxAgeSeconds' | 'minLiquidity'>, now: number) {
  const rounds: Map<string, PollResult>[] = [new Map(), new Map()];
  const overrides: { game: Game; name: string; override: Override }[] = [];
  const add = (round: number, source: string, game: Game, name: string, price: number, asOf: number, liquidity: number) => {
    const m = rounds[round]!;
    if (!m.has(source)) m.set(source, { readings: [], complete: [] });
    m.get(source)!.readings.push({ game, name, price, asOf, liquidity });
  };
  for (const game of games) {
    for (const c of CASES) {
      const name = SANDBOX_CASE_PREFIX + c.name;
      const asOf = c.old ? now - (cfg.itemMaxAgeSeconds + 60) * 1000 : now - 2000;
      const liquidity = c.thin ? Math.max(0, cfg.minLiquidity - 1) : Math.max(10, cfg.minLiquidity * 10);
      c.prices.forEach((p, i) => add(0, SANDBOX_CASE_SOURCES[i]!.id, game, name, p, asOf, liquidity));
      if (c.then !== undefined) c.prices.forEach((_, i) => add(1, SANDBOX_CASE_SOURCES[i]!.id, game, name, c.then!, now - 1000, liquidity));
      if (c.guard !== undefined) add(0, 'sandbox-steam', game, name, c.guard, asOf, liquidity);
      if (c.override) overrides.push({ game, name, override: c.override });
    }
  }
  return { rounds, overrides };
}
