// Readers of one environment value each (config.ts puts the settings together): a bad value is a
// ConfigError that names the variable, so the gateway refuses to start with one clear line.
import type { Game } from './domain/games.js';

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], def: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function parseRetrySchedule(raw: string): number[] {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds, got "${raw}"`);
  }
  return parts.map(Number);
}

export function baseUrl(env: Env, name: string, def: string): string {
  const raw = (env[name] || def).replace(/\/+$/, '');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  return raw;
}

export function usd(env: Env, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d{1,12}(\.\d{1,3})?$/.test(raw.trim())) throw new ConfigError(`${name} must be a USD amount with at most 3 decimals, got "${raw}"`);
  return Math.round(Number(raw.trim()) * 1000);
}

export function gameList(env: Env, name: string): Game[] {
  const all: Game[] = ['csgo', 'rust', 'dota2', 'tf2'];
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return all;
  const list = raw.split(',').map((g) => g.trim()).filter(Boolean);
  const bad = list.filter((g) => !(all as string[]).includes(g));
  if (bad.length || list.length === 0) throw new ConfigError(`${name} must be a comma-separated list of ${all.join(', ')}, got "${raw}"`);
  return [...new Set(list)] as Game[];
}

export function ratio(env: Env, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(n > 1) || n > 1000) throw new ConfigError(`${name} must be a ratio above 1 (e.g. 1.5), got "${raw}"`);
  return n;
}

export function httpUrl(env: Env, name: string, def?: string): string | undefined {
  const raw = env[name] || def;
  if (raw === undefined) return undefined;
  if (!/^https?:\/\/\S+$/i.test(raw)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

/** BOT_SECRETS_KEY, the key of the bots' sealed secrets: 64 hex characters or base64 of exactly 32 bytes. */
export function parseSecretsKey(raw: string): Buffer {
  const s = raw.trim();
  const hex = /^[0-9a-f]{64}$/i.test(s);
  const key = hex ? Buffer.from(s, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(s) ? Buffer.from(s, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError('BOT_SECRETS_KEY must be 32 bytes as 64 hex characters or base64 (e.g. `openssl rand -base64 32`)');
  }
  return key;
}

/** The shortest bearer token (ADMIN_TOKEN, METRICS_TOKEN) the gateway takes. */
export const MIN_BEARER_TOKEN_LENGTH = 32;

/**
 * A bearer token checked for use: at least MIN_BEARER_TOKEN_LENGTH visible ASCII characters (no
 * space, tab or other whitespace, nothing outside ASCII), so it is never blank, cannot be guessed
 * for being short, and is the same bytes in every client's header. `source` names the setting (or
 * file) in the error, which never echoes the value: it is a secret.
 */
export function checkBearerToken(value: string, source: string): string {
  if (value.length < MIN_BEARER_TOKEN_LENGTH) {
    throw new ConfigError(`${source} must be at least ${MIN_BEARER_TOKEN_LENGTH} characters, got ${value.length} (e.g. \`openssl rand -base64 32\`)`);
  }
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new ConfigError(`${source} must be visible ASCII characters only: no spaces, tabs, line breaks or other whitespace, nothing outside ASCII (e.g. \`openssl rand -base64 32\`)`);
  }
  return value;
}

/** An optional bearer token setting: unset or empty is none; set, it must pass checkBearerToken. */
export function bearerToken(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : checkBearerToken(raw, name);
}
