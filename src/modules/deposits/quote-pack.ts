// A get-prices quote as stored packed (deposit_quotes.packed): 24 bytes per quoted name,
// its key (the first 8 bytes of the SHA-256 of its UTF-8 name), its price and its base price (mills,
// signed 64-bit big-endian). 2 000 names are 48 KB of incompressible bytes stored uncompressed
// (STORAGE EXTERNAL), instead of ≈ 110 KB of JSON that PostgreSQL parsed and compressed on every
// call (≈ 2.2 ms of its CPU, against ≈ 0.5 ms). The commit needs only "was this name quoted, and at
// what prices": it keys the names it is sent the same way. Two real item names sharing a 64-bit
// SHA-256 prefix is out of reach (≈ 10⁻¹¹ over every name of every game).
import crypto from 'node:crypto';

export const LINE_BYTES = 24;
const KEY_BYTES = 8;

export interface QuotedPrice {
  price: number;
  original_price: number;
}

/** One stored line (quote-wire.ts keeps it with the name's fragment: hashed once per price-book load). */
export function packedLine(name: string, price: number, originalPrice: number): Buffer {
  const out = Buffer.allocUnsafe(LINE_BYTES);
  crypto.createHash('sha256').update(name, 'utf8').digest().copy(out, 0, 0, KEY_BYTES);
  out.writeBigInt64BE(BigInt(price), KEY_BYTES);
  out.writeBigInt64BE(BigInt(originalPrice), KEY_BYTES + 8);
  return out;
}

const keyOf = (name: string) => crypto.createHash('sha256').update(name, 'utf8').digest().toString('latin1', 0, KEY_BYTES);

/** The lookup of a stored quote: a name's quoted prices, or undefined when it was not quoted. */
export function unpackQuote(packed: Uint8Array): (name: string) => QuotedPrice | undefined {
  const buf = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  if (buf.length % LINE_BYTES !== 0) throw new Error(`a packed quote of ${buf.length} bytes is not whole lines`);
  const byKey = new Map<string, QuotedPrice>();
  for (let at = 0; at < buf.length; at += LINE_BYTES) {
    const key = buf.toString('latin1', at, at + KEY_BYTES);
    if (byKey.has(key)) continue; // first occurrence, as get-prices quotes a name once
    byKey.set(key, { price: Number(buf.readBigInt64BE(at + KEY_BYTES)), original_price: Number(buf.readBigInt64BE(at + KEY_BYTES + 8)) });
  }
  return (name) => byKey.get(keyOf(name));
}
