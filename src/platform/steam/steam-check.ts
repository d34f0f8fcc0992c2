// `gateway bot check`: sign a bot in and report what it can do; a bot that cannot trade leaves
// the rotation (trade_state cannot_trade) until an operator enables it again.
import type { Db } from '../../db/database.js';
import type { Game } from '../../domain/games.js';
import * as bots from './bot-repo.js';
import type { BotCheckReport } from '../port.js';
import type { BotDriver } from './steam-bot.js';
import { APP_IDS, TRADABLE_CONTEXT } from './steam-mapping.js';
import { listedAssetsOfBot } from './steam-offers-repo.js';

export async function checkBot(deps: { db: Db; running(id: number): BotDriver | undefined; open(id: number): Promise<BotDriver> }, botId: number): Promise<BotCheckReport> {
  const problems: string[] = [];
  const report: BotCheckReport = { signed_in: false, can_trade: false, trade_protection_acknowledged: false, confirmations_reachable: false, problems };
  const running = deps.running(botId);
  let driver: BotDriver | undefined = running;
  try {
    // Opening signs in and acknowledges trade protection (once per account).
    driver ??= await deps.open(botId);
    report.signed_in = true;
    report.platform_id = driver.steamId;
    report.trade_protection_acknowledged = true;
    if (driver.steamId !== driver.bot.platformId) problems.push(`signed in as ${driver.steamId}, but the bot is recorded as ${driver.bot.platformId}`);
    const games = (await deps.db.selectFrom('bots').select('games').where('id', '=', botId).executeTakeFirstOrThrow()).games;
    report.inventory = {};
    const held = new Set<string>();
    for (const g of games) {
      const items = await driver.inventory(driver.bot.platformId, APP_IDS[g as Game], TRADABLE_CONTEXT, 'own-inventory');
      report.inventory[g] = items.length;
      for (const i of items) held.add(String(i.assetid ?? i.id));
    }
    // Reconciliation: what the catalogue sells from this bot must be in its inventory.
    // (Drift is reported, not a reason to stop trading: the operator delists or investigates.)
    report.listed_but_missing = (await listedAssetsOfBot(deps.db, botId)).filter((a) => !held.has(a));
    await driver.confirmations();
    report.confirmations_reachable = true;
  } catch (err) {
    problems.push((err as Error).message);
  } finally {
    if (driver && !running) driver.stop();
  }
  report.can_trade = report.signed_in && report.confirmations_reachable && problems.length === 0;
  await bots.setTradeState(deps.db, botId, report.can_trade ? 'ok' : 'cannot_trade', report.can_trade ? null : problems.join('; ').slice(0, 500));
  await bots.saveDriverState(deps.db, botId, { last_checked_at: new Date() });
  return report;
}
