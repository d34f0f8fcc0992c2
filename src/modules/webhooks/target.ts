// Webhook target validation (SSRF protection). Used when a merchant webhook_url or a deposit
// result_url is set (assertWebhookTarget), and again at delivery time (resolveTarget), because
// DNS can change between the two: delivery connects only to the address vetted here.
import dns from 'node:dns/promises';
import net from 'node:net';
import { domainError } from '../../http/errors.js';
import { isHttpUrl } from '../../http/validation.js';
import { blockedAddressReason } from './ip-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export class TargetRefusedError extends Error {}

/** The URL host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

type Lookup = (host: string) => Promise<ResolvedAddress[]>;

const systemLookup: Lookup = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * The addresses a delivery may connect to. With allowPrivate every resolved address is fine;
 * otherwise one blocked address refuses the whole target (a name that resolves to both a public
 * and a private address is a rebinding attempt, not a misconfiguration).
 */
export async function resolveTarget(rawUrl: string, allowPrivate: boolean, lookup: Lookup = systemLookup): Promise<ResolvedAddress[]> {
  if (!isHttpUrl(rawUrl)) throw new TargetRefusedError('not a valid http(s) URL');
  const url = new URL(rawUrl);
  const host = hostOf(url);
  let addresses: ResolvedAddress[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (err) {
      throw new TargetRefusedError(`host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (addresses.length === 0) throw new TargetRefusedError(`host ${host} does not resolve`);
  }
  if (!allowPrivate) {
    for (const a of addresses) {
      const reason = blockedAddressReason(a.address);
      if (reason) throw new TargetRefusedError(`${host} resolves to ${a.address}: ${reason} addresses are not allowed`);
    }
  }
  return addresses;
}

/** Throws a 400 validation error on `field` when the URL may not be used as a webhook target. */
export async function assertWebhookTarget(url: string, allowPrivate: boolean, field: string): Promise<void> {
  if (!isHttpUrl(url)) throw domainError(field, 'url', `${field} must be a valid http(s) URL`);
  // In sandbox mode (allowPrivate) targets are not resolved at all: test hosts need not exist.
  if (allowPrivate) return;
  try {
    await resolveTarget(url, false);
  } catch (err) {
    if (err instanceof TargetRefusedError) throw domainError(field, 'url', `${field} is not an allowed webhook target: ${err.message}`);
    throw err;
  }
}
