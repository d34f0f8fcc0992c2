// Types of trade-link.js (plain ES module served to the browser as is; imported by the tests).
export declare const TRADE_LINK_EXAMPLE: string;
export declare function parseTradeLink(input: string): { ok: true; partner: number; token: string } | { ok: false; error: string };
