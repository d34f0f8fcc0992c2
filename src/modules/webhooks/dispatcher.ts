// The per-instance webhook dispatcher. It claims due events in batches (one statement: the first
// pending event of each record, leased), sends them concurrently (at most WEBHOOK_CONCURRENCY at
// once, keep-alive connections per target; at most WEBHOOK_CONCURRENCY_PER_MERCHANT of them for one
// merchant, so one merchant's slow or dead endpoint cannot hold every slot), and settles the results
// in batched statements.
//
// When it claims: right after a transaction of this instance that wrote events commits (the
// commit tap on the outbox insert's marker, see outbox.ts and src/db/commit-taps.ts), after each settle (slots are free, and
// the next event of a settled record may go), when a retry it scheduled comes due (a timer), and
// every WEBHOOK_POLL_MS (other instances' events, and retries scheduled elsewhere). Claims never
// overlap within an instance; across instances SKIP LOCKED and the lease keep every attempt single.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { noteDatabaseError } from '../../db/outage.js';
import { AgentPool } from './http-sender.js';
import { attemptDelivery, failure, outcomeOf, type AttemptDeps } from './delivery.js';
import { WEBHOOK_EVENTS_WRITE } from './outbox.js';
import type { CommitTaps } from '../../db/commit-taps.js';
import { coalesced, InFlight, wakeUps } from '../../jobs/passes.js';
import * as repo from './webhook-repo.js';
import type { AttemptOutcome, ClaimedEvent } from './webhook-repo.js';
import type { Lookup } from './target.js';

/** Events per claim statement, and attempts per settle statement. */
const CLAIM_BATCH = 200;
const SETTLE_BATCH = 500;
/** Retry timers kept in memory (the poll finds the others). */
const MAX_TIMERS = 10_000;
/** Between two tries of a settle while the database is away. */
const SETTLE_RETRY_MS = 500;

export interface DispatcherDeps {
  db: Db;
  log: Logger;
  config: Pick<
    Config,
    | 'webhookAllowPrivate'
    | 'webhookRetrySchedule'
    | 'webhookTimeoutMs'
    | 'webhookLeaseMarginMs'
    | 'webhookConcurrency'
    | 'webhookConcurrencyPerMerchant'
    | 'webhookPollMs'
  >;
  lookup: Lookup;
}

/** Why the dispatcher claimed: counters for tests and diagnostics. */
export interface DispatcherStats {
  commitWakes: number;
  settleWakes: number;
  timerWakes: number;
  pollWakes: number;
  claims: number;
  claimed: number;
  /** Time spent in claim statements, ms. */
  claimMs: number;
  settles: number;
  settled: number;
  settleMs: number;
  inFlight: number;
  agents: number;
}

export function createDispatcher(deps: DispatcherDeps) {
  const { db, log, config } = deps;
  const agents = new AgentPool();
  const attemptDeps: AttemptDeps = { log, config, lookup: deps.lookup, agents };
  const leaseMs = () => config.webhookTimeoutMs + config.webhookLeaseMarginMs;
  const stats: DispatcherStats = { commitWakes: 0, settleWakes: 0, timerWakes: 0, pollWakes: 0, claims: 0, claimed: 0, claimMs: 0, settles: 0, settled: 0, settleMs: 0, inFlight: 0, agents: 0 };

  let running = false;
  let stopWaking: (() => void) | undefined;
  const inFlight = new InFlight(); // claimed and not yet settled
  // Attempts being sent, per merchant: at most webhookConcurrencyPerMerchant each (fair share).
  const sending = new Map<number, number>();
  const results: AttemptOutcome[] = [];
  let settling: Promise<void> | undefined;
  let claimSession: repo.ClaimSession | undefined;

  // Retry times of events this instance settled, soonest first; one timer for the soonest.
  let dueTimes: number[] = [];
  let dueTimer: NodeJS.Timeout | undefined;
  let dueTimerAt = Infinity;

  function armDueTimer() {
    const next = dueTimes[0];
    if (next === undefined || next >= dueTimerAt || !running) return;
    clearTimeout(dueTimer);
    dueTimerAt = next;
    dueTimer = setTimeout(() => {
      dueTimerAt = Infinity;
      const now = Date.now();
      dueTimes = dueTimes.filter((t) => t > now);
      stats.timerWakes++;
      void claim();
      armDueTimer();
    }, Math.max(0, next - Date.now() + 5));
    dueTimer.unref();
  }

  function remember(at: Date) {
    const t = new Date(at).getTime();
    if (dueTimes.length >= MAX_TIMERS) return;
    let i = dueTimes.length;
    while (i > 0 && dueTimes[i - 1]! > t) i--;
    dueTimes.splice(i, 0, t);
    armDueTimer();
  }

  /** Claims while there are free slots and due events; concurrent calls fold into one more round. */
  const claims = coalesced(
    async () => {
      while (running && inFlight.count < config.webhookConcurrency) {
        const want = Math.min(CLAIM_BATCH, config.webhookConcurrency - inFlight.count);
        const t0 = performance.now();
        const cap = config.webhookConcurrencyPerMerchant;
        const opts = { limit: want, leaseMs: leaseMs(), perMerchant: { cap, busy: sending } };
        const rows = claimSession ? await claimSession.claim(opts) : await repo.claimDue(db, opts);
        stats.claimMs += performance.now() - t0;
        stats.claims++;
        stats.claimed += rows.length;
        for (const row of rows) send(row);
        // Fewer than asked: every merchant's share of what is due was taken (the claim reads each
        // merchant's part up to its free share, so a capped merchant's backlog hides no one).
        if (rows.length < want) break;
      }
    },
    // A database that is away: its one warning (db/outage.ts); the next poll claims again.
    (err) => noteDatabaseError(db, err) || log.error({ err }, 'webhook claim failed (retried at the next poll)'),
  );
  const claim = (): Promise<void> => (running ? claims.run() : Promise.resolve());

  function send(row: ClaimedEvent) {
    inFlight.add(1);
    const merchant = Number(row.merchant_id);
    sending.set(merchant, (sending.get(merchant) ?? 0) + 1);
    attemptDelivery(row, attemptDeps)
      .catch((err: unknown) => outcomeOf(row, failure(`delivery error: ${(err as Error).message}`), 'retry', config.webhookRetrySchedule))
      .then((outcome) => {
        const n = (sending.get(merchant) ?? 1) - 1;
        if (n > 0) sending.set(merchant, n);
        else sending.delete(merchant);
        results.push(outcome);
        void settle();
      });
  }

  /** Settles what has arrived, one statement per batch; one settle at a time (results wait and batch up). */
  function settle(): Promise<void> {
    if (settling || results.length === 0) return settling ?? Promise.resolve();
    settling = (async () => {
      while (results.length) {
        const batch = results.splice(0, SETTLE_BATCH);
        const t0 = performance.now();
        await settleBatch(batch);
        stats.settleMs += performance.now() - t0;
        stats.settles++;
        inFlight.done(batch.length);
        stats.settled += batch.length;
      }
    })().finally(() => {
      settling = undefined;
      stats.settleWakes++;
      void claim();
    });
    return settling;
  }

  async function settleBatch(batch: AttemptOutcome[]): Promise<void> {
    // While the database is away (a restart, a failover) the batch waits for it, within the
    // attempts' lease: settled late beats sent again by the sweeper.
    const until = Date.now() + config.webhookLeaseMarginMs;
    for (;;) {
      try {
        applied(batch, await repo.settleAttempts(db, batch, config.webhookRetrySchedule.length));
        return;
      } catch (err) {
        if (!noteDatabaseError(db, err)) break;
        if (Date.now() >= until || !running) return; // still away: the leases run out and the sweeper settles them
        await new Promise((r) => setTimeout(r, SETTLE_RETRY_MS));
      }
    }
    try {
      applied(batch, await repo.settleAttempts(db, batch, config.webhookRetrySchedule.length));
    } catch (err) {
      // One at a time, so one bad row does not hold back the others. An attempt that still cannot
      // be recorded keeps its lease until it runs out: the sweeper records it as interrupted.
      log.error({ err, count: batch.length }, 'webhook settle failed: settling one by one');
      for (const one of batch) {
        try {
          applied([one], await repo.settleAttempts(db, [one], config.webhookRetrySchedule.length));
        } catch (e) {
          if (!noteDatabaseError(db, e)) log.error({ err: e, eventId: one.eventId, attempt: one.attempt }, 'webhook attempt could not be recorded (its lease will run out)');
        }
      }
    }
  }

  function applied(batch: AttemptOutcome[], settled: repo.SettledEvent[]) {
    const done = new Map(settled.map((s) => [Number(s.id), s]));
    for (const b of batch) {
      const s = done.get(b.eventId);
      if (!s) {
        log.warn({ eventId: b.eventId, attempt: b.attempt, statusCode: b.statusCode, error: b.error }, 'webhook attempt settled after it was given up: result not applied');
      } else if (s.state === 'exhausted') {
        log.warn({ eventId: b.eventId, merchantId: s.merchant_id, attempts: s.attempts, error: b.error, statusCode: b.statusCode }, 'webhook exhausted');
      } else if (s.state === 'pending' && s.next_attempt_at) {
        remember(s.next_attempt_at);
      }
    }
  }

  return {
    /**
     * Starts claiming; `taps` are the commit taps of `db`: a commit that wrote events wakes it. With
     * `poolOptions` (the gateway's pool's), the claims run on a connection of their own, one round
     * trip each (repo.createClaimSession); without, each in a transaction of `db`'s.
     */
    start(taps: CommitTaps, poolOptions?: pg.PoolConfig): void {
      if (running) return;
      running = true;
      if (poolOptions) claimSession = repo.createClaimSession(poolOptions, db);
      stopWaking = wakeUps({ taps, marker: WEBHOOK_EVENTS_WRITE, pollMs: config.webhookPollMs, wake: () => void claim(), counts: stats, onPoll: () => agents.prune() });
      void claim();
    },

    /** Claims now (after a redelivery, the sweeper's settles). */
    wake(): void {
      void claim();
    },

    /** One attempt of one event now, if it is due and first in its record's line (tests, the CLI). */
    async deliverOne(eventId: number): Promise<repo.SettledEvent | undefined> {
      const [row] = await repo.claimDue(db, { limit: 1, leaseMs: leaseMs(), eventId });
      if (!row) return undefined;
      const outcome = await attemptDelivery(row, { ...attemptDeps, agents: undefined });
      const [settled] = await repo.settleAttempts(db, [outcome], config.webhookRetrySchedule.length);
      return settled;
    },

    /** Settles attempts made elsewhere (the sweeper's interrupted ones), then claims. */
    async settleNow(batch: AttemptOutcome[]): Promise<repo.SettledEvent[]> {
      const settled = await repo.settleAttempts(db, batch, config.webhookRetrySchedule.length);
      applied(batch, settled);
      void claim();
      return settled;
    },

    stats(): DispatcherStats {
      return { ...stats, inFlight: inFlight.count, agents: agents.size };
    },

    /** Stops claiming and waits for the attempts in flight to settle (at most one attempt's deadline). */
    async stop(): Promise<void> {
      if (!running) return;
      running = false;
      const session = claimSession; // a start() while this stop waits opens a session of its own
      claimSession = undefined;
      stopWaking?.();
      stopWaking = undefined;
      clearTimeout(dueTimer);
      dueTimes = [];
      await claims.idle(); // what a claim under way takes is sent and settled before we return
      await inFlight.untilNone(config.webhookTimeoutMs + 1000);
      await settling;
      agents.destroy();
      await session?.end().catch(() => {});
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
