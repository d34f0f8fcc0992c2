// Parses a Steam trade link: https://steamcommunity.com/tradeoffer/new/?partner=NNN&token=XXXXXXXX
// Pure (no DOM), so the server-side tests import it too.

export const TRADE_LINK_EXAMPLE = 'https://steamcommunity.com/tradeoffer/new/?partner=123456789&token=AbCd1234';

const HOSTS = new Set(['steamcommunity.com', 'www.steamcommunity.com']);

/**
 * @param {string} input what the user pasted
 * @returns {{ ok: true, partner: number, token: string } | { ok: false, error: string }}
 */
export function parseTradeLink(input) {
  const text = String(input ?? '').trim();
  if (!text) return { ok: false, error: 'Paste your Steam trade link.' };
  let url;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return { ok: false, error: notALink() };
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!/^https?:$/.test(url.protocol) || !HOSTS.has(url.hostname.toLowerCase()) || path !== '/tradeoffer/new') {
    return { ok: false, error: notALink() };
  }
  const partnerRaw = url.searchParams.get('partner');
  const token = url.searchParams.get('token');
  if (!partnerRaw || !/^\d{1,10}$/.test(partnerRaw) || Number(partnerRaw) < 1 || Number(partnerRaw) > 4294967295) {
    return { ok: false, error: 'This trade link has no valid partner number. Copy the whole link again from Steam.' };
  }
  if (!token) return { ok: false, error: 'This trade link has no token at the end. Copy the whole link again from Steam.' };
  if (!/^[A-Za-z0-9_-]{8}$/.test(token)) {
    return { ok: false, error: 'The token at the end of this trade link should be 8 letters or digits. Copy the whole link again from Steam.' };
  }
  return { ok: true, partner: Number(partnerRaw), token };
}

function notALink() {
  return `That is not a Steam trade link. It looks like ${TRADE_LINK_EXAMPLE} — find yours in Steam under Inventory → Trade Offers → Who can send me Trade Offers?`;
}
