// Whether a bot takes new offers: the one rule. The operator API and the console (bot-service
// botView), the metric (assembly/metrics.ts) and the picker (platform/steam/steam-drivers.ts) all
// call rotationOf; they differ only in where the inputs come from — the picker from the driver it
// runs, the others from the bots row that driver writes on every change of its session.

export type Rotation = 'in' | 'draining' | 'out';

export interface BotRotationInput {
  /** Operator-managed (has an account to sign in); the sandbox's seeded bots have none: no lease, no session. */
  managed: boolean;
  removed: boolean;
  enabled: boolean;
  tradeState: string;
  tradeStateReason: string | null;
  /** An instance holds the bot's lease and runs its driver. */
  driven: boolean;
  /** A signed-in call went through with the bot's current session (a sign-in alone is not enough). */
  live: boolean;
  /** Why the bot has no live session, when one is known (a sign-in that failed, a session that ended). */
  sessionError: string | null;
  /** When the next sign-in may be tried, while one backs off. */
  signInRetryAt: Date | null;
}

/**
 * in: takes new offers; draining: disabled, its driver still settling open offers; out: neither.
 * A managed bot is in only while driven, enabled, able to trade and with a live session.
 */
export function rotationOf(b: BotRotationInput, now = new Date()): { rotation: Rotation; reason: string | null } {
  if (b.removed) return { rotation: 'out', reason: 'removed' };
  if (b.tradeState === 'cannot_trade') return { rotation: 'out', reason: `cannot trade${b.tradeStateReason ? ` (${b.tradeStateReason})` : ''}` };
  if (!b.enabled) return b.driven ? { rotation: 'draining', reason: 'disabled by an operator; settling its open offers' } : { rotation: 'out', reason: 'disabled by an operator' };
  if (!b.managed) return { rotation: 'in', reason: null };
  if (!b.driven) return { rotation: 'out', reason: 'not driven by any instance yet (waiting for a lease round)' };
  if (!b.live) {
    const retry = b.signInRetryAt && b.signInRetryAt > now ? `; next sign-in attempt at ${b.signInRetryAt.toISOString()}` : '';
    return { rotation: 'out', reason: b.sessionError ? `no live session: ${b.sessionError}${retry}` : `no live session yet: waiting for a signed-in call to go through${retry}` };
  }
  return { rotation: 'in', reason: null };
}
