// The credential of an `Authorization: Bearer <credential>` header, exactly as sent.

const SCHEME = /^bearer /i;

/**
 * What follows `Bearer ` (the scheme in any case, RFC 9110 11.1, and one space) to the end of the
 * header, untouched: a second space, a tab, a no-break space or any other byte is part of the
 * credential and makes it a different one. Undefined when there is no header or it is not Bearer.
 * (HTTP itself drops the spaces and tabs at the very ends of a header line before the gateway sees
 * it, RFC 9110 5.5: they were never part of the field's value.)
 */
export function bearerCredential(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || !SCHEME.test(header)) return undefined;
  return header.slice(7);
}
