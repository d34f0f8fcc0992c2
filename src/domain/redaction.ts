// The one masking rule for what a request leaves behind: the access log, the logger's `req`
// serializer, the merchants' request log (masked before it is stored) and its dashboard page all
// mask with these functions, so a credential a careless client puts in a URL is hidden the same
// way everywhere.
//
// What is a credential:
// - in a path: the token of a hosted deposit page (/deposit/<token>, /api/v1/hosted/<token>/…)
//   and of a dashboard invitation or password reset (/dashboard/invite/<token>, /dashboard/reset/<token>);
// - in a query string or a JSON body: the value of a parameter whose name, percent-decoded and in
//   any case, contains one of SENSITIVE_NAME_PARTS (`api_key`, `token`, `X-Password`, `api%5Fkey`…);
// - anywhere: a value that looks like a secret the gateway hands out (`sk_…` API keys, `whsec_…`
//   webhook secrets), whatever its parameter is called.
// A masked value is `***`; the parameter's name and every other parameter stay as they were.

/** Parts of a parameter name that make its value a credential (matched in lower case, anywhere in the name). */
export const SENSITIVE_NAME_PARTS: readonly string[] = [
  'token',
  'key',
  'secret',
  'passw',
  'pwd',
  'session',
  'csrf',
  'auth',
  'signature',
  'credential',
  'cookie',
];

export const MASK = '***';

const TOKEN_PATH = /^(\/deposit\/|\/api\/v1\/hosted\/|\/dashboard\/invite\/|\/dashboard\/reset\/)[^/?#]+/;
// The gateway's own secrets in any text: an API key (`sk_` + 43 base64url characters), a webhook
// secret (`whsec_` + 44 characters of standard base64, maybe percent-encoded in a URL).
const OWN_SECRET = /\b(sk_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])|whsec_[A-Za-z0-9+/=%_-]{40,})/g;
const maskOwn = (s: string) => s.replace(OWN_SECRET, (m: string) => `${m.slice(0, m.indexOf('_') + 1)}${MASK}`);

/** Whether a parameter named `name` (raw, possibly percent-encoded) holds a credential. */
export function isSensitiveName(name: string): boolean {
  let n = name;
  if (n.includes('%') || n.includes('+')) {
    try {
      n = decodeURIComponent(n.replace(/\+/g, ' '));
    } catch {
      // a malformed escape: match the raw text
    }
  }
  n = n.toLowerCase();
  for (const part of SENSITIVE_NAME_PARTS) if (n.includes(part)) return true;
  return false;
}

function maskQuery(query: string): string {
  const parts = query.split('&');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (isSensitiveName(p.slice(0, eq))) {
      parts[i] = `${p.slice(0, eq + 1)}${MASK}`;
      changed = true;
    } else if (/%3D/i.test(p.slice(eq + 1))) {
      // a URL carried in a parameter (the sign-in page's `next=%2Fdashboard%2Fx%3Ftoken%3D…`): masked inside
      const inner = maskNested(p.slice(eq + 1));
      if (inner !== undefined) {
        parts[i] = `${p.slice(0, eq + 1)}${inner}`;
        changed = true;
      }
    }
  }
  return changed ? parts.join('&') : query;
}

/** A percent-encoded parameter value holding `name=value` pairs, re-encoded with its credentials masked; undefined when none. */
function maskNested(value: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
  const masked = maskText(decoded);
  return masked === decoded ? undefined : encodeURIComponent(masked);
}

/**
 * A request URL (path and query) with its credentials masked: the token of a token path, the
 * values of sensitive query parameters and any of the gateway's own secrets. The URL is otherwise
 * unchanged (a non-secret parameter keeps its value).
 */
export function maskUrl(url: string): string {
  let out = url;
  if (url.startsWith('/deposit/') || url.startsWith('/api/v1/hosted/') || url.startsWith('/dashboard/invite/') || url.startsWith('/dashboard/reset/')) {
    out = out.replace(TOKEN_PATH, `$1${MASK}`);
  }
  const q = out.indexOf('?');
  if (q >= 0 && out.includes('=', q)) {
    const hash = out.indexOf('#', q);
    const query = hash < 0 ? out.slice(q + 1) : out.slice(q + 1, hash);
    out = out.slice(0, q + 1) + maskQuery(query) + (hash < 0 ? '' : out.slice(hash));
  }
  if (out.includes('sk_') || out.includes('whsec_')) out = maskOwn(out);
  return out;
}

// A JSON member `"<name>": <string, number or literal>` (the text may be cut short: no parsing).
const JSON_MEMBER = /"((?:[^"\\]|\\.){1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,{}[\]\s"]+)/g;
// A `name=value` pair of a URL or form text inside free text.
const TEXT_PAIR = /([?&;\s"'(]|^)([^\s=&?#;"'()]{1,200})=([^&#\s"'<>)]*)/g;

/**
 * Free text that may quote a request (a stored error answer, a message): the values of JSON members
 * and of `name=value` pairs with a sensitive name, and the gateway's own secrets, masked.
 */
export function maskText(text: string): string {
  let out = text;
  if (out.includes('"')) {
    out = out.replace(JSON_MEMBER, (whole, name: string, colon: string) => (isSensitiveName(name) ? `"${name}"${colon}"${MASK}"` : whole));
  }
  if (out.includes('=')) {
    out = out.replace(TEXT_PAIR, (whole, lead: string, name: string) => (isSensitiveName(name) ? `${lead}${name}=${MASK}` : whole));
  }
  if (out.includes('sk_') || out.includes('whsec_')) out = maskOwn(out);
  return out;
}
