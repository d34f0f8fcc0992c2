// Reconciliation against the platform: reads each bot's trade history (over
// RECONCILE_WINDOW_SECONDS) and inventories through the platform port, the records they name and
// the records that claim a trade, and stores what disagrees (reconcile-rules.ts) as a run. A bot
// that cannot be read is listed as such and its records are not judged on missing evidence.
import type { Logger } from 'pino';
import type { ReconcileSettings } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../domain/clock.js';
import type { Game } from '../../domain/games.js';
import { notFound } from '../../domain/errors.js';
import type { TradingPlatform } from '../../platform/port.js';
import { findDiscrepancies, recordKey, type HeldFact, type RecordFact, type TradeFact } from './reconcile-rules.js';
import * as repo from './reconcile-repo.js';

export function createReconcileService(deps: { db: Db; log: Logger; clock: Clock; settings: ReconcileSettings; platform: Pick<TradingPlatform, 'kind' | 'botTrades' | 'botInventory'> }) {
  const { db, log, platform } = deps;

  /** The bots compared: not removed; on steam the operator-managed ones. */
  async function bots(): Promise<Array<{ id: number; games: Game[] }>> {
    let q = db.selectFrom('bots').select(['id', 'games']).where('removed_at', 'is', null).orderBy('id');
    if (platform.kind === 'steam') q = q.where('account_name', 'is not', null);
    return (await q.execute()).map((b) => ({ id: Number(b.id), games: b.games as Game[] }));
  }

  async function run() {
    if (!platform.botTrades || !platform.botInventory) throw new Error('this platform cannot read the bots\' trades and inventories');
    const since = new Date(deps.clock.now().getTime() - deps.settings.windowSeconds * 1000);
    const runId = await repo.startRun(db, since);
    const trades: TradeFact[] = [];
    const held: HeldFact[] = [];
    const tradesRead = new Set<number>();
    const inventoriesRead = new Set<string>();
    const readErrors: { bot_id: number; what: string; error: string }[] = [];
    const all = await bots();
    // The platform first (outside any transaction), bot by bot.
    for (const bot of all) {
      try {
        trades.push(...(await platform.botTrades(bot.id, since)));
        tradesRead.add(bot.id);
      } catch (err) {
        readErrors.push({ bot_id: bot.id, what: 'trades', error: (err as Error).message });
      }
      for (const game of bot.games) {
        try {
          for (const it of await platform.botInventory(bot.id, game)) {
            held.push({ botId: bot.id, game, assetId: it.assetId, ...(it.depositId !== undefined ? { depositId: it.depositId, depositAssetId: it.depositAssetId ?? it.assetId } : {}) });
          }
          inventoriesRead.add(`${bot.id}:${game}`);
        } catch (err) {
          readErrors.push({ bot_id: bot.id, what: `inventory ${game}`, error: (err as Error).message });
        }
      }
    }
    const named = trades.flatMap((t) => (t.record ? [{ kind: t.record.kind, id: t.record.recordId }] : []));
    const records = new Map<string, RecordFact>((await repo.recordsFor(db, since, named)).map((r) => [recordKey(r.kind, r.id), r]));
    const found = findDiscrepancies({
      since, trades, records, tradesRead, listings: await repo.listingsForSale(db), held, inventoriesRead,
      allInventoriesRead: readErrors.every((e) => e.what === 'trades'),
    });
    await repo.finishRun(db, runId, tradesRead.size, readErrors, found);
    log.info({ runId, bots: all.length, trades: trades.length, discrepancies: found.length, readErrors: readErrors.length }, 'reconciliation done');
    return report(runId);
  }

  /** A run with its discrepancies (the latest finished one when no id is given). */
  async function report(runId?: number, limit = 500, offset = 0) {
    const run = runId === undefined ? await repo.latestRun(db) : await db.selectFrom('reconcile_runs').selectAll().where('id', '=', runId).executeTakeFirst();
    if (!run || !run.finished_at) throw notFound(); // no reconciliation has run yet
    return {
      run_id: Number(run.id),
      started_at: new Date(run.started_at).toISOString(),
      finished_at: new Date(run.finished_at).toISOString(),
      since: new Date(run.since).toISOString(),
      bots_read: Number(run.bots_read),
      read_errors: run.read_errors as { bot_id: number; what: string; error: string }[],
      total: Number(run.discrepancies),
      discrepancies: await repo.discrepanciesOf(db, Number(run.id), limit, offset),
    };
  }

  return { run, report };
}

export type ReconcileService = ReturnType<typeof createReconcileService>;
