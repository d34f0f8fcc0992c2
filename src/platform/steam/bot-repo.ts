// SQL of the operator-managed bots: records, leases (one driving instance per bot), trade state,
// and the driver's persisted state (refresh token, poll data, reversal cursor). Used by the steam
// adapter and by the bots feature (src/modules/bots), which sits above the platform.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

export const BOT_COLUMNS = [
  'id', 'name', 'platform_id', 'enabled', 'account_name', 'games', 'inventory_capacity', 'trade_state', 'trade_state_reason',
  'lease_owner', 'lease_expires_at', 'trade_protection_acknowledged_at', 'last_checked_at', 'removed_at', 'created_at', 'updated_at',
  'last_authenticated_at', 'session_error', 'sign_in_retry_at',
] as const;

export async function insertBot(db: Db, row: { name: string; platform_id: string; account_name: string; secrets: Buffer; games: string[]; inventory_capacity: number; proxy?: Buffer | null }) {
  return db.insertInto('bots').values(row).returning(BOT_COLUMNS).returning(proxySet).executeTakeFirstOrThrow();
}

/** Whether the bot has its own outbound proxy (the operator sees that, never the sealed URL). */
const proxySet = sql<boolean>`proxy is not null`.as('proxy_set');

/** Which rows: the operator-managed bots only (default), or every row, the sandbox's seeded ones too. */
export type BotScope = 'managed' | 'all';
const managed = (scope: BotScope) => (scope === 'managed' ? sql<boolean>`account_name is not null` : sql<boolean>`true`);

/**
 * signed_in: the driver's session is live (a signed-in call went through with it, session_live,
 * written by the driver on every change) and it answered within `liveSeconds` (its instance is alive).
 */
const signedIn = (liveSeconds: number) =>
  sql<boolean>`(session_live and coalesce(last_authenticated_at > now() - make_interval(secs => ${liveSeconds}), false))`.as('signed_in');
/** How long after its last authenticated call a bot still counts as signed in (a few poll rounds). */
export const LIVE_SESSION_SECONDS = 180;

/** Operator-managed bots (the sandbox's seeded ones have no account), removed ones last. */
export async function listBots(db: Db, limit: number, offset: number, scope: BotScope = 'managed', liveSeconds = LIVE_SESSION_SECONDS) {
  return db.selectFrom('bots').select(BOT_COLUMNS).select(signedIn(liveSeconds)).select(proxySet)
    .where(managed(scope)).orderBy(sql`removed_at is not null`).orderBy('id').limit(limit).offset(offset).execute();
}

export async function findBot(db: Db, id: number, scope: BotScope = 'managed', liveSeconds = LIVE_SESSION_SECONDS) {
  return db.selectFrom('bots').select(BOT_COLUMNS).select(signedIn(liveSeconds)).select(proxySet)
    .where('id', '=', id).where(managed(scope)).executeTakeFirst();
}

export async function updateBot(db: Db, id: number, patch: { enabled?: boolean; games?: string[]; inventory_capacity?: number; name?: string; proxy?: Buffer | null }, scope: BotScope = 'managed') {
  return db.updateTable('bots').set({ ...patch, updated_at: sql`now()` }).where('id', '=', id).where(managed(scope))
    .where('removed_at', 'is', null).returning('id').executeTakeFirst();
}

/**
 * A steam-mode database keeps no sandbox bots (seeded by 002 without an account): each one no
 * record names is deleted (a real bot may then take its platform id); answers how many went.
 */
export async function dropSandboxBots(db: Db): Promise<number> {
  const rows = await db.selectFrom('bots').select('id').where('account_name', 'is', null).execute();
  let dropped = 0;
  for (const r of rows) {
    try {
      dropped += Number((await db.deleteFrom('bots').where('id', '=', r.id).where('account_name', 'is', null).executeTakeFirst()).numDeletedRows ?? 0);
    } catch (err) {
      if ((err as { code?: string }).code !== '23503') throw err; // named by a record: kept
    }
  }
  return dropped;
}

/** Removed: out of rotation for good, secrets and tokens wiped; the row stays for the records that name it. */
export async function removeBot(db: Db, id: number) {
  return db.updateTable('bots')
    .set({ enabled: false, secrets: null, refresh_token: null, web_session: null, proxy: null, session_live: false, poll_data: sql`'{}'::jsonb`, lease_owner: null, lease_expires_at: null, removed_at: sql`coalesce(removed_at, now())`, updated_at: sql`now()` })
    .where('id', '=', id).where('account_name', 'is not', null).returning('id').executeTakeFirst();
}

/** Replaces a live bot's sealed secrets (a new stored web session: the driver's own last one gives way to it). */
export async function replaceSecrets(db: Db, id: number, secrets: Buffer) {
  return db.updateTable('bots').set({ secrets, web_session: null, updated_at: sql`now()` }).where('id', '=', id).where('account_name', 'is not', null)
    .where('removed_at', 'is', null).returning('id').executeTakeFirst();
}

/** Everything the driver needs to sign a bot in (secrets still sealed). */
export async function botForDriver(db: Db, id: number) {
  return db.selectFrom('bots')
    .select(['id', 'name', 'platform_id', 'account_name', 'secrets', 'refresh_token', 'web_session', 'proxy', 'games', 'poll_data', 'trade_protection_acknowledged_at', 'history_cursor', 'trade_state', 'enabled'])
    .where('id', '=', id).where('account_name', 'is not', null).where('removed_at', 'is', null).executeTakeFirst();
}
export type DriverBotRow = NonNullable<Awaited<ReturnType<typeof botForDriver>>>;

/**
 * Bots an instance drives: not removed, able to trade, and enabled — or disabled but still with
 * open offers to settle (draining: polled, never given new offers): offers out or awaiting
 * confirmation or escrow, an ambiguous send of the last day, changes not yet reported, and
 * accepted deposits whose reversal window (8 days) the trade history must still cover.
 */
const LEASABLE = sql<boolean>`account_name is not null and removed_at is null and trade_state = 'ok'
  and (enabled or exists (select 1 from steam_offers o where o.bot_id = bots.id and (
        o.state in (2, 9, 11)
     or (o.trade_offer_id is null and o.uncertain_since > now() - interval '1 day')
     or o.state is distinct from o.reported_state
     or (o.reverted_at is not null and not o.reversal_reported)
     or (o.state = 3 and o.offer_kind = 'deposit' and o.updated_at > now() - interval '8 days'))))`;

/**
 * Takes (or renews) leases on leasable bots that are free, expired or already ours — ours first —
 * up to `limit`; answers the ids renewed. Two instances never hold one bot: the row lock plus the
 * expiry condition decide. The lock is FOR NO KEY UPDATE: the FOR KEY SHARE every insert of an
 * offer or deposit naming the bot takes (its foreign key) does not conflict with it, so a busy
 * bot is never skipped; a row skipped for another lock keeps its running lease (see heldLeases).
 */
export async function acquireLeases(db: Db, owner: string, seconds: number, limit = 1000): Promise<number[]> {
  const r = await sql<{ id: number }>`
    update bots set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${seconds})
     where id in (select id from bots
                   where ${LEASABLE}
                     and (lease_owner = ${owner} or lease_expires_at is null or lease_expires_at < now())
                   order by (lease_owner is not distinct from ${owner}) desc, id limit ${limit} for no key update skip locked)
    returning id`.execute(db);
  return r.rows.map((x) => Number(x.id));
}

/** The bots whose lease `owner` holds now (renewed or not this round), by id, and whether each is still leasable. */
export async function heldLeases(db: Db, owner: string): Promise<{ id: number; leasable: boolean }[]> {
  const r = await sql<{ id: number; leasable: boolean }>`select id, ${LEASABLE} as leasable from bots where lease_owner = ${owner} and lease_expires_at > now() order by id`.execute(db);
  return r.rows.map((x) => ({ id: Number(x.id), leasable: x.leasable }));
}

/**
 * This instance's fair share of the leasable bots: the instance says it is alive, then counts the
 * instances seen within the lease and the bots, and answers ceil(bots / instances).
 */
export async function fairShare(db: Db, owner: string, seconds: number): Promise<number> {
  await sql`insert into steam_instances (id, seen_at) values (${owner}, now()) on conflict (id) do update set seen_at = now()`.execute(db);
  await sql`delete from steam_instances where seen_at < now() - make_interval(secs => ${seconds * 10})`.execute(db);
  const r = await sql<{ instances: string; bots: string }>`
    select (select count(*) from steam_instances where seen_at >= now() - make_interval(secs => ${seconds})) as instances,
           (select count(*) from bots where ${LEASABLE}) as bots`.execute(db);
  const instances = Math.max(1, Number(r.rows[0]!.instances));
  return Math.ceil(Number(r.rows[0]!.bots) / instances);
}

/** An instance that stops: it no longer counts among the live ones. */
export async function forgetInstance(db: Db, owner: string): Promise<void> {
  await sql`delete from steam_instances where id = ${owner}`.execute(db);
}

/** Leases handed back: the driver stops, so the bot has no live session until another one proves its own. */
export async function releaseLeases(db: Db, owner: string, ids?: number[]): Promise<void> {
  let q = db.updateTable('bots').set({ lease_owner: null, lease_expires_at: null, session_live: false }).where('lease_owner', '=', owner);
  if (ids) q = ids.length ? q.where('id', 'in', ids) : q.where(sql<boolean>`false`);
  await q.execute();
}

/** Whether `owner` still holds a live lease on the bot (checked before each platform write). */
export async function holdsLease(db: Db, owner: string, id: number): Promise<boolean> {
  const r = await db.selectFrom('bots').select('id').where('id', '=', id).where('lease_owner', '=', owner)
    .where(sql<boolean>`lease_expires_at > now()`).executeTakeFirst();
  return Boolean(r);
}

export async function setTradeState(db: Db, id: number, state: 'ok' | 'cannot_trade', reason: string | null): Promise<void> {
  await db.updateTable('bots').set({ trade_state: state, trade_state_reason: reason, updated_at: sql`now()` }).where('id', '=', id).execute();
}

/**
 * The driver's session as it stands: live or not, the last authenticated call, why it has none and
 * when a sign-in may be tried next. Written only by the instance holding the lease (a driver that
 * lost its lease must not overwrite the new holder's state).
 */
export async function saveSession(db: Db, id: number, owner: string, patch: { session_live: boolean; last_authenticated_at?: Date; session_error: string | null; sign_in_retry_at: Date | null }): Promise<void> {
  await db.updateTable('bots').set(patch).where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/** The driver's last working web session (sealed), kept for the next driver of the bot. */
export async function saveWebSession(db: Db, id: number, sealed: Buffer | null): Promise<void> {
  await db.updateTable('bots').set({ web_session: sealed }).where('id', '=', id).execute();
}

export async function saveDriverState(db: Db, id: number, patch: {
  refresh_token?: Buffer | null; poll_data?: Record<string, unknown>; platform_id?: string;
  trade_protection_acknowledged_at?: Date; history_cursor?: string; last_checked_at?: Date; history_read_at?: Date;
}): Promise<void> {
  const set: Record<string, unknown> = { ...patch };
  if (patch.poll_data) set.poll_data = sql`${JSON.stringify(patch.poll_data)}::jsonb`;
  await db.updateTable('bots').set(set).where('id', '=', id).execute();
}
