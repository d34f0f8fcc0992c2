// `gateway doctor`'s rules: what a configuration must have before it goes live, as pure functions of
// what the command found (settings, the price sources' answers, the bots, the database's settings
// and clock, the last backup, where the bots' key is kept). Each item is ok, a warning (shown, never
// blocking), missing or wrong (both block going live), with what to do. src/cli/doctor.ts gathers
// the facts and prints the items.
import type { Config } from '../../config.js';

export type PreflightStatus = 'ok' | 'warn' | 'missing' | 'wrong';

export interface PreflightItem {
  /** short name, the first column (e.g. "admin token", "price source skinport") */
  item: string;
  status: PreflightStatus;
  /** what was found */
  detail: string;
  /** what to do (never on an ok item) */
  fix?: string;
}

/** The shortest ADMIN_TOKEN that passes (the gateway refuses shorter ones at start). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;
/** A backup older than this is not recent (a daily schedule, with room for a slow run). */
export const BACKUP_MAX_AGE_HOURS = 26;
/** The database's clock may differ from this machine's by this much beyond the round trip. */
export const CLOCK_TOLERANCE_MS = 1000;

/** One configured price source polled once by the doctor (modules/pricing/source-probe.ts). */
export interface PriceProbe {
  id: string;
  /** the setting that turns it on */
  setting: string;
  role: 'market' | 'guard';
  error?: string;
  readings: number;
  /** readings no older than PRICE_ITEM_MAX_AGE_SECONDS */
  fresh: number;
  /** ms since the epoch of the newest reading */
  newestAsOf?: number;
  games: string[];
}

export interface BotFact {
  id: number;
  name: string;
  enabled: boolean;
  status: string;
  signed_in: boolean;
  last_authenticated_at: string | null;
  session_error: string | null;
  trade_state_reason: string | null;
  trade_protection_acknowledged_at: string | null;
}

/** {"at": ISO time, "path": …, "bytes": n}: DATA_DIR/last-backup.json, written by `gateway backup create`. */
export interface LastBackup {
  at: string;
  path: string;
  bytes: number;
}

export interface PreflightFacts {
  now: number;
  /** the raw settings: ADMIN_TOKEN, PUBLIC_URL, TRUST_PROXY are judged as written */
  env: Record<string, string | undefined>;
  /** the settings, unless they do not load (settingsError) */
  config?: Config;
  settingsError?: string;
  /** steamPricingProblem of the settings as if PLATFORM=steam */
  pricingProblem?: string;
  /** PRICE_BOOK holds the very files of the shipped sandbox book (a copy) */
  priceBookIsSandboxCopy?: boolean;
  prices?: PriceProbe[];
  /** the database could not be opened: why */
  databaseError?: string;
  bots?: BotFact[];
  /** files under DATA_DIR or the backup directory holding BOT_SECRETS_KEY's text */
  secretsKeyFoundIn?: string[];
  /** undefined: none recorded; with the size of its file now (null: the file is gone) */
  backup?: { last?: LastBackup; fileBytes?: number | null; unreadable?: string };
  /** SHOW fsync, synchronous_commit, full_page_writes */
  durability?: Record<string, string>;
  /** the database's clock_timestamp() minus this machine's clock at the middle of the round trip */
  clock?: { offsetMs: number; rttMs: number };
  /** timedatectl's NTPSynchronized, when timedatectl answered */
  ntpSynchronized?: boolean;
}

const ok = (item: string, detail: string): PreflightItem => ({ item, status: 'ok', detail });
const bad = (status: Exclude<PreflightStatus, 'ok'>, item: string, detail: string, fix: string): PreflightItem => ({ item, status, detail, fix });

export function blocks(i: PreflightItem): boolean {
  return i.status === 'missing' || i.status === 'wrong';
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

export function settingsItem(f: PreflightFacts): PreflightItem {
  return f.settingsError ? bad('wrong', 'settings', f.settingsError, 'fix the setting named; the gateway refuses to start with it') : ok('settings', 'every setting reads');
}

export function platformItem(platform: string | undefined): PreflightItem {
  if (platform === 'steam') return ok('platform', 'PLATFORM=steam');
  return bad('wrong', 'platform', `PLATFORM=${platform ?? 'sandbox'}: the simulator, no real trades`, 'set PLATFORM=steam (with BOT_SECRETS_KEY and a price source)');
}

export function adminTokenItem(token: string | undefined): PreflightItem {
  const fix = `set ADMIN_TOKEN to at least ${MIN_ADMIN_TOKEN_LENGTH} random characters (openssl rand -base64 32)`;
  if (!token) return bad('missing', 'admin token', 'ADMIN_TOKEN unset: the operator API refuses every call', fix);
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) return bad('wrong', 'admin token', `ADMIN_TOKEN is ${token.length} characters: too short to withstand guessing`, fix);
  return ok('admin token', `ADMIN_TOKEN set (${token.length} characters)`);
}

export function publicUrlItem(raw: string | undefined): PreflightItem {
  const fix = 'set PUBLIC_URL to the https:// address merchants and their users reach the gateway at';
  if (!raw) return bad('missing', 'public URL', 'PUBLIC_URL unset: links (hosted page, e-mails) would name the local address', fix);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return bad('wrong', 'public URL', `PUBLIC_URL is not a URL: ${raw}`, fix);
  }
  if (u.protocol !== 'https:') return bad('wrong', 'public URL', `PUBLIC_URL ${raw} is not https: sign-in cookies and hosted-page tokens would cross the network in clear`, fix);
  return ok('public URL', raw);
}

/**
 * The gateway serves plain HTTP: an https PUBLIC_URL means a TLS proxy in front of it, whose
 * address every request would come from unless TRUST_PROXY names it.
 */
export function trustProxyItem(raw: string | undefined, publicUrl: string | undefined): PreflightItem {
  const set = raw !== undefined && raw !== '' && !/^(0|false|no|off)$/i.test(raw);
  const https = Boolean(publicUrl && /^https:/i.test(publicUrl));
  const fix = "set TRUST_PROXY to your TLS proxy's address or network (e.g. 127.0.0.1 or 10.0.0.0/8)";
  if (!set) {
    return https
      ? bad('missing', 'trust proxy', 'TRUST_PROXY unset behind the https proxy: every request looks like the proxy\'s (IP whitelists and per-address limits see one client)', fix)
      : bad('warn', 'trust proxy', 'TRUST_PROXY unset (right only when clients reach the gateway directly)', fix);
  }
  if (/^(1|true|yes|on)$/i.test(raw!)) {
    return bad('warn', 'trust proxy', 'TRUST_PROXY=true trusts X-Forwarded-For from anyone who reaches the port (safe only when the proxy alone can)', fix);
  }
  return ok('trust proxy', `TRUST_PROXY=${raw}`);
}

function priceSourceItem(p: PriceProbe, now: number, maxAgeSeconds: number): PreflightItem {
  const name = `price source ${p.id}`;
  const what = p.role === 'guard' ? 'the Steam guard' : 'this source';
  // A guard is a check, not a price: it failing is shown, never a block.
  const failure = p.role === 'guard' ? 'warn' : 'wrong';
  if (p.error) return bad(failure, name, `${p.setting}: no answer: ${p.error}`, `check ${p.setting} (URL, key, network) and that ${what} answers from this machine`);
  if (p.readings === 0) return bad(failure, name, `${p.setting}: answered with no prices`, `check that ${p.setting} lists USD prices of the games you trade`);
  const newest = p.newestAsOf !== undefined ? `newest ${ago(now - p.newestAsOf)} old` : '';
  if (p.fresh === 0) {
    return bad(failure, name, `${p.setting}: ${p.readings} prices, none fresh (${newest}; PRICE_ITEM_MAX_AGE_SECONDS=${maxAgeSeconds})`, `make ${what} publish current prices, or raise PRICE_ITEM_MAX_AGE_SECONDS if that age is right`);
  }
  const games = p.games.length ? ` (${p.games.join(', ')})` : '';
  return ok(name, `${p.setting}: ${p.fresh} fresh prices of ${p.readings}${games}, ${newest}`);
}

export function priceItems(f: PreflightFacts): PreflightItem[] {
  const c = f.config;
  if (!c) return [];
  const out: PreflightItem[] = [];
  const fix = 'set PRICE_BOOK (your own book), PRICE_SKINPORT and/or PRICE_CSFLOAT_API_KEY; PRICE_MIN_SOURCES 2 once two are set (docs/going-live.md)';
  if (f.pricingProblem) out.push(bad(/needs a price source/.test(f.pricingProblem) ? 'missing' : 'wrong', 'price sources', f.pricingProblem.replace(/:? ?set one or more of[\s\S]*$/, '').replace(/;$/, ''), fix));
  else if (f.priceBookIsSandboxCopy) out.push(bad('wrong', 'price sources', `PRICE_BOOK ${c.priceBookSource} is a copy of the sandbox book (made-up prices)`, fix));
  const market = (f.prices ?? []).filter((p) => p.role === 'market');
  if (!f.pricingProblem && !f.priceBookIsSandboxCopy) {
    const n = market.length;
    if (n === 1 && c.pricing.minSources === 1) {
      out.push(bad('warn', 'price sources', `one source (${market[0]!.setting}): whatever it answers is credited as is`, 'add a second source and set PRICE_MIN_SOURCES=2 so that they check each other'));
    } else out.push(ok('price sources', `${n} source${n === 1 ? '' : 's'}, PRICE_MIN_SOURCES=${c.pricing.minSources}`));
  }
  for (const p of f.prices ?? []) out.push(priceSourceItem(p, f.now, c.pricing.itemMaxAgeSeconds));
  if (!c.pricing.steamMarketUrl) {
    out.push(bad('warn', 'steam guard', 'PRICE_STEAM_MARKET_URL unset: no check of the references against the Steam Market', 'optional: set PRICE_STEAM_MARKET_URL=https://steamcommunity.com/market/priceoverview/'));
  }
  return out;
}

export function botItems(bots: BotFact[] | undefined): PreflightItem[] {
  if (bots === undefined) return [];
  const live = bots.filter((b) => b.status !== 'removed');
  if (live.length === 0) return [bad('missing', 'bots', 'no bot added', 'add one: gateway bot add --mafile FILE --password-file FILE, then gateway bot check ID')];
  const out: PreflightItem[] = [];
  if (!live.some((b) => b.enabled)) out.push(bad('missing', 'bots', 'every bot is disabled', 'enable one: gateway bot enable ID'));
  for (const b of live) {
    const name = `bot ${b.name} (#${b.id})`;
    const check = `gateway bot check ${b.id}`;
    if (!b.enabled) {
      out.push(bad('warn', name, 'disabled: takes no offers', `gateway bot enable ${b.id} once it may trade`));
      continue;
    }
    if (b.status === 'cannot_trade') {
      out.push(bad('wrong', name, `cannot trade${b.trade_state_reason ? `: ${b.trade_state_reason}` : ''}`, `fix it on the account, run ${check}, then gateway bot enable ${b.id}`));
      continue;
    }
    if (!b.trade_protection_acknowledged_at) {
      out.push(bad('wrong', name, 'trade protection not acknowledged: the platform holds its trades back', `${check} (signs in and acknowledges it once per account)`));
      continue;
    }
    if (b.session_error || !b.last_authenticated_at) {
      out.push(bad('wrong', name, b.session_error ? `not signed in: ${b.session_error}` : 'never signed in', `${check}; fix what it lists under problems`));
      continue;
    }
    if (!b.signed_in) {
      out.push(bad('warn', name, `no live session now (last signed-in call ${b.last_authenticated_at}); a running gateway keeps one`, `start the gateway, or ${check}`));
      continue;
    }
    out.push(ok(name, 'signed in, trade protection acknowledged'));
  }
  return out;
}

export function secretsKeyItem(f: PreflightFacts): PreflightItem | undefined {
  const c = f.config;
  if (!c) return undefined;
  if (!c.botSecretsKey) return bad('missing', 'bot secrets key', 'BOT_SECRETS_KEY unset (required with PLATFORM=steam)', 'generate it once (openssl rand -base64 32) and keep it in your secret store, not beside the database');
  const found = f.secretsKeyFoundIn ?? [];
  if (found.length > 0) {
    return bad('wrong', 'bot secrets key', `BOT_SECRETS_KEY is written in ${found.join(', ')}: beside the database or its backups, whoever holds a copy reads the bots' secrets`, 'keep the key only in your secret store or an env file outside DATA_DIR and the backup directory, and delete these copies');
  }
  return ok('bot secrets key', 'set; not found under DATA_DIR or the backup directory');
}

export function smtpItem(c: Config | undefined): PreflightItem | undefined {
  if (!c) return undefined;
  if (!c.smtp) return bad('warn', 'e-mail', 'SMTP_URL unset: password resets and invitations are links only the CLI prints', 'set SMTP_URL and SMTP_FROM');
  return ok('e-mail', `SMTP_URL set, sender ${c.smtp.from}`);
}

export function backupItem(f: PreflightFacts): PreflightItem | undefined {
  const c = f.config;
  if (!c) return undefined;
  if (c.databaseUrl) {
    return bad('warn', 'backups', 'DATABASE_URL: the doctor cannot see this database\'s backups', 'check your own pg_basebackup/WAL archiving (and a restore of it)');
  }
  const b = f.backup;
  const fix = 'run gateway backup create, schedule it daily, and copy the files off this machine';
  if (b?.unreadable) return bad('wrong', 'backups', `DATA_DIR/last-backup.json unreadable: ${b.unreadable}`, fix);
  if (!b?.last) return bad('missing', 'backups', 'no backup recorded (DATA_DIR/last-backup.json)', fix);
  const at = Date.parse(b.last.at);
  if (!Number.isFinite(at)) return bad('wrong', 'backups', `last-backup.json names no time: ${JSON.stringify(b.last.at)}`, fix);
  if (b.fileBytes === null) return bad('wrong', 'backups', `the last backup (${b.last.at}) is gone: ${b.last.path}`, fix);
  if (b.fileBytes !== undefined && b.fileBytes !== b.last.bytes) {
    return bad('wrong', 'backups', `the last backup ${b.last.path} is ${b.fileBytes} bytes, recorded ${b.last.bytes}: cut short or changed`, fix);
  }
  const age = f.now - at;
  if (age > BACKUP_MAX_AGE_HOURS * 3_600_000) return bad('wrong', 'backups', `last backup ${ago(age)} ago (${b.last.path})`, fix);
  return ok('backups', `last backup ${ago(age)} ago: ${b.last.path} (${b.last.bytes} bytes)`);
}

const DURABLE: Record<string, (v: string) => boolean> = {
  fsync: (v) => v === 'on',
  synchronous_commit: (v) => v !== 'off',
  full_page_writes: (v) => v === 'on',
};

export function durabilityItem(d: Record<string, string> | undefined): PreflightItem | undefined {
  if (!d) return undefined;
  const shown = Object.keys(DURABLE).map((k) => `${k}=${d[k] ?? '?'}`).join(', ');
  const off = Object.keys(DURABLE).filter((k) => d[k] === undefined || !DURABLE[k]!(d[k]!));
  if (off.length) {
    return bad('wrong', 'database durability', `${shown}: a crash can lose acknowledged commits (money moved, trades recorded)`, `set ${off.map((k) => `${k}=on`).join(', ')} on the gateway's PostgreSQL`);
  }
  return ok('database durability', shown);
}

export function clockItem(clock: PreflightFacts['clock'], ntp: boolean | undefined): PreflightItem | undefined {
  if (!clock) return undefined;
  const off = Math.abs(clock.offsetMs);
  const slack = CLOCK_TOLERANCE_MS + clock.rttMs / 2;
  const ntpText = ntp === undefined ? 'NTP state unknown (no timedatectl)' : ntp ? 'NTP synchronised' : 'NTP not synchronised';
  const fix = 'run NTP (chrony or systemd-timesyncd) on this machine and on the database\'s';
  if (off > slack) {
    return bad('wrong', 'clock', `the database's clock is ${(off / 1000).toFixed(1)} s ${clock.offsetMs > 0 ? 'ahead of' : 'behind'} this machine's (expiries and holds would be judged by both); ${ntpText}`, fix);
  }
  if (ntp === false) return bad('warn', 'clock', `database and local clocks agree within ${Math.round(off)} ms; ${ntpText} (timedatectl)`, fix);
  return ok('clock', `database and local clocks agree within ${Math.round(off)} ms; ${ntpText}`);
}

/** Every item, in the order printed. Items that need what could not be read are left out (the reason is an item of its own). */
export function preflight(f: PreflightFacts): PreflightItem[] {
  const c = f.config;
  const items: PreflightItem[] = [settingsItem(f), platformItem(c?.platform ?? f.env.PLATFORM), adminTokenItem(f.env.ADMIN_TOKEN), publicUrlItem(f.env.PUBLIC_URL), trustProxyItem(f.env.TRUST_PROXY, f.env.PUBLIC_URL)];
  items.push(...priceItems(f));
  if (c) {
    if (f.databaseError) items.push(bad('wrong', 'database', f.databaseError.replace(/ — .*$/, ''), 'set DATA_DIR or DATABASE_URL to the gateway\'s database (npm start makes it under DATA_DIR)'));
    else items.push(ok('database', c.databaseUrl ? 'DATABASE_URL' : `embedded under ${c.dataDir}`));
  }
  items.push(...botItems(f.bots));
  for (const i of [secretsKeyItem(f), smtpItem(c), backupItem(f), durabilityItem(f.durability), clockItem(f.clock, f.ntpSynchronized)]) if (i) items.push(i);
  return items;
}

export function exitCodeOf(items: PreflightItem[]): 0 | 1 {
  return items.some(blocks) ? 1 : 0;
}

/** One aligned line per item (status, item, what was found, → what to do), then the verdict. */
export function formatPreflight(items: PreflightItem[]): string {
  const w = Math.max(...items.map((i) => i.item.length));
  const lines = items.map((i) => `${i.status.padEnd(7)} ${i.item.padEnd(w)}  ${i.detail}${i.fix ? ` → ${i.fix}` : ''}`);
  const blocking = items.filter(blocks).length;
  const warnings = items.filter((i) => i.status === 'warn').length;
  lines.push(blocking ? `${blocking} item${blocking === 1 ? '' : 's'} block${blocking === 1 ? 's' : ''} going live` : `nothing blocks going live${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`);
  return lines.join('\n');
}
