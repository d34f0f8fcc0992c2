// The client's address as the limits, the request log, the sessions and the audit log compare it.
import type { FastifyRequest } from 'fastify';

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is the same client as 1.2.3.4. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/** The request's client address, normalised (the audit log's `ip`). */
export function clientIp(req: FastifyRequest): string {
  return normaliseIp(req.ip);
}
