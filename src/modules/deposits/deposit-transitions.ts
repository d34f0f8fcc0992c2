// The only writer of a deposit's status. A transition of the state machine (src/domain/
// deposit-state.ts) is one guarded UPDATE (WHERE status IN <from>) and, in the same transaction,
// the release of the user's reserved assets (terminal status) in the same statement, then one
// statement for the webhook of the status entered, the status's timed jobs and its ledger movement
// (the balances row lock, shared by the merchant's money transactions, is then held only to the commit). Answers a result, never throws
// for a refused transition: each caller decides what a refusal means to it.
import type { RawBuilder, Updateable } from 'kysely';
import type { Config } from '../../config.js';
import type { Db, Trx } from '../../db/database.js';
import type { DepositsTable } from '../../db/tables/deposits.js';
import type { Clock } from '../../domain/clock.js';
import { DEPOSIT_MACHINE, DEPOSIT_MOVEMENTS, type DepositEvent } from '../../domain/deposit-state.js';
import type { Game } from '../../domain/games.js';
import { isTerminal } from '../../domain/state-machine.js';
import type { TransitionResult } from '../../platform/offers.js';
import { runParts } from '../../db/statement-parts.js';
import { outboxInsert, outboxRecords, type JobSpec } from '../../jobs/enqueue.js';
import { batched } from '../../db/batched.js';
import { applyMovement, movementCtes, type LedgerMovement } from '../ledger/ledger-repo.js';
import { webhookInsert, type WebhookEventInput } from '../webhooks/outbox.js';
import { addDepositItemsJob } from '../catalogue/catalogue-jobs.js';
import { depositJob, schedulePendingWatchdog } from './deposit-jobs.js';
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
    if (d.status === 'completed') jobs.push(addDepositItemsJob(d.id));
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

  /**
   * effectsData as statement parts and the movement. `when`: the condition they run under in a
   * larger statement (applyFrom).
   */
  function effectsOf(d: DepositRow, event: DepositEvent, when?: RawBuilder<unknown>): { parts: RawBuilder<unknown>[]; movement?: LedgerMovement } {
    const { webhook, jobs, movement } = effectsData(d, event);
    const parts: RawBuilder<unknown>[] = [];
    if (webhook) parts.push(webhookInsert(webhook, when));
    if (jobs.length) parts.push(outboxInsert(jobs, when));
    return { parts, movement };
  }

  /**
   * The effects in `trx` as one statement after the status change: the movement in it takes the
   * merchant's balances row lock (shared by every money transaction of the merchant), held from
   * here to the commit — so only the commit follows this statement.
   */
  async function effects(trx: Trx, d: DepositRow, event: DepositEvent): Promise<void> {
    const { parts, movement } = effectsOf(d, event);
    if (movement) await applyMovement(trx, movement, parts);
    else await runParts(trx, parts);
  }

  function setOf(event: DepositEvent, extra: TransitionExtra): Updateable<DepositsTable> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const set: Updateable<DepositsTable> = { ...extra.set, status: rule.to };
    const failReason = extra.failReason ?? rule.failReason;
    if (failReason) set.fail_reason = failReason;
    return set;
  }

  /**
   * `apply` for a deposit just read (`d`, no lock): the whole transition — guarded update, the
   * items' release, webhook, jobs, ledger movement — as ONE statement with its own commit, so the
   * merchant's balances row lock is held for that statement and its commit only, never across a
   * round trip. The webhook body is built from `d`, so the guard is its status and every column
   * the body reads; a deposit changed since, or a movement refused (the statement then fails as a
   * whole), goes the transaction path (apply), which also answers refusals.
   */
  async function applyFrom(d: DepositRow, event: DepositEvent, extra: TransitionExtra = {}): Promise<TransitionResult<DepositRow>> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    if (!rule.from.includes(d.status) || (extra.merchantId !== undefined && d.merchant_id !== extra.merchantId)) return apply(d.id, event, extra);
    const set = setOf(event, extra);
    if (batchable(set)) {
      const row = await batch.add({ d, event, set });
      return row ? { ok: true, row } : apply(d.id, event, extra);
    }
    const after = { ...d, ...set } as DepositRow;
    const { parts, movement } = effectsOf(after, event, repo.CHANGED);
    const row = await repo.changeInOneStatement(db, d, set, isTerminal(DEPOSIT_MACHINE, rule.to), parts, movement && movementCtes(movement, repo.CHANGED));
    return row ? { ok: true, row } : apply(d.id, event, extra);
  }

  /** The offer changes' sets (status, fail reason, hold end) go through the group commit; others (commit, send) do not. */
  function batchable(set: Updateable<DepositsTable>): boolean {
    for (const k in set) if (k !== 'status' && k !== 'fail_reason' && k !== 'hold_end_date') return false;
    return true;
  }

  /** What the batch statement applies for one deposit: exactly what changeInOneStatement would. */
  function batchItem({ d, event, set }: BatchRequest): repo.BatchTransition {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const after = { ...d, ...set } as DepositRow;
    const { webhook, jobs, movement } = effectsData(after, event);
    const holdEnd = set.hold_end_date as Date | string | null | undefined;
    return {
      id: d.id,
      merchant_id: d.merchant_id,
      status: d.status,
      amount: d.amount,
      trade_offer_id: d.trade_offer_id,
      platform_id: d.platform_id,
      merchant_tx_id: d.merchant_tx_id,
      to_status: rule.to,
      set_fail_reason: set.fail_reason !== undefined,
      fail_reason: set.fail_reason ?? null,
      set_hold_end: holdEnd !== undefined,
      hold_end_date: holdEnd == null ? null : new Date(holdEnd).toISOString(),
      release: isTerminal(DEPOSIT_MACHINE, rule.to),
      webhook: webhook ? { status: webhook.status, result_url: webhook.resultUrl ?? null, payload: webhook.payload } : null,
      jobs: outboxRecords(jobs),
      movement: movement ? { key: movement.key, kind: movement.kind, available_delta: movement.availableDelta, hold_delta: movement.holdDelta } : null,
    };
  }

  /**
   * Group commit of applyFrom's transitions (db/batched.ts): the concurrent ones of this
   * instance are one statement and one commit (024_deposit_transition_batch.sql). A deposit twice
   * in a batch goes there once; one left out (its guard failed, a second one, or the batch failed
   * as a whole) answers undefined and takes the transaction path.
   */
  const batch = batched<BatchRequest, DepositRow | undefined>(async (reqs) => {
    const seen = new Set<number>();
    const first = reqs.map((r) => (seen.has(r.d.id) ? false : (seen.add(r.d.id), true)));
    let rows: DepositRow[];
    try {
      rows = await repo.changeBatch(db, reqs.filter((_, i) => first[i]).map(batchItem));
    } catch {
      // A movement did not apply (or a deadlock, or a failure): nothing committed; each goes the
      // transaction path, which answers or reports its own outcome.
      return reqs.map(() => undefined);
    }
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return reqs.map((r, i) => (first[i] ? byId.get(r.d.id) : undefined));
  });

  /** Applies `event` inside `trx`: guarded UPDATE, then its effects. */
  async function transitionIn(trx: Trx, depositId: number, event: DepositEvent, extra: TransitionExtra = {}): Promise<TransitionResult<DepositRow>> {
    const rule = DEPOSIT_MACHINE.transitions[event];
    const set = setOf(event, extra);
    // A finished deposit no longer holds the user's assets (they may go into a new deposit): the
    // release is part of the guarded update's statement.
    const row = await repo.updateStatusGuarded(trx, depositId, rule.from, set, extra.merchantId, isTerminal(DEPOSIT_MACHINE, rule.to));
    if (!row) {
      const current = await repo.findDepositById(trx, depositId);
      if (!current || (extra.merchantId !== undefined && current.merchant_id !== extra.merchantId)) return { ok: false, reason: 'not_found' };
      return { ok: false, reason: 'invalid_transition', current: current.status };
    }
    await effects(trx, row, event);
    return { ok: true, row };
  }

  /** `transitionIn` in a transaction of its own. */
  function apply(depositId: number, event: DepositEvent, extra?: TransitionExtra): Promise<TransitionResult<DepositRow>> {
    return db.transaction().execute((trx) => transitionIn(trx, depositId, event, extra));
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
  /** `cause`: the real cause kept beside the spec's reason (fail_cause, migration 047). */
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
