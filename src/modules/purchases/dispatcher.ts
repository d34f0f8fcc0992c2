// The per-instance purchase dispatcher: sends the offers of pending purchases (dispatch.ts holds
// the steps and their rules). Instead of a graphile-worker job per purchase (about ten round trips
// of its own, and WORKER_CONCURRENCY connections against every creating request), it claims due
// purchases in batches — one autocommit statement that is also each one's dispatch marker and
// lease (FOR UPDATE SKIP LOCKED, so two instances never claim the same purchase) — sends them
// (one platform call per claim when the platform takes batches, else one each; at most
// DISPATCH_CONCURRENCY in flight), and records the offers that arrived in one
// transaction per batch. A send that fails is settled on its own (retry time, or the purchase's
// failure), so it never holds up the others.
//
// Most purchases are never claimed: the batch that creates them writes them leased to this
// instance's dispatcher (as many as it has free slots for: reserve/adopt, create-batcher.ts), in
// the state a claim would leave them, and hands them over after its commit.
//
// When it claims: right after a transaction of this instance that created purchases commits (the
// commit tap on PURCHASE_PENDING_WRITE, which the creation's statements carry),
// after each record (slots are free), and every DISPATCH_POLL_MS (other instances' purchases,
// retries come due, leases run out). Claims never overlap within an instance. Every
// DISPATCH_SWEEP_MS it also runs the pending watchdog over purchases pending past pendingLimitMs
// and the offer expiry over active purchases whose offer expired (sweeps instead of a job per
// purchase).
import type { Logger } from 'pino';
import type { CommitTaps } from '../../db/commit-taps.js';
import { isDatabaseUnavailable } from '../../db/database.js';
import { coalesced, InFlight, wakeUps } from '../../jobs/passes.js';
import type { SentOffer } from '../../platform/port.js';
import type { createDispatchStage } from './dispatch.js';
import { DISPATCH_CLAIM_BATCH, DISPATCH_CONCURRENCY, DISPATCH_POLL_MS, DISPATCH_SWEEP_MS, EXPIRY_SWEEP_BATCH, PURCHASE_PENDING_WRITE } from './purchase-jobs.js';
import type { PurchaseRow } from './purchase-repo.js';

type Stage = Pick<ReturnType<typeof createDispatchStage>, 'claim' | 'leaseUntil' | 'adoptable' | 'sendAll' | 'attemptFailed' | 'recordSent' | 'sweepStuckPending' | 'sweepExpiredOffers'>;

export interface PurchaseDispatcherOptions {
  concurrency?: number;
  claimBatch?: number;
  pollMs?: number;
  sweepMs?: number;
  /** How long stop() waits for the attempts in flight (their platform call's deadline). */
  stopWaitMs: number;
}

export interface PurchaseDispatcherStats {
  commitWakes: number;
  pollWakes: number;
  claims: number;
  claimed: number;
  /** Handed over by their creation, leased (never claimed). */
  adopted: number;
  records: number;
  recorded: number;
  failed: number;
  sweeps: number;
  inFlight: number;
}

export function createPurchaseDispatcher(stage: Stage, log: Logger, opts: PurchaseDispatcherOptions) {
  const concurrency = opts.concurrency ?? DISPATCH_CONCURRENCY;
  const claimBatch = opts.claimBatch ?? DISPATCH_CLAIM_BATCH;
  const stats: PurchaseDispatcherStats = { commitWakes: 0, pollWakes: 0, claims: 0, claimed: 0, adopted: 0, records: 0, recorded: 0, failed: 0, sweeps: 0, inFlight: 0 };

  let running = false;
  let stopWaking: (() => void) | undefined;
  let sweepTimer: NodeJS.Timeout | undefined;
  const inFlight = new InFlight(); // claimed, not yet recorded or settled
  const sent: Array<{ p: PurchaseRow; offer: SentOffer }> = [];
  let recording: Promise<void> | undefined;

  function done(n: number) {
    inFlight.done(n);
    void claim();
  }

  /** Claims while there are free slots and due purchases; calls meanwhile fold into one more round. */
  const claims = coalesced(
    async () => {
      while (running && inFlight.count < concurrency) {
        const want = Math.min(claimBatch, concurrency - inFlight.count);
        const rows = await stage.claim(want);
        stats.claims++;
        stats.claimed += rows.length;
        inFlight.add(rows.length);
        if (rows.length) attempt(rows);
        if (rows.length < want) break;
      }
    },
    // A database that is away: its one warning (db/outage.ts); the next poll claims again.
    (err) => isDatabaseUnavailable(err) || log.error({ err }, 'purchase dispatch claim failed (retried at the next poll)'),
  );
  const claim = (): Promise<void> => (running ? claims.run() : Promise.resolve());

  /** Sends the claimed (or adopted) purchases' offers, counted in flight (one platform call for the batch when it takes batches). */
  function attempt(rows: PurchaseRow[]) {
    let sends: Array<Promise<SentOffer>>;
    try {
      sends = stage.sendAll(rows);
    } catch (err) {
      sends = rows.map(() => Promise.reject(err));
    }
    rows.forEach((p, i) =>
      sends[i]!.then(
        (offer) => {
          sent.push({ p, offer });
          void record();
        },
        (err: unknown) => {
          stats.failed++;
          stage
            .attemptFailed(p, err)
            .catch((e: unknown) => isDatabaseUnavailable(e) || log.error({ err: e, purchaseId: p.id }, 'purchase dispatch attempt could not be settled (its lease will run out)'))
            .finally(() => done(1));
        },
      ),
    );
  }

  /** Records the offers that arrived, one batch at a time (offers arriving meanwhile wait and batch up). */
  function record(): Promise<void> {
    if (recording || sent.length === 0) return recording ?? Promise.resolve();
    recording = (async () => {
      while (sent.length) {
        const batch = sent.splice(0, claimBatch);
        await stage.recordSent(batch); // never throws
        stats.records++;
        stats.recorded += batch.length;
        done(batch.length);
      }
    })().finally(() => {
      recording = undefined;
    });
    return recording;
  }

  /**
   * The two sweeps, each one pass at a time and on its own (a failing or slow one holds up neither
   * the other nor the next pass of the other): purchases pending past pendingLimitMs fail
   * gateway_too_slow (dispatch.ts failIfStuckPending); active ones whose offer expired are canceled
   * buyer_too_slow (timers.ts sweepExpiredOffers, a few at a time: each batch's platform calls run
   * together and end well inside the time it takes them up for).
   */
  const pendingSweep = coalesced(
    async () => {
      while ((await stage.sweepStuckPending(100)) === 100 && running);
      stats.sweeps++;
    },
    (err) => isDatabaseUnavailable(err) || log.error({ err }, 'pending purchase sweep failed (retried at the next one)'),
  );
  const expirySweep = coalesced(
    async () => {
      while ((await stage.sweepExpiredOffers(EXPIRY_SWEEP_BATCH)) === EXPIRY_SWEEP_BATCH && running);
    },
    (err) => isDatabaseUnavailable(err) || log.error({ err }, 'purchase offer-expiry sweep failed (retried at the next one)'),
  );
  function sweep(): Promise<void> {
    return Promise.all([pendingSweep.run(), expirySweep.run()]).then(() => undefined);
  }

  return {
    /** Reserves up to `n` slots for purchases a creation writes leased to this dispatcher (none when not running). */
    reserve(n: number): { count: number; leaseUntil: Date } {
      const count = running ? Math.max(0, Math.min(n, concurrency - inFlight.count)) : 0;
      inFlight.add(count);
      return { count, leaseUntil: stage.leaseUntil() };
    },

    /**
     * The created ones of `reserved` slots, committed leased to it: sent as if claimed (those the
     * stage finds adoptable; any other waits for a claim); the other slots freed. Called after
     * stop() began, it still sends: the reserved slots count in flight, so stop waits for these
     * sends as for claimed ones, and a send cut off by stopWaitMs is claimed elsewhere when its
     * lease runs out (the send is idempotent).
     */
    adopt(rows: PurchaseRow[], reserved: number): void {
      const sending = rows.filter((p) => stage.adoptable(p));
      stats.adopted += sending.length;
      if (sending.length) attempt(sending);
      if (reserved > sending.length) done(reserved - sending.length);
    },

    /** Starts claiming; `taps`: the commit taps of the database (a new purchase's commit wakes it). */
    start(taps: CommitTaps): void {
      if (running) return;
      running = true;
      stopWaking = wakeUps({ taps, marker: PURCHASE_PENDING_WRITE, pollMs: opts.pollMs ?? DISPATCH_POLL_MS, wake: () => void claim(), counts: stats });
      sweepTimer = setInterval(() => void sweep(), opts.sweepMs ?? DISPATCH_SWEEP_MS);
      sweepTimer.unref();
      void claim();
      void sweep();
    },

    /** The pending watchdog's sweep now (one at a time). */
    sweep,

    /** Claims now. */
    wake(): void {
      void claim();
    },

    /** Claims until nothing is due and waits for every attempt to be recorded or settled (tests, the bench). */
    async drain(): Promise<void> {
      const wasRunning = running;
      running = true;
      try {
        for (;;) {
          await claim();
          if (inFlight.count === 0) break;
          await inFlight.untilNone();
        }
      } finally {
        running = wasRunning;
      }
    },

    stats(): PurchaseDispatcherStats {
      return { ...stats, inFlight: inFlight.count };
    },

    /** Stops claiming and waits for the attempts in flight (at most stopWaitMs). */
    async stop(): Promise<void> {
      if (!running) return;
      running = false;
      stopWaking?.();
      stopWaking = undefined;
      clearInterval(sweepTimer);
      await Promise.all([pendingSweep.idle(), expirySweep.idle()]);
      await claims.idle();
      await inFlight.untilNone(opts.stopWaitMs);
      await recording;
    },
  };
}

export type PurchaseDispatcher = ReturnType<typeof createPurchaseDispatcher>;
