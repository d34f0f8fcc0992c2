// The change feed without a global lock (migration 008): writers never wait on a shared row, and
// cursors stay gap-free under concurrent writers, one of which commits late.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestGateway, type TestGateway } from '../helpers.js';
import { insertListingsIgnore } from '../../src/modules/catalogue/catalogue-repo.js';

let gw: TestGateway;
let m: { id: number; api_key: string };
const USER = { partner: 55667799, token: 'feednolk' };

beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.createMerchant({ name: 'Feed' });
  await gw.topUp(m.id, 1_000_000);
});
afterAll(async () => gw?.stop());

const events = async (q: string) => (await gw.merchant(m.api_key, 'GET', `/purchase/events?${q}`)).body.data;
const within = <T,>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);

let n = 0;
const row = (prefix: string) => {
  const i = n++;
  return { id: `${prefix}${i.toString(16).padStart(6, '0')}`, game: 'csgo' as const, name: `Feed item ${i}`, base_price: 1000, image_url: '/f.svg', source: 'import' as const };
};

/** Follows the feed from `cursor` until it is drained; answers the ids seen and the new cursor. */
async function drain(cursor: string, seen: Set<string>): Promise<string> {
  for (let i = 0; i < 1000; i++) {
    const d = await events(`since=${encodeURIComponent(cursor)}&limit=7`);
    for (const e of d.events) seen.add(e.id);
    expect(d.next >= cursor).toBe(true);
    cursor = d.next;
    if (!d.more) return cursor;
  }
  throw new Error('feed never drained');
}

describe('change feed without a global lock', () => {
  it('catalogue writers and purchases do not wait on the feed clock row', async () => {
    const holder = new pg.Client({ connectionString: gw.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from catalogue_clock where id = 1 for update');
      await within(insertListingsIgnore(gw.ctx.db, [row('a0')]), 5000);
      const l = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items[0];
      const p = await within(gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id }), 5000);
      expect(p.body.data.status).toBe('pending');
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
  });

  it('a writer that commits late is not skipped by cursors handed out meanwhile; concurrent writers commit without waiting for it', async () => {
    const start = (await events('')).next;
    const late = new pg.Client({ connectionString: gw.databaseUrl });
    await late.connect();
    const lateRow = row('b0');
    await late.query('begin');
    await late.query(`insert into listings (id, game, name, base_price, image_url, source) values ($1, 'csgo', 'Late', 1000, '/l.svg', 'import')`, [lateRow.id]);

    // 6 writers × 10 commits and 3 readers, each following the feed with its own cursor.
    const written: string[] = [];
    const writers = Array.from({ length: 6 }, async (_, w) => {
      for (let i = 0; i < 10; i++) {
        const r = row(`c${w}`);
        await insertListingsIgnore(gw.ctx.db, [r]);
        written.push(r.id);
      }
    });
    const readers = Array.from({ length: 3 }, () => ({ seen: new Set<string>(), cursor: start }));
    let writing = true;
    const reading = readers.map(async (r) => {
      while (writing) r.cursor = await drain(r.cursor, r.seen);
    });
    await within(Promise.all(writers), 20_000); // none of them waits for the open writer
    writing = false;
    await Promise.all(reading);
    for (const r of readers) {
      expect(r.seen.has(lateRow.id)).toBe(false);
      r.cursor = await drain(r.cursor, r.seen);
      expect([...written].filter((id) => !r.seen.has(id))).toEqual([]);
    }
    await late.query('commit');
    await late.end();
    for (const r of readers) {
      // the late event comes after every cursor handed out while it was open
      r.cursor = await drain(r.cursor, r.seen);
      expect(r.seen.has(lateRow.id)).toBe(true);
    }
    // one walk from the start sees each change once
    const all = await events(`since=${encodeURIComponent(start)}&limit=10000`);
    const ids = all.events.map((e: any) => e.id);
    expect(ids.length).toBe(61);
    expect(new Set(ids)).toEqual(new Set([...written, lateRow.id]));
  });

  it('a sale changes the page ETag, and the old page last_update_at as since brings its remove event', async () => {
    const pages = await Promise.all(Array.from({ length: 16 }, (_, i) => gw.merchant(m.api_key, 'GET', `/purchase/available?game=csgo&full=true&page=${i + 1}`)));
    const before = pages.find((p) => p.body.data.items.length > 0)!;
    const victim = before.body.data.items[0];
    const pageNo = before.body.data.page;
    const p = await gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: victim.id });
    expect(p.body.data.status).toBe('pending');
    const after = await gw.merchant(m.api_key, 'GET', `/purchase/available?game=csgo&full=true&page=${pageNo}`, undefined, { 'if-none-match': before.headers.etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.data.items.some((i: any) => i.id === victim.id)).toBe(false);
    const d = await events(`since=${encodeURIComponent(before.body.data.last_update_at)}&limit=10000`);
    const mine = d.events.filter((e: any) => e.id === victim.id);
    expect(mine.at(-1)?.type).toBe('remove');
    expect(mine.filter((e: any) => e.type === 'remove')).toHaveLength(1);
    // The cursor is inclusive: the page's last change is replayed when it shares the cursor's
    // millisecond (the victim's own upsert, when its stamp was the page's last). Nothing older.
    for (const e of mine.filter((e: any) => e.type === 'upsert')) expect(e.at).toBe(before.body.data.last_update_at);
    // and the new page's cursor covers the sale (the change that set it)
    const d2 = await events(`since=${encodeURIComponent(after.body.data.last_update_at)}&limit=10000`);
    expect(d2.events.some((e: any) => e.id === victim.id && e.type === 'remove')).toBe(true);
  });

  it('64 concurrent purchases over many pages all commit; the feed has one remove each', async () => {
    const start = (await events('')).next;
    const items = (await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true')).body.data.items.slice(0, 64);
    expect(items.length).toBe(64);
    const res = await Promise.all(items.map((l: any) => gw.merchant(m.api_key, 'POST', '/purchase', { ...USER, game: 'csgo', asset_id: l.id })));
    expect(res.map((r) => r.body.data.status).filter((s) => s !== 'pending')).toEqual([]);
    const d = await events(`since=${encodeURIComponent(start)}&limit=10000`);
    const removed = d.events.filter((e: any) => e.type === 'remove').map((e: any) => e.id).sort();
    expect(removed).toEqual(items.map((l: any) => l.id).sort());
    expect((await gw.ctx.ledger.verify(m.id)).mismatches).toEqual([]);
  });
});
