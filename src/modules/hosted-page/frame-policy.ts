// Content-Security-Policy of the hosted page. The page may be framed by the merchant's site:
// `frame-ancestors` lists merchants.frame_ancestors (empty = any site). Entries are CSP source
// expressions; anything else (a stray `;`, spaces, quotes) is dropped so a bad entry cannot
// inject directives.

const SOURCE_EXPRESSION =
  /^(?:'self'|'none'|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*|(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::(?:\d{1,5}|\*))?(?:\/[a-z0-9\-._~%!$&'()*+=:@/]*)?)$/i;

export function isFrameAncestorSource(s: string): boolean {
  return typeof s === 'string' && s.length <= 256 && !/[\s;,]/.test(s) && SOURCE_EXPRESSION.test(s);
}

export function frameAncestors(configured: readonly string[] | null | undefined): string {
  const list = configured ?? [];
  if (list.length === 0) return '*';
  const valid = list.filter(isFrameAncestorSource);
  // Configured, but nothing usable: refuse framing rather than allow everyone.
  return valid.length ? valid.join(' ') : "'none'";
}

/** The page's whole policy: own scripts and styles only, item images from anywhere over http(s). */
export function hostedPageCsp(configured: readonly string[] | null | undefined): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: http: data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors(configured)}`,
  ].join('; ');
}
