// Webhook target validation (SSRF protection). Used when a merchant webhook_url or a deposit
// result_url is set (assertWebhookTarget), and again at delivery time (resolveTarget), because
// DNS can change between the two: delivery connects only to the address vetted here.
import dns from 'node:dns/promises';
import net from 'node:net';
import { AppError, domainError, isAppError } from '../../domain/errors.js';
import { withDeadline } from '../../domain/deadline.js';
import { isHttpUrl } from '../../http/validation.js';
import { blockedAddressReason } from './ip-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A target that may not be used (bad URL, no address, a blocked address): a 'validation' AppError. */
const targetRefused = (message: string) => new AppError('validation', message);
export const isTargetRefused = (err: unknown): err is AppError => isAppError(err, 'validation');

/** The name did not resolve before the deadline (a refusal too: nothing was vetted). A class: delivery names the host. */
export class TargetLookupTimeoutError extends AppError {
  constructor(
    readonly host: string,
    readonly timeoutMs: number,
  ) {
    super('validation', `host ${host} did not resolve within ${timeoutMs} ms`);
  }
}

/** How long a URL being set (webhook_url, result_url) may take to resolve: min(WEBHOOK_TIMEOUT_MS, 5 s). */
export const REQUEST_LOOKUP_TIMEOUT_MS = 5_000;

/** The URL host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Name → addresses. The system resolver by default; tests pass a stub (a slow one, a rebinding one). */
export type Lookup = (host: string) => Promise<ResolvedAddress[]>;

export const systemLookup: Lookup = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface ResolveOptions {
  lookup?: Lookup;
  /** Deadline of the name lookup (none when omitted). dns.lookup cannot be cancelled: it is abandoned. */
  timeoutMs?: number;
}

function lookupWithin(lookup: Lookup, host: string, timeoutMs: number | undefined): Promise<ResolvedAddress[]> {
  const pending = lookup(host);
  return timeoutMs === undefined ? pending : withDeadline(pending, timeoutMs, () => new TargetLookupTimeoutError(host, timeoutMs));
}

/**
 * The addresses a delivery may connect to. With allowPrivate every resolved address is fine;
 * otherwise one blocked address refuses the whole target (a name that resolves to both a public
 * and a private address is a rebinding attempt, not a misconfiguration).
 */
export async function resolveTarget(rawUrl: string, allowPrivate: boolean, opts: ResolveOptions | Lookup = {}): Promise<ResolvedAddress[]> {
  const { lookup = systemLookup, timeoutMs } = typeof opts === 'function' ? { lookup: opts } : opts;
  if (!isHttpUrl(rawUrl)) throw targetRefused('not a valid http(s) URL');
  const url = new URL(rawUrl);
  const host = hostOf(url);
  let addresses: ResolvedAddress[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await lookupWithin(lookup, host, timeoutMs);
    } catch (err) {
      if (isTargetRefused(err)) throw err;
      throw targetRefused(`host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (addresses.length === 0) throw targetRefused(`host ${host} does not resolve`);
  }
  if (!allowPrivate) {
    for (const a of addresses) {
      const reason = blockedAddressReason(a.address);
      if (reason) throw targetRefused(`${host} resolves to ${a.address}: ${reason} addresses are not allowed`);
    }
  }
  return addresses;
}

/** The one refusal message for a host at request time: whether a name does not resolve, resolves to
 * a private address or resolves too slowly must not be told apart (that would map internal DNS). */
export const targetRefusedMessage = (field: string) =>
  `${field} is not an allowed webhook target: its host must resolve to public addresses`;

/**
 * Throws a 400 validation error on `field` when the URL may not be used as a webhook target. The
 * name lookup has a deadline (REQUEST_LOOKUP_TIMEOUT_MS unless given): a host that does not
 * resolve in time is refused like any other rather than holding the request.
 */
export async function assertWebhookTarget(url: string, allowPrivate: boolean, field: string, opts: ResolveOptions = {}): Promise<void> {
  if (!isHttpUrl(url)) throw domainError(field, 'url', `${field} must be a valid http(s) URL`);
  // In sandbox mode (allowPrivate) targets are not resolved at all: test hosts need not exist.
  if (allowPrivate) return;
  try {
    await resolveTarget(url, false, { lookup: opts.lookup, timeoutMs: opts.timeoutMs ?? REQUEST_LOOKUP_TIMEOUT_MS });
  } catch (err) {
    if (isTargetRefused(err)) throw domainError(field, 'url', targetRefusedMessage(field));
    throw err;
  }
}
