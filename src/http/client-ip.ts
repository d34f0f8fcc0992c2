// The client's address as the limits, the request log and the sessions compare it.

/** IPv4-mapped IPv6 (::ffff:1.2.3.4) is the same client as 1.2.3.4. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}
