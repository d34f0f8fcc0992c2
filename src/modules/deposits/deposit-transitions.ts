// The only writer of a deposit's status: every transition of the state machine (src/domain/
// deposit-state.ts) is one call of the SQL function deposit_transition_batch (deposit-repo.ts
// changeBatch): the update guarded by the deposit as read, the release of the user's reserved
// assets (terminal status), the webhook of the status entered, the status's timed jobs, the
// listings of a completed deposit's items and its ledger movement (through ledger_apply, the one
// writer of the balance) — all in one statement.
// What the transition does is decided here (transitionItem, as data); how it is written is stated
// once, in SQL. Three ways to call it, the same item each time: grouped with the concurrent offer
// changes of the instance (one statement, one commit: applyFrom), alone with its own commit
// (applyFrom's other transitions), or in the caller's transaction after reading the deposit FOR
// UPDATE (transitionIn). Answers a result, never throws for a refused transition: each caller
// decides what a refusal means to it.
import type { Updateable } from 'kysely';
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/database.js';
import type { DepositsTable } from '../../db/tables/deposits.js';
import type { Clock } from '../../domain/clock.js';
import { DEPOSIT_MACHINE, DEPOSIT_MOVEMENTS, type DepositEvent } from '../../domain/deposit-state.js';
import type { Game } from '../../domain/games.js';
import { isTerminal } from '../../domain/state-machine.js';
import type { TransitionResult } from '../../platform/offers.js';
import { outboxRecords, type JobSpec } from '../../jobs/enqueue.js';
import { batched } from '../../db/batched.js';
import type { LedgerMovement } from '../ledger/ledger-moves.js';
import type { WebhookEventInput } from '../webhooks/outbox.js';
import { depositJob, schedulePendingWatchdog } from './deposit-jobs.js';
import { InsufficientFundsError } from '../ledger/ledger-moves.js';
import * as repo from './deposit-repo.js';
import type { DepositRow } from './deposit-repo.js';
import { webhookPayload } from './deposit-views.js';

export interface TransitionExtra {
  failReason?: string;
  /** Columns stored together with the change (commit: trade key and URLs; send: bot and offer). */
  set?: Updateable<DepositsTable>;
  /** Scope to one merchant: another merchant's deposit is not found. */
  merchantId?: number;
}

export interface DepositTransitionDeps {
  db: Db;
  config: Pick<Config, 'depositTimeoutMs' | 'holdSeconds'>;
  clock: Clock;
  /** Told after a statement with its own commit completed deposits (their items were listed). */
  onListingsChanged?: () => void;
}

/** One applyFrom call waiting for its batch. */
interface BatchRequest {
  d: DepositRow;
  event: DepositEvent;
  set: Updateable<DepositsTable>;
}

export function createDepositTransitions(deps: DepositTransitionDeps) {
  const { db, config, clock } = deps;

  /** A pending deposit is resolved by perform within DEPOSIT_TIMEOUT_MS; if the instance died, this job fails it. */
  function watchPending(trx: Trx, id: number): Promise<void> {
    return schedulePendingWatchdog(trx, id, pendingDeadline());
  }

  function pendingDeadline(): Date {
    return new Date(clock.now().getTime() + config.depositTimeoutMs + 30_000);
  }

  /** What `event` and entering `d.status` do — webhook, timed jobs, ledger movement — as data. */
  function effectsData(d: DepositRow, event: DepositEvent): { webhook?: WebhookEventInput; jobs: JobSpec[]; movement?: LedgerMovement } {
    const out: { webhook?: WebhookEventInput; jobs: JobSpec[]; movement?: LedgerMovement } = { jobs: [] };
    if (DEPOSIT_MACHINE.onEnter[d.status].webhook) {
      out.webhook = { merchantId: d.merchant_id, kind: 'deposit', recordId: d.id, status: d.status, resultUrl: d.result_url, payload: webhookPayload(d) };
    }
    // Time-driven transitions run as jobs; their handlers re-apply the same transition, which a
    // deposit that has moved on refuses (so a late or repeated job does nothing).
    const jobs = out.jobs;
    if (d.status === 'pending') jobs.push(depositJob.pendingWatchdog(d.id, pendingDeadline()));
    if (d.status === 'active' && d.trade_offer_expiry_at) jobs.push(depositJob.offerExpiry(d.id, new Date(d.trade_offer_expiry_at)));
    if (d.status === 'hold' && d.hold_end_date) jobs.push(depositJob.holdEnd(d.id, new Date(d.hold_end_date)));
    const movement = DEPOSIT_MACHINE.transitions[event].movement;
    if (!movement) return out;
    const m = DEPOSIT_MOVEMENTS[movement];
    out.movement = {
      merchantId: d.merchant_id,
      key: `deposit:${d.id}:${movement}`,
      kind: m.kind,
      availableDelta: m.available * d.amount,
      holdDelta: m.hold * d.amount,
      refType: 'deposit',
      refId: d.id,
    };
    return out;
  }

  function setOf(event: DepositEvent, extra: TransitionExtra): Updateable<DepositsTable> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const set: Updateable<DepositsTable> = { ...extra.set, status: rule.to };
    const failReason = extra.failReason ?? rule.failReason;
    if (failReason) set.fail_reason = failReason;
    return set;
  }

  /**
   * `apply` for a deposit just read (`d`, no lock): the whole transition as ONE statement with its
   * own commit, so the merchant's balances row lock is held for that statement and its commit
   * only, never across a round trip — the offer changes (status, fail reason, hold end) grouped
   * with the concurrent ones of the instance, the others (commit, send) alone. The webhook body is
   * built from `d`, so the guard is its status and every column the body reads; a deposit changed
   * since, or a movement refused (the statement then fails as a whole), goes the transaction path
   * (apply), which also answers refusals.
   */
  async function applyFrom(d: DepositRow, event: DepositEvent, extra: TransitionExtra = {}): Promise<TransitionResult<DepositRow>> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    if (!rule.from.includes(d.status) || (extra.merchantId !== undefined && d.merchant_id !== extra.merchantId)) return apply(d.id, event, extra);
    const req = { d, event, set: setOf(event, extra) };
    const row = batchable(req.set) ? await batch.add(req) : await changeAlone(req);
    return row ? { ok: true, row } : apply(d.id, event, extra);
  }

  /** One transition alone, with its own commit: the changed row, or undefined (changed since it was read, or its movement refused). */
  async function changeAlone(req: BatchRequest): Promise<DepositRow | undefined> {
    try {
      return listed((await repo.changeBatch(db, [transitionItem(req)]))[0]);
    } catch (err) {
      if (err instanceof InsufficientFundsError) return undefined;
      throw err;
    }
  }

  /** The offer changes' sets (status, fail reason, hold end) go through the group commit; others (commit, send) do not. */
  function batchable(set: Updateable<DepositsTable>): boolean {
    for (const k in set) if (k !== 'status' && k !== 'fail_reason' && k !== 'hold_end_date') return false;
    return true;
  }

  /** What deposit_transition_batch applies for one deposit read as `d`: its guard, the change and its effects. */
  function transitionItem({ d, event, set }: BatchRequest): repo.BatchTransition {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const after = { ...d, ...set } as DepositRow;
    const { webhook, jobs, movement } = effectsData(after, event);
    return {
      id: d.id,
      merchant_id: d.merchant_id,
      status: d.status,
      amount: d.amount,
      trade_offer_id: d.trade_offer_id,
      platform_id: d.platform_id,
      merchant_tx_id: d.merchant_tx_id,
      set,
      release: isTerminal(DEPOSIT_MACHINE, rule.to),
      webhook: webhook ? { status: webhook.status, result_url: webhook.resultUrl ?? null, payload: webhook.payload } : null,
      jobs: outboxRecords(jobs),
      movement: movement ? { key: movement.key, kind: movement.kind, available_delta: movement.availableDelta, hold_delta: movement.holdDelta } : null,
    };
  }

  /**
   * Group commit of applyFrom's offer changes (db/batched.ts): the concurrent ones of this
   * instance are one statement and one commit. A deposit twice in a batch goes there once; one
   * left out (its guard failed, a second one, or the batch failed as a whole) answers undefined
   * and takes the transaction path.
   */
  const batch = batched<BatchRequest, DepositRow | undefined>(async (reqs) => {
    const seen = new Set<number>();
    const first = reqs.map((r) => (seen.has(r.d.id) ? false : (seen.add(r.d.id), true)));
    let rows: DepositRow[];
    try {
      rows = await repo.changeBatch(db, reqs.filter((_, i) => first[i]).map(transitionItem));
    } catch {
      // A movement refused (or a deadlock, or a failure): nothing committed; each goes the
      // transaction path, which answers or reports its own outcome.
      return reqs.map(() => undefined);
    }
    if (rows.some((r) => r.status === 'completed')) deps.onListingsChanged?.();
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return reqs.map((r, i) => (first[i] ? byId.get(r.d.id) : undefined));
  });

  /** A deposit a statement with its own commit completed had its items listed: the catalogue is told. */
  function listed(row: DepositRow | undefined): DepositRow | undefined {
    if (row?.status === 'completed') deps.onListingsChanged?.();
    return row;
  }

  /**
   * Applies `event` inside `trx`: the deposit read and locked (FOR UPDATE), the machine's check,
   * then the same call as the batch's for it alone (its guard holds: the row is locked). A refused
   * movement throws InsufficientFundsError (the transaction must roll back).
   */
  async function transitionIn(trx: Trx, depositId: number, event: DepositEvent, extra: TransitionExtra = {}): Promise<TransitionResult<DepositRow>> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const d = await repo.lockDeposit(trx, depositId);
    if (!d || (extra.merchantId !== undefined && d.merchant_id !== extra.merchantId)) return { ok: false, reason: 'not_found' };
    if (!rule.from.includes(d.status)) return { ok: false, reason: 'invalid_transition', current: d.status };
    const [row] = await repo.changeBatch(trx, [transitionItem({ d, event, set: setOf(event, extra) })]);
    if (!row) throw new Error(`deposit ${depositId}: the locked deposit was not changed`);
    return { ok: true, row };
  }

  /** `transitionIn` in a transaction of its own. */
  async function apply(depositId: number, event: DepositEvent, extra?: TransitionExtra): Promise<TransitionResult<DepositRow>> {
    const r = await db.transaction().execute((trx) => transitionIn(trx, depositId, event, extra));
    if (r.ok) listed(r.row);
    return r;
  }

  /** For jobs: a deposit that is gone or no longer in the expected status is left alone (null). */
  async function tryApply(depositId: number, event: DepositEvent, extra?: TransitionExtra): Promise<DepositRow | null> {
    const r = await apply(depositId, event, extra);
    return r.ok ? r.row : null;
  }

  /**
   * Fails a pending trade with `reason` (stored, webhook sent); answers the row as it now is. A
   * trade that moved on meanwhile (the watchdog failed it) is left alone: the merchant API never
   * answers 409 for it (409 means a duplicate merchant_tx_id only).
   */
  /** `cause`: the real cause kept beside the spec's reason (fail_cause). */
  async function failPending(id: number, reason: string, trx?: Trx, cause?: string): Promise<DepositRow> {
    const extra: TransitionExtra = { failReason: reason, ...(cause ? { set: { fail_cause: cause } } : {}) };
    const r = trx ? await transitionIn(trx, id, 'fail', extra) : await apply(id, 'fail', extra);
    return r.ok ? r.row : (await repo.findDepositById(trx ?? db, id))!;
  }

  /** When a hold ends: the game's hold, or an hour for an explicit hold on a game without one (sandbox accept {hold:true}). */
  function holdEndFor(game: string | null): Date {
    const seconds = config.holdSeconds[(game ?? 'csgo') as Game] ?? 0;
    return new Date(clock.now().getTime() + (seconds > 0 ? seconds : 3600) * 1000);
  }

  return { transitionIn, apply, applyFrom, tryApply, failPending, watchPending, holdEndFor };
}

export type DepositTransitions = ReturnType<typeof createDepositTransitions>;
