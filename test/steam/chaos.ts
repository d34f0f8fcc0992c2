// A randomized run against the stand-in platform (issue 20, point 8): many deposits and purchases
// through the real libraries, platform faults injected at random before each record (429 bursts,
// 5xx, eresult 16/20, late and hung sends, a one-off 401, failing cancels and history reads), the
// users accepting, declining and reversing at random, the gateway expiring offers. At the end the
// faults stop, every record is settled by the gateway's own jobs and polls, and the outcome is
// judged against the platform: reconciliation's discrepancies, the ledger, every record's status
// against its offer's fate, and no offer left acceptable that no record wants.
// Used by test/steam/steam-chaos.test.ts (short, seeded) and bench/steam-chaos.ts (minutes).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mulberry32 } from '../../src/domain/prng.js';
import { importListings } from '../../src/modules/catalogue/catalogue-import.js';
import type { SteamWorld } from './steam-helpers.js';
import type { FakeOffer } from './fake-steam.js';

export interface ChaosSummary {
  seed: number;
  records: number;
  ms: number;
  faults: Record<string, number>;
  deposits: Record<string, number>;
  purchases: Record<string, number>;
  userActions: Record<string, number>;
  corrections: number;
  /** Offer changes the gateway refused although items may have moved (audited offer_change_refused), by refusal kind. */
  refusedChanges: Record<string, number>;
  discrepancies: { kind: string; detail: string }[];
  ledgerMismatches: number;
  /** Records whose status disagrees with what the platform did with their offer. */
  outcomeMismatches: string[];
  /** Offers a user could still accept that no record wants. */
  orphanOffers: string[];
}

const NAME = 'AK-47 | Redline (Minimal Wear)';
const TOKEN = 'tok12345';
const SEND = /\/tradeoffer\/new\/send$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runChaos(w: SteamWorld, opts: { seed: number; records: number; log?: (line: string) => void }): Promise<ChaosSummary> {
  const t0 = Date.now();
  const rnd = mulberry32(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const count = (m: Record<string, number>, k: string) => void (m[k] = (m[k] ?? 0) + 1);
  const { fake, gw, platform } = w;
  const m = await gw.createMerchant();
  await gw.topUp(m.id, 1_000_000);
  const api = (method: string, p: string, body?: unknown) => gw.merchant(m.api_key, method, p, body);
  const deposits: number[] = [];
  const purchases: number[] = [];
  const summary: ChaosSummary = { seed: opts.seed, records: opts.records, ms: 0, faults: {}, deposits: {}, purchases: {}, userActions: {}, corrections: 0, refusedChanges: {}, discrepancies: [], ledgerMismatches: 0, outcomeMismatches: [], orphanOffers: [] };
  let partner = 70_000_000 + (opts.seed % 1000) * 10_000;
  let listing = 0;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'steam-chaos-'));

  const FAULTS: Record<string, () => void> = {
    send_429: () => fake.limit(SEND, 1 + Math.floor(rnd() * 6)),
    send_eresult20: () => fake.fail(SEND, 1 + Math.floor(rnd() * 3), 500, { strError: 'There was an error sending your trade offer.  Please try again later. (20)' }),
    send_lost_eresult16: () => void (fake.nextSendLost = true),
    send_late_offer: () => void (fake.nextSendHidden = true),
    send_hangs: () => void (fake.nextSendHangMs = 3_500),
    inventory_429: () => fake.limit(/\/inventory\//, 1 + Math.floor(rnd() * 6)),
    offers_401_once: () => fake.fail(/GetTradeOffers/, 1, 401),
    offers_500: () => fake.fail(/IEconService\/GetTradeOffer/, 1 + Math.floor(rnd() * 3), 500),
    confirmations_429: () => fake.limit(/\/mobileconf\//, 1 + Math.floor(rnd() * 6)),
    cancel_500: () => fake.fail(/\/cancel$/, 1 + Math.floor(rnd() * 3), 500),
    history_500: () => fake.fail(/GetTradeHistory/, 1 + Math.floor(rnd() * 2), 500),
  };
  const faultNames = Object.keys(FAULTS).filter((f) => f !== 'send_hangs');

  async function deposit(): Promise<void> {
    const p = ++partner;
    const n = 1 + Math.floor(rnd() * 2);
    fake.addUser({ partner: p, token: TOKEN, items: Array.from({ length: n }, (_, k) => ({ assetid: String(p * 10 + k), classid: '1', name: NAME })) });
    let inv;
    for (let i = 0; i < 5; i++) {
      inv = await api('POST', '/inventory', { game: 'csgo', partner: p, token: TOKEN });
      if (inv.status === 200) break;
      await sleep(200 * (i + 1)); // the merchant retries a 500 integration service error
    }
    if (inv?.status !== 200) return count(summary.userActions, 'inventory_unavailable');
    const res = await api('POST', '/create-deposit', { merchant_tx_id: `chaos-${opts.seed}-d${p}`, game: 'csgo', partner: p, token: TOKEN, asset_ids: Array.from({ length: n }, (_, k) => String(p * 10 + k)) });
    if (res.status === 200) deposits.push(res.body.data.id);
    else count(summary.userActions, `create_deposit_${res.status}`);
  }

  async function purchase(): Promise<void> {
    const bot = pick(w.bots).fake;
    const n = ++listing;
    const assetId = String(64_000_000_000 + opts.seed * 100_000 + n);
    bot.items.push({ assetid: assetId, classid: '7', name: NAME });
    const id = `c${String(opts.seed).padStart(6, '0')}${String(n).padStart(8, '0')}`;
    const file = path.join(dir, `${id}.jsonl`);
    await fs.writeFile(file, JSON.stringify({ id, game: 'csgo', name: NAME, price: 3.5, inspect_url: `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S${bot.steamId}A${assetId}D4649842965496580321` }) + '\n');
    if ((await importListings(gw.ctx, file, () => {})).errors.length) throw new Error('chaos: listing import failed');
    const p = ++partner;
    fake.addUser({ partner: p, token: TOKEN, items: [] });
    const res = await api('POST', '/purchase', { partner: p, token: TOKEN, game: 'csgo', asset_id: id, merchant_tx_id: `chaos-${opts.seed}-p${n}` });
    if (res.status !== 200) return count(summary.userActions, `create_purchase_${res.status}`);
    purchases.push(res.body.data.id);
    await dispatch(res.body.data.id);
  }

  /** The dispatcher's attempts (it would space them by its jittered backoff; here a short pause). */
  async function dispatch(id: number): Promise<void> {
    for (let attempts = 1; attempts <= 5; attempts++) {
      try {
        await gw.ctx.purchases.dispatch(id, { attempts, maxAttempts: 5 });
        return;
      } catch {
        await sleep(100);
      }
    }
  }

  /** What users do with their open offers, and the gateway's own rounds. */
  async function world(): Promise<void> {
    // Users act on every offer they can see in their own client — a late offer the bots' API does not list yet included.
    for (const o of [...fake.offers.values()]) {
      const r = rnd();
      if (o.state === 2) {
        if (r < 0.35) (fake.accept(o.id), count(summary.userActions, fake.hidden.has(o.id) ? 'accept_late_offer' : 'accept'));
        else if (r < 0.45) (fake.decline(o.id), count(summary.userActions, 'decline'));
      } else if (o.state === 3 && o.tradeid && r < 0.05 && !fake.trades.some((t) => t.rollback_trade === o.tradeid)) {
        fake.reverse(o.id);
        count(summary.userActions, 'reverse');
      }
    }
    if (rnd() < 0.3) fake.reveal();
    await platform.pollTick().catch(() => {});
    if (rnd() < 0.3) await platform.historyTick().catch(() => {});
    for (const id of await pendingDeposits()) await gw.ctx.deposits.resolvePending(id).catch(() => {});
    if (rnd() < 0.15) {
      const active = await gw.ctx.db.selectFrom('deposits').select('id').where('status', '=', 'active').where('id', 'in', deposits.length ? deposits : [0]).execute();
      if (active.length) {
        await gw.ctx.deposits.expireIfGone(Number(pick(active).id)).catch(() => {});
        count(summary.userActions, 'gateway_expiry');
      }
    }
  }
  const pendingPurchases = async () =>
    (await gw.ctx.db.selectFrom('purchases').select('id').where('status', '=', 'pending').where('id', 'in', purchases.length ? purchases : [0]).execute()).map((p) => Number(p.id));
  const pendingDeposits = async () =>
    (await gw.ctx.db.selectFrom('deposits').select('id').where('status', '=', 'pending').where('id', 'in', deposits.length ? deposits : [0]).execute()).map((d) => Number(d.id));

  for (let i = 0; i < opts.records; i++) {
    if (rnd() < 0.5) {
      const f = rnd() < 0.04 ? 'send_hangs' : pick(faultNames);
      FAULTS[f]();
      count(summary.faults, f);
    }
    await (rnd() < 0.6 ? deposit() : purchase());
    await world();
    if (opts.log && (i + 1) % 25 === 0) opts.log(`chaos: ${i + 1}/${opts.records} records, ${Math.round((Date.now() - t0) / 1000)} s`);
  }

  // ---- the faults stop; the gateway settles everything by its own rounds
  fake.clearFailures();
  fake.clearLimits();
  fake.nextSendHidden = fake.nextSendLost = false;
  fake.nextSendHangMs = 0;
  await sleep(4_000); // a hung send answers
  fake.reveal();
  // The settle windows of ambiguous sends have passed.
  await gw.ctx.db.updateTable('steam_offers').set({ uncertain_since: new Date(Date.now() - 3_600_000) }).where('uncertain_since', 'is not', null).where('trade_offer_id', 'is', null).execute();
  await gw.ctx.db.updateTable('steam_offers').set({ attempt_started_at: new Date(Date.now() - 3_600_000) }).where('trade_offer_id', 'is', null).execute();
  for (const id of purchases) {
    const p = await gw.ctx.db.selectFrom('purchases').select(['status', 'dispatch_attempts']).where('id', '=', id).executeTakeFirstOrThrow();
    if (p.status === 'pending') await gw.ctx.purchases.dispatch(id, { attempts: 5, maxAttempts: 5 }).catch(() => {});
  }
  for (let round = 0; ; round++) {
    await platform.pollTick();
    await platform.historyTick();
    for (const id of await pendingDeposits()) await gw.ctx.deposits.resolvePending(id);
    // A purchase still waiting for its offer's fate (an ambiguous last attempt): its next look.
    for (const id of await pendingPurchases()) await gw.ctx.purchases.dispatch(id, { attempts: 5, maxAttempts: 5 }).catch(() => {});
    const unsettled = await gw.ctx.db.selectFrom('steam_offers').select('trade_offer_id')
      .where((eb) => eb.or([eb('trade_offer_id', 'is', null), eb.and([eb('state', 'is distinct from', eb.ref('reported_state'))]), eb.and([eb('reverted_at', 'is not', null), eb('reversal_reported', '=', false)])]))
      .execute();
    const pending = (await pendingDeposits()).length + (await pendingPurchases()).length;
    const acceptable = [...fake.offers.values()].filter((o) => o.state === 2 || o.state === 9);
    const wanted = await wantedOffers(acceptable);
    if (!unsettled.length && !pending && acceptable.every((o) => wanted.has(o.id))) break;
    if (round > 60) break; // judged below
    await sleep(250);
  }

  // ---- the judgement
  const rec = await gw.admin('POST', '/reconciliation/run');
  summary.discrepancies = (rec.body.data?.discrepancies ?? [{ kind: 'run_failed', detail: JSON.stringify(rec.body) }]).map((d: { kind: string; detail: string }) => ({ kind: d.kind, detail: d.detail }));
  summary.ledgerMismatches = (await gw.ctx.ledger.verify()).mismatches.length;
  const byMessage = new Map([...fake.offers.values()].map((o) => [o.message.split(']')[0] + ']', o] as const));
  const reversed = new Set(fake.trades.filter((t) => t.rollback_trade).map((t) => t.rollback_trade));
  const fate = (kind: string, id: number) => {
    const o = byMessage.get(`[gw:${kind}:${id}]`);
    return !o || o.state !== 3 ? 'none' : reversed.has(o.tradeid) ? 'reversed' : 'accepted';
  };
  for (const d of await gw.ctx.db.selectFrom('deposits').select(['id', 'status']).where('id', 'in', deposits.length ? deposits : [0]).execute()) {
    count(summary.deposits, d.status);
    const f = fate('deposit', Number(d.id));
    const ok = f === 'accepted' ? ['hold', 'completed'].includes(d.status) : f === 'reversed' ? d.status === 'reverted' : ['failed', 'canceled', 'active'].includes(d.status);
    if (!ok) summary.outcomeMismatches.push(`deposit ${d.id}: ${d.status}, offer ${f}`);
  }
  for (const p of await gw.ctx.db.selectFrom('purchases').select(['id', 'status', 'fail_reason', 'fail_cause']).where('id', 'in', purchases.length ? purchases : [0]).execute()) {
    count(summary.purchases, p.status);
    const f = fate('purchase', Number(p.id));
    const ok = f === 'accepted' ? ['hold', 'completed'].includes(p.status) : f === 'reversed' ? p.status === 'reverted' : ['failed', 'canceled', 'active'].includes(p.status);
    if (!ok) summary.outcomeMismatches.push(`purchase ${p.id}: ${p.status}, offer ${f}`);
    if (!ok) opts.log?.(`chaos: purchase ${p.id} ${p.status} ${p.fail_reason ?? ''} (${p.fail_cause ?? ''}), offer ${f}`);
  }
  const acceptable = [...fake.offers.values()].filter((o) => o.state === 2 || o.state === 9);
  const wanted = await wantedOffers(acceptable);
  summary.orphanOffers = acceptable.filter((o) => !wanted.has(o.id)).map((o) => `${o.id} ${o.message}`);
  summary.corrections = Number((await gw.ctx.db.selectFrom('audit_log' as any).select((eb: any) => eb.fn.countAll().as('n')).where('actor', '=', 'platform').where('action', '<>', 'offer_change_refused').executeTakeFirst() as { n: string }).n);
  summary.refusedChanges = { ...platform.refusedChanges };
  summary.ms = Date.now() - t0;
  return summary;

  /** Offers their record still wants: an active record with that offer. */
  async function wantedOffers(list: FakeOffer[]): Promise<Set<string>> {
    if (!list.length) return new Set();
    const ids = list.map((o) => o.id);
    const d = await gw.ctx.db.selectFrom('deposits').select('trade_offer_id').where('status', '=', 'active').where('trade_offer_id', 'in', ids).execute();
    const p = await gw.ctx.db.selectFrom('purchases').select('trade_offer_id').where('status', '=', 'active').where('trade_offer_id', 'in', ids).execute();
    return new Set([...d, ...p].map((r) => r.trade_offer_id!));
  }
}
