// Which addresses a webhook may be sent to (SSRF protection). Pure: classifies an IP literal.
import net from 'node:net';

type V4Range = [base: number, prefix: number, reason: string];

const ip4 = (a: number, b: number, c: number, d: number) => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;

// Anything that is not the public internet: a webhook must never reach the gateway's own network.
const V4_BLOCKED: V4Range[] = [
  [ip4(0, 0, 0, 0), 8, 'this-network (0.0.0.0/8)'],
  [ip4(10, 0, 0, 0), 8, 'private (10.0.0.0/8)'],
  [ip4(100, 64, 0, 0), 10, 'carrier-grade NAT (100.64.0.0/10)'],
  [ip4(127, 0, 0, 0), 8, 'loopback (127.0.0.0/8)'],
  [ip4(169, 254, 0, 0), 16, 'link-local / cloud metadata (169.254.0.0/16)'],
  [ip4(172, 16, 0, 0), 12, 'private (172.16.0.0/12)'],
  [ip4(192, 0, 0, 0), 24, 'IETF protocol assignments (192.0.0.0/24)'],
  [ip4(192, 0, 2, 0), 24, 'documentation (192.0.2.0/24)'],
  [ip4(192, 88, 99, 0), 24, '6to4 relay anycast (192.88.99.0/24)'],
  [ip4(192, 168, 0, 0), 16, 'private (192.168.0.0/16)'],
  [ip4(198, 18, 0, 0), 15, 'benchmarking (198.18.0.0/15)'],
  [ip4(198, 51, 100, 0), 24, 'documentation (198.51.100.0/24)'],
  [ip4(203, 0, 113, 0), 24, 'documentation (203.0.113.0/24)'],
  [ip4(224, 0, 0, 0), 4, 'multicast (224.0.0.0/4)'],
  [ip4(240, 0, 0, 0), 4, 'reserved / broadcast (240.0.0.0/4)'],
];

function parseV4(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const p = m.slice(1).map(Number);
  if (p.some((x) => x > 255)) return undefined;
  return ip4(p[0]!, p[1]!, p[2]!, p[3]!);
}

function v4Reason(n: number): string | null {
  for (const [base, prefix, reason] of V4_BLOCKED) {
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    if (((n & mask) >>> 0) === ((base & mask) >>> 0)) return reason;
  }
  return null;
}

/** 16 bytes of an IPv6 literal (zone id dropped, embedded dotted quad supported), or undefined. */
export function parseV6(input: string): Uint8Array | undefined {
  let s = input.replace(/^\[|\]$/g, '');
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (net.isIPv6(s) === false) return undefined;
  // An embedded dotted quad (::ffff:10.0.0.1) becomes its two hextets.
  const lastColon = s.lastIndexOf(':');
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    const v4 = parseV4(maybeV4);
    if (v4 === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${((v4 >>> 16) & 0xffff).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const hx = (part: string) => (part === '' ? [] : part.split(':').map((x) => parseInt(x, 16)));
  let groups: number[];
  const gap = s.indexOf('::');
  if (gap >= 0) {
    const left = hx(s.slice(0, gap));
    const right = hx(s.slice(gap + 2));
    groups = [...left, ...new Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right];
  } else {
    groups = hx(s);
  }
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return undefined;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  return out;
}

const v4From = (b: Uint8Array, at: number) => ip4(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

function v6Reason(b: Uint8Array): string | null {
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return 'unspecified (::)';
  if (zeroUpTo(15) && b[15] === 1) return 'loopback (::1)';
  // Forms that carry an IPv4 address: judged by that address.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) {
    const r = v4Reason(v4From(b, 12));
    return r ? `IPv4-mapped ${r}` : null;
  }
  // SIIT IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 2765 / 6145).
  if (zeroUpTo(8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) {
    const r = v4Reason(v4From(b, 12));
    return r ? `IPv4-translated (SIIT) ${r}` : null;
  }
  if (zeroUpTo(12)) return 'IPv4-compatible (::/96, deprecated)';
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0)) {
    const r = v4Reason(v4From(b, 12));
    return r ? `NAT64 ${r}` : null;
  }
  // Local-use NAT64 (RFC 8215): translated by a private translator, to whatever it is configured for.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b[4] === 0x00 && b[5] === 0x01) {
    return 'local-use NAT64 (64:ff9b:1::/48)';
  }
  // 6to4 (RFC 3056): the IPv4 address after 2002: is where the packets go.
  if (b[0] === 0x20 && b[1] === 0x02) {
    const r = v4Reason(v4From(b, 2));
    return r ? `6to4 ${r}` : null;
  }
  // Teredo (RFC 4380): tunnels to an IPv4 server and an obfuscated IPv4 client; never a webhook host.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return 'Teredo (2001::/32)';
  // The rest of 2001::/23: benchmarking, ORCHID and other protocol assignments.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2]! < 0x02) return 'IETF protocol assignments (2001::/23)';
  if ((b[0]! & 0xfe) === 0xfc) return 'unique local (fc00::/7)';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local (fe80::/10)';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'site-local (fec0::/10)';
  if (b[0] === 0xff) return 'multicast (ff00::/8)';
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'documentation (2001:db8::/32)';
  if (b[0] === 0x3f && b[1] === 0xff && (b[2]! & 0xf0) === 0x00) return 'documentation (3fff::/20)';
  if (b[0] === 0x01 && b.slice(1, 8).every((x) => x === 0)) return 'discard-only (100::/64)';
  return null;
}

/**
 * Why `ip` may not be a webhook target (loopback, private, link-local/metadata, CGNAT, multicast,
 * reserved, or an IPv6 form wrapping one of those: IPv4-mapped, SIIT-translated, NAT64 64:ff9b::/96
 * and 6to4 are judged by the IPv4 address they carry; local-use NAT64 64:ff9b:1::/48, Teredo and
 * the rest of 2001::/23 are refused outright), or null when it is a public address.
 * Something that is not an IP literal is refused too.
 */
export function blockedAddressReason(ip: string): string | null {
  const v4 = parseV4(ip);
  if (v4 !== undefined) return v4Reason(v4);
  const v6 = parseV6(ip);
  if (v6) return v6Reason(v6);
  return 'not an IP address';
}
