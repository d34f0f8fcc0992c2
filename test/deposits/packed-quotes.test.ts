// The packed form of a get-prices quote (quote-pack.ts, 019_packed_quotes.sql): what a line holds
// and what the table accepts (the upgrade that removed the older forms: test/trust/unreleased-compat.test.ts).
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { LINE_BYTES, packedLine, unpackQuote } from '../../src/modules/deposits/quote-pack.js';
import { freshDatabase } from '../helpers.js';

const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const p of pools) await p.end();
});

describe('packed quote lines', () => {
  it('a line is the name\'s SHA-256 prefix, then price and base price as signed 64-bit big-endian', () => {
    const line = packedLine('★ Karambit | Doppler (Factory New)', 999_999_999_999, 1_000_000_000_000);
    expect(line.length).toBe(LINE_BYTES);
    expect(line.subarray(0, 8)).toEqual(crypto.createHash('sha256').update('★ Karambit | Doppler (Factory New)').digest().subarray(0, 8));
    expect(line.readBigInt64BE(8)).toBe(999_999_999_999n);
    expect(line.readBigInt64BE(16)).toBe(1_000_000_000_000n);
  });

  it('the lookup answers each quoted name\'s prices (the first line of a name), and nothing for any other name', () => {
    const names = ['AK-47 | Redline (Field-Tested)', 'StatTrak™ M4A1-S | "Quoted" \\ back', 'ünïcødé 𝔘', 'a'];
    const packed = Buffer.concat([...names.map((n, i) => packedLine(n, i * 10 + 1, i * 10 + 2)), packedLine('a', 5, 5)]);
    const lookup = unpackQuote(packed);
    names.forEach((n, i) => expect(lookup(n)).toEqual({ price: i * 10 + 1, original_price: i * 10 + 2 }));
    expect(lookup('A')).toBeUndefined();
    expect(lookup('AK-47 | Redline (Field-Tested) ')).toBeUndefined();
    expect(lookup('')).toBeUndefined();
    // From a slice of a bigger buffer (what the driver may hand back).
    const framed = Buffer.concat([Buffer.from('xyz'), packed]).subarray(3);
    expect(unpackQuote(framed)('a')).toEqual({ price: 31, original_price: 32 });
    expect(() => unpackQuote(packed.subarray(1))).toThrow(/not whole lines/);
  });
});

describe('019_packed_quotes.sql', () => {
  it('the table takes the packed form only (the older forms went in 071), stored uncompressed', async () => {
    const url = await freshDatabase();
    const p = new pg.Pool({ connectionString: url, max: 2 });
    p.on('error', () => {});
    pools.push(p);
    const m = await p.query(`insert into merchants (name, api_key_hash, api_key_prefix, webhook_secret) values ('q', 'h', 'sk_', 's') returning id`);
    const d2 = (await p.query(`insert into deposits (merchant_id, flow, status, game) values ($1, 'hash_name', 'new', 'csgo') returning id`, [m.rows[0].id])).rows[0].id;
    const line = packedLine('AK', 900, 1000);
    const refused = async (sql: string, values: unknown[], why: RegExp) => expect(p.query(sql, values)).rejects.toThrow(why);
    await refused(`insert into deposit_quotes (deposit_id) values ($1)`, [d2], /null value in column "packed"/);
    await refused(`insert into deposit_quotes (deposit_id, packed) values ($1, $2)`, [d2, line.subarray(1)], /deposit_quotes_packed_lines/);
    await refused(`insert into deposit_quotes (deposit_id, packed) values ($1, '')`, [d2], /deposit_quotes_packed_lines/);
    await p.query(`insert into deposit_quotes (deposit_id, packed) values ($1, $2)`, [d2, line]);
    expect((await p.query(`select packed from deposit_quotes where deposit_id = $1`, [d2])).rows[0].packed).toEqual(line);
    const storage = await p.query(`select attstorage from pg_attribute where attrelid = 'deposit_quotes'::regclass and attname = 'packed'`);
    expect(storage.rows[0].attstorage).toBe('e');
  });
});
