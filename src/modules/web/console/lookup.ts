// The console's one search box: what an operator pastes — a record id, a merchant_tx_id,
// a trade offer id or its Steam link, an asset id, a dashboard or console link — read as the terms
// to look for. Pure; console-repo.ts lookupRecords does the search.

export const LOOKUP_MAX = 300;

export interface LookupTerm {
  text: string;
  id?: number;
}

const INTEGER = /^\d{1,15}$/;

/** The readings of a pasted value, the value as typed first; none for an empty one. */
export function lookupTerms(input: string): LookupTerm[] {
  const typed = input.trim().slice(0, LOOKUP_MAX);
  if (!typed) return [];
  const texts = new Set<string>([typed]);
  // "#123", quoted values, "id: 123"
  const bare = typed.replace(/^["'`]+|["'`]+$/g, '').replace(/^(?:id\s*[:=]\s*|#)/i, '').trim();
  if (bare) texts.add(bare);
  // a Steam trade offer link: https://steamcommunity.com/tradeoffer/1234567890/
  const offer = /\/tradeoffer\/(\d{1,30})/.exec(typed);
  if (offer) texts.add(offer[1]);
  // a link to the record in the dashboard or the console
  const page = /\/(?:dashboard|console)\/(?:deposits|purchases)\/(\d{1,15})(?:[/?#]|$)/.exec(typed);
  if (page) texts.add(page[1]);
  return [...texts].map((text) => (INTEGER.test(text) && Number(text) > 0 ? { text, id: Number(text) } : { text }));
}
