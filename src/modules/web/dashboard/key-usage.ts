// "Last used" of an API key for the dashboard: an onResponse hook of the merchant API records it
// at most once a minute per key and instance (an upsert whose WHERE skips fresher rows), so the
// API's hot path pays nothing and a busy key costs one write a minute.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.js';
import { normaliseIp } from '../../../http/client-ip.js';

const EVERY_MS = 60_000;
const MAX_TRACKED = 50_000;

export interface KeyUsage {
  /** The merchant API's onResponse hook. */
  onResponse(request: FastifyRequest, reply: FastifyReply, done: () => void): void;
  /** Notes a use of the key of `m` from `ip` (an answer sent without Fastify's hooks, server.ts). */
  note(m: { id: number; api_key_prefix: string }, ip: string, log: FastifyBaseLogger): void;
}

export function recordKeyUsage(db: Db): KeyUsage {
  const written = new Map<string, number>();
  async function write(m: { id: number; api_key_prefix: string }, ip: string, log: FastifyBaseLogger): Promise<void> {
    try {
      await sql`insert into api_key_usage (merchant_id, key_prefix, last_used_at, last_ip)
                values (${m.id}, ${m.api_key_prefix}, now(), ${normaliseIp(ip)})
                on conflict (merchant_id, key_prefix) do update set last_used_at = excluded.last_used_at, last_ip = excluded.last_ip
                where api_key_usage.last_used_at < now() - interval '1 minute'`.execute(db);
    } catch (err) {
      log.warn({ err }, 'API key usage not recorded');
    }
  }
  function note(m: { id: number; api_key_prefix: string }, ip: string, log: FastifyBaseLogger): void {
    const key = `${m.id}:${m.api_key_prefix}`;
    const now = Date.now();
    if ((written.get(key) ?? 0) <= now - EVERY_MS) {
      if (written.size >= MAX_TRACKED) written.clear();
      written.set(key, now);
      void write(m, ip, log);
    }
  }
  return {
    note,
    // With `done`: no promise per request; the write, once a minute per key, runs after the answer.
    onResponse(request, reply, done) {
      const m = (request as { merchant?: { id: number; api_key_prefix: string } }).merchant;
      if (m && reply.statusCode < 500) note(m, request.ip, request.log);
      done();
    },
  };
}

export async function keyLastUsed(db: Db, merchantId: number, prefix: string): Promise<{ last_used_at: Date; last_ip: string | null } | undefined> {
  const r = await sql<{ last_used_at: Date; last_ip: string | null }>`
    select last_used_at, last_ip from api_key_usage where merchant_id = ${merchantId} and key_prefix = ${prefix}`.execute(db);
  return r.rows[0];
}
