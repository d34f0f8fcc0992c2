// Catalogue pages from memory (issue 12, phase 2; page-state.ts): two gateways on one database.
// The 304 and the cached bodies take no database connection; a sale on one instance changes the
// page's ETag on the other (after its stamp, a notification), and no stale body is served after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freshDatabase, startTestGateway, type TestGateway } from '../helpers.js';

const ENV = { SANDBOX_CATALOGUE_SIZE: '400' };
const USER = { game: 'csgo', partner: 23456789, token: 'memory12' };
let a: TestGateway;
let b: TestGateway;
let m: { id: number; api_key: string };

beforeAll(async () => {
  const databaseUrl = await freshDatabase();
  a = await startTestGateway(ENV, { databaseUrl });
  b = await startTestGateway(ENV, { databaseUrl });
  m = await a.createMerchant({ name: 'Memory pages' });
  await a.topUp(m.id, 1_000_000);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

const get = (g: TestGateway, path: string, headers: Record<string, string> = {}) => g.merchant(m.api_key, 'GET', path, undefined, headers);
const pagePath = (n: number) => `/purchase/available?game=csgo&full=true&page=${n}`;

/** Database connections checked out of the gateway's pool while `f` runs. */
/**
 * Pool checkouts of an instance while f runs, the fewest of a few tries: the instance's own
 * background work (the 200 ms feed stamper, the job worker) shares the pool and may land inside one
 * try, but a request path that needs the database checks a connection out on every try.
 */
async function checkouts(g: TestGateway, f: () => Promise<unknown>, tries = 5): Promise<number> {
  let fewest = Infinity;
  for (let i = 0; i < tries && fewest > 0; i++) {
    let n = 0;
    const count = () => n++;
    g.ctx.pool.on('acquire', count);
    try {
      await f();
    } finally {
      g.ctx.pool.off('acquire', count);
    }
    fewest = Math.min(fewest, n);
  }
  return fewest;
}

/** Waits until the instance serves from memory (listener up, state read, no local write pending). */
const memoryOn = (g: TestGateway) => eventually(async () => g.ctx.catalogue.pageState.snapshot('csgo') !== undefined, 10_000);

describe('catalogue pages from memory', () => {
  it('a matching If-None-Match is a 304 and a cached page a 200 without any database connection', async () => {
    await memoryOn(b);
    const first = await get(b, pagePath(5)); // fills the page cache (and the API key cache)
    expect(first.status).toBe(200);
    let again: Awaited<ReturnType<typeof get>> | undefined;
    let notModified: Awaited<ReturnType<typeof get>> | undefined;
    const used = await checkouts(b, async () => {
      notModified = await get(b, pagePath(5), { 'if-none-match': first.headers.etag });
      again = await get(b, pagePath(5));
    });
    expect(notModified!.status).toBe(304);
    expect(notModified!.headers.etag).toBe(first.headers.etag);
    expect(again!.status).toBe(200);
    expect(again!.headers.etag).toBe(first.headers.etag);
    expect(again!.body).toEqual(first.body);
    expect(used).toBe(0);
    // and a non-matching ETag still gets the body
    expect((await get(b, pagePath(5), { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('a sale on instance A changes the page ETag on instance B, and B serves no stale body after', async () => {
    await memoryOn(b);
    const before = await get(b, pagePath(7));
    expect(before.status).toBe(200);
    const victim = before.body.data.items[0];
    const bought = await a.merchant(m.api_key, 'POST', '/purchase', { ...USER, asset_id: victim.id });
    expect(bought.body.data.status).toBe('pending');

    const changed = await eventually(async () => {
      const r = await get(b, pagePath(7), { 'if-none-match': before.headers.etag });
      return r.status === 200 ? r : undefined;
    }, 5_000, 20);
    expect(changed.headers.etag).not.toBe(before.headers.etag);
    expect(changed.body.data.items.some((i: any) => i.id === victim.id)).toBe(false);
    expect(changed.body.data.count).toBe(before.body.data.count - 1);
    expect(changed.body.data.total).toBe(before.body.data.total - 1);
    // From then on: the old ETag never comes back as 304, the body never has the sold listing.
    for (let i = 0; i < 5; i++) {
      const r = await get(b, pagePath(7), { 'if-none-match': before.headers.etag });
      expect(r.status).toBe(200);
      expect(r.headers.etag).toBe(changed.headers.etag);
      expect(r.body.data.items.some((x: any) => x.id === victim.id)).toBe(false);
    }
    // the new ETag is a 304 on both instances
    expect((await get(b, pagePath(7), { 'if-none-match': changed.headers.etag })).status).toBe(304);
    expect((await get(a, pagePath(7), { 'if-none-match': changed.headers.etag })).status).toBe(304);
  });

  it('the grouped view is one ready body (no database connection once built) and follows a sale on the other instance', async () => {
    await memoryOn(b);
    const first = await get(b, '/purchase/available?game=csgo');
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const names = first.body.data.items as Array<{ name: string; count: number }>;
    expect(first.body.data.total).toBe(names.length);
    expect(names.reduce((s, g) => s + g.count, 0)).toBe((await get(b, pagePath(1))).body.data.total);
    let again: Awaited<ReturnType<typeof get>> | undefined;
    expect(await checkouts(b, async () => (again = await get(b, '/purchase/available?game=csgo')))).toBe(0);
    expect(again!.body).toEqual(first.body);

    const group = names.find((g) => g.count === 1) ?? names[0];
    const bought = await a.merchant(m.api_key, 'POST', '/purchase', { ...USER, name: group.name });
    expect(bought.body.data.status).toBe('pending');
    const after = await eventually(async () => {
      const r = await get(b, '/purchase/available?game=csgo');
      const g = (r.body.data.items as Array<{ name: string; count: number }>).find((x) => x.name === group.name);
      return (g?.count ?? 0) === group.count - 1 ? r : undefined;
    }, 5_000, 20);
    expect(after.body.data.total).toBe(group.count === 1 ? names.length - 1 : names.length);
  });

  it('a rebuild started on instance A answers 503 on instance B from memory; fine again once it ends', async () => {
    await memoryOn(b);
    await a.ctx.catalogue.setRebuilding(true, 30);
    try {
      const during = await eventually(async () => {
        const r = await get(b, pagePath(2));
        return r.status === 503 ? r : undefined;
      }, 5_000, 20);
      expect(during.body).toMatchObject({ success: false, message: 'catalogue is being rebuilt, retry shortly' });
      expect(during.headers['retry-after']).toBe('5');
      // (eventually too: that 503 may have come from the database path before the notification)
      await eventually(async () => (await get(b, '/purchase/available?game=csgo')).status === 503, 5_000, 20);
    } finally {
      await a.ctx.catalogue.setRebuilding(false);
    }
    await eventually(async () => (await get(b, pagePath(2))).status === 200, 5_000, 20);
  });
});
