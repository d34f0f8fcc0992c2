// SQL of the steam adapter's offers (table steam_offers): one claim per deposit or purchase
// (the primary key), the platform's last state and what has been reported to the gateway.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { OfferState } from './steam-mapping.js';

export type OfferKind = 'deposit' | 'purchase';

export async function findOffer(db: Db, kind: OfferKind, recordId: number) {
  return db.selectFrom('steam_offers').selectAll().where('offer_kind', '=', kind).where('record_id', '=', recordId).executeTakeFirst();
}
export type SteamOfferRow = NonNullable<Awaited<ReturnType<typeof findOffer>>>;

/**
 * Claims the right to send the record's offer: true when this call inserted the claim, or took
 * over an unsent claim whose attempt started more than `staleMs` ago (the caller has already made
 * sure no offer with the record's message exists on the platform). Of concurrent callers one wins.
 */
export async function claimSend(db: Db, row: { kind: OfferKind; recordId: number; botId: number; message: string }, staleMs: number): Promise<boolean> {
  const ins = await sql`
    insert into steam_offers (offer_kind, record_id, bot_id, message) values (${row.kind}, ${row.recordId}, ${row.botId}, ${row.message})
    on conflict (offer_kind, record_id) do update set bot_id = excluded.bot_id, attempt_started_at = now(), updated_at = now()
     where steam_offers.trade_offer_id is null and steam_offers.uncertain_since is null
       and steam_offers.attempt_started_at < now() - make_interval(secs => ${staleMs / 1000})`.execute(db);
  return Number(ins.numAffectedRows ?? 0) === 1;
}

/** The send's answer was ambiguous: the offer may exist, so the claim is never taken over by a new send. */
export async function markUncertain(db: Db, kind: OfferKind, recordId: number): Promise<void> {
  await db.updateTable('steam_offers').set({ uncertain_since: sql`coalesce(uncertain_since, now())`, updated_at: sql`now()` })
    .where('offer_kind', '=', kind).where('record_id', '=', recordId).where('trade_offer_id', 'is', null).execute();
}

/** Our mobile confirmation went through: the offer is out (Active) as far as we know. */
export async function markConfirmed(db: Db, tradeOfferId: string): Promise<void> {
  await db.updateTable('steam_offers').set({ state: 2, reported_state: 2, updated_at: sql`now()` })
    .where('trade_offer_id', '=', tradeOfferId).where('state', '=', 9).execute();
}

/** Nothing was sent (a definite refusal): the claim goes, so a later attempt may send. */
export async function dropClaim(db: Db, kind: OfferKind, recordId: number): Promise<void> {
  await db.deleteFrom('steam_offers').where('offer_kind', '=', kind).where('record_id', '=', recordId).where('trade_offer_id', 'is', null).execute();
}

/**
 * The record's offer, found or sent, in `state`. The record takes it as sent (active), so that is
 * what counts as reported: an offer found already accepted, in escrow, declined… (a late offer the
 * user acted on first) is still reported as that change — marking it reported left a deposit
 * active for an accepted trade, then blind to its reversal (found by the randomized run).
 */
export async function recordSent(db: Db, kind: OfferKind, recordId: number, tradeOfferId: string, state: number): Promise<void> {
  const nothingToReport = state === OfferState.Active || state === OfferState.CreatedNeedsConfirmation;
  const reported = nothingToReport ? state : OfferState.Active;
  await db.updateTable('steam_offers').set({ trade_offer_id: tradeOfferId, state, reported_state: reported, updated_at: sql`now()` })
    .where('offer_kind', '=', kind).where('record_id', '=', recordId).where('trade_offer_id', 'is', null).execute();
}

/**
 * An offer looked up on the platform (a lost or ambiguous send answer) taken as the record's, with
 * its trade id (reversals are matched by it), escrow end and acceptance time at once, not only when
 * the poll next reports that offer.
 */
export async function recordFound(db: Db, kind: OfferKind, recordId: number, found: { id: string; state: number; tradeId: string | null; escrowEnds: Date | null }): Promise<void> {
  await recordSent(db, kind, recordId, found.id, found.state);
  await recordState(db, found.id, found);
}

/** The platform's new state of one of our offers; answers the row when the offer is ours. */
export async function recordState(db: Db, tradeOfferId: string, s: { state: number; tradeId: string | null; escrowEnds: Date | null }) {
  return db.updateTable('steam_offers')
    .set({
      state: s.state, trade_id: s.tradeId, escrow_ends_at: s.escrowEnds, updated_at: sql`now()`,
      accepted_at: sql`case when ${s.state} in (3, 11) then coalesce(accepted_at, now()) else accepted_at end`,
    })
    .where('trade_offer_id', '=', tradeOfferId).returningAll().executeTakeFirst();
}

/** Offers of these bots whose state (or reversal) has not been reported to the gateway yet. */
export async function unreported(db: Db, botIds: number[]) {
  if (botIds.length === 0) return [];
  return db.selectFrom('steam_offers').selectAll().where('bot_id', 'in', botIds)
    .where((eb) => eb.or([sql<boolean>`state is distinct from reported_state`, eb.and([eb('reverted_at', 'is not', null), eb('reversal_reported', '=', false)])]))
    .where('trade_offer_id', 'is not', null).orderBy('updated_at').limit(500).execute();
}

export async function markReported(db: Db, tradeOfferId: string, state: number | null, reversal: boolean): Promise<void> {
  await db.updateTable('steam_offers').set({ reported_state: state, ...(reversal ? { reversal_reported: true } : {}) }).where('trade_offer_id', '=', tradeOfferId).execute();
}

/** Marks our accepted trades among `tradeIds` as reversed; answers how many were new. */
export async function markReversed(db: Db, tradeIds: string[]): Promise<number> {
  if (tradeIds.length === 0) return 0;
  const r = await db.updateTable('steam_offers').set({ reverted_at: sql`now()`, updated_at: sql`now()` })
    .where('trade_id', 'in', tradeIds).where('reverted_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

/** Offers a user could still accept or we could still confirm (Active, CreatedNeedsConfirmation), as last seen. */
export async function openOffers(db: Db, botId: number) {
  return db.selectFrom('steam_offers').select(['trade_offer_id', 'offer_kind', 'record_id', 'state']).where('bot_id', '=', botId)
    .where('state', 'in', [2, 9]).where('trade_offer_id', 'is not', null).execute();
}

/** Accepted deposit offers of these bots whose received assets are not recorded yet. */
export async function depositsWithoutAssets(db: Db, botIds: number[]) {
  if (botIds.length === 0) return [];
  return db.selectFrom('steam_offers as o').select(['o.record_id', 'o.bot_id', 'o.trade_offer_id', 'o.trade_id'])
    .where('o.bot_id', 'in', botIds).where('o.offer_kind', '=', 'deposit').where('o.state', '=', 3).where('o.reverted_at', 'is', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('steam_received_assets as r').select('r.deposit_id').whereRef('r.trade_offer_id', '=', 'o.trade_offer_id'))))
    .limit(100).execute();
}

export async function recordReceivedAssets(db: Db, rows: { deposit_id: number; asset_id: string; bot_id: number; trade_offer_id: string; new_asset_id: string; new_context_id: string; protection_ends_at?: Date | null }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('steam_received_assets').values(rows).onConflict((oc) => oc.columns(['deposit_id', 'asset_id']).doNothing()).execute();
}

/** The latest protection release time Steam showed on the items an offer brought in, or null (none told). */
export async function itemsProtectionEnd(db: Db, tradeOfferId: string): Promise<Date | null> {
  const r = await db.selectFrom('steam_received_assets').select((eb) => eb.fn.max('protection_ends_at').as('end'))
    .where('trade_offer_id', '=', tradeOfferId).executeTakeFirst();
  return r?.end ? new Date(r.end as Date) : null;
}

/**
 * The listing's item and the bot that most likely holds it, without a platform call: a deposited
 * item the bot it arrived on (steam_received_assets), a bot's stock its bot ('bot:<id>:<asset>'),
 * an imported one the owner its inspect link names (S<steam id>). The purchase reads that bot's
 * inventory first, so one purchase costs one inventory read, not one per bot.
 */
export async function holderHintOfListing(db: Db, listingId: string): Promise<{ botId?: number; ownerPlatformId?: string; receivedAssetId?: string }> {
  const r = await sql<{ bot_id: string | null; new_asset_id: string | null; source: string; source_ref: string | null; inspect_url: string | null }>`
    select r.bot_id::text, r.new_asset_id, l.source, l.source_ref, l.inspect_url from listings l
      left join steam_received_assets r on l.source_ref = 'deposit:' || r.deposit_id || ':' || r.asset_id
     where l.id = ${listingId}`.execute(db);
  const row = r.rows[0];
  if (!row) return {};
  const stock = row.source === 'bot' ? /^bot:(\d{1,18}):/.exec(row.source_ref ?? '') : null;
  const owner = /csgo_econ_action_preview(?:%20|\s|\+)+S(\d{17})A\d/i.exec(row.inspect_url ?? '');
  return {
    ...(row.bot_id ? { botId: Number(row.bot_id) } : stock ? { botId: Number(stock[1]) } : {}),
    ...(owner ? { ownerPlatformId: owner[1] } : {}),
    ...(row.new_asset_id ? { receivedAssetId: row.new_asset_id } : {}),
  };
}

/** Asset ids of this bot that back listings still for sale (live or reserved, not withdrawn). */
export async function listedAssetsOfBot(db: Db, botId: number): Promise<string[]> {
  const r = await sql<{ new_asset_id: string }>`
    select r.new_asset_id from steam_received_assets r
      join listings l on l.source_ref = 'deposit:' || r.deposit_id || ':' || r.asset_id
     where r.bot_id = ${botId} and l.status in ('live', 'reserved') and l.withdrawn_at is null`.execute(db);
  return r.rows.map((x) => x.new_asset_id);
}
