// Whole-catalogue downloads (purchase/available without page): no pool connection held while the
// client reads, a per-instance cap (CATALOGUE_STREAM_CONCURRENCY → 503 + Retry-After), stalled
// readers dropped, and failures that never look like a complete body. Also the page cache bound.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestGateway, type TestGateway } from '../helpers.js';
import { insertListingsIgnore, type ListingInput } from '../../src/modules/catalogue/catalogue-repo.js';
import { STREAM_BATCH, STREAM_WRITE_TIMEOUT_MS } from '../../src/modules/catalogue/stream.js';

const CONCURRENCY = 2;
const SIZE = 16_000;
let gw: TestGateway;
let m: { id: number; api_key: string };

beforeAll(async () => {
  gw = await startTestGateway({ SANDBOX_CATALOGUE_SIZE: '0', CATALOGUE_STREAM_CONCURRENCY: String(CONCURRENCY) });
  m = await gw.createMerchant({ name: 'Downloader' });
  // ~1.6 KB per listing on the wire: ~26 MB per full download, far more than socket buffers hold.
  const image = `https://img.example/${'a'.repeat(1500)}.png`;
  for (let i = 0; i < SIZE; i += 1000) {
    const rows: ListingInput[] = [];
    for (let j = i; j < i + 1000; j++) rows.push({ id: (0x50000000 + j).toString(16), game: 'csgo', name: `Stream item ${j % 300}`, base_price: 1000 + j, image_url: image, source: 'import' });
    await insertListingsIgnore(gw.ctx.db, rows);
  }
});
afterAll(async () => gw?.stop());

const resetTuning = () => {
  gw.ctx.catalogue.streamTuning.batchSize = STREAM_BATCH;
  gw.ctx.catalogue.streamTuning.writeTimeoutMs = STREAM_WRITE_TIMEOUT_MS;
  gw.ctx.catalogue.streamTuning.beforeBatch = undefined;
};

/** A client that sends the request, reads the status line, then stops reading (the socket stays open). */
function stalledClient(path: string): Promise<{ socket: net.Socket; head: string; closed: Promise<void> }> {
  const port = new URL(gw.url).port;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`GET /api/v1/merchant${path} HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${m.api_key}\r\n\r\n`));
    socket.once('data', (chunk) => {
      socket.pause(); // no more reads: the kernel buffers fill and the server's writes stall
      socket.on('error', () => {});
      resolve({ socket, head: chunk.toString('latin1', 0, 200), closed });
    });
  });
}

describe('whole-catalogue downloads', () => {
  it(`${CONCURRENCY + 1} non-reading clients: the extra one gets 503 + Retry-After; GET /balance stays fast meanwhile`, async () => {
    const clients = [];
    for (let i = 0; i < CONCURRENCY; i++) clients.push(await stalledClient('/purchase/available?game=csgo&full=true&extended=true'));
    try {
      for (const c of clients) expect(c.head).toMatch(/^HTTP\/1\.1 200/);
      await eventually(async () => gw.ctx.catalogue.activeStreams() === CONCURRENCY);
      await new Promise((r) => setTimeout(r, 300));
      expect(gw.ctx.catalogue.activeStreams()).toBe(CONCURRENCY); // still stalled, still counted

      const extra = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true');
      expect(extra.status).toBe(503);
      expect(extra.body).toMatchObject({ success: false, message: 'internal error' });
      expect(extra.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      // the grouped view is one ready body from memory (issue 12): no download slot needed
      const grouped = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo');
      expect(grouped.status).toBe(200);
      expect(grouped.body.data.total).toBe(300);

      // More balance reads at once than the pool has connections: none waits on the downloads.
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => fetch(`${gw.url}/api/v1/merchant/balance`, { headers: { 'x-api-key': m.api_key } }).then((r) => r.status)),
      );
      expect(answers.every((s) => s === 200)).toBe(true);
      // ...answered while every download is still stalled (a read waiting on them would never end)
      expect(gw.ctx.catalogue.activeStreams()).toBe(CONCURRENCY);
      // pages keep working too
      expect((await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=1')).status).toBe(200);
    } finally {
      for (const c of clients) c.socket.destroy();
    }
    // the clients went away: their slots come back, and a reading client gets the whole catalogue
    await eventually(async () => gw.ctx.catalogue.activeStreams() === 0);
    const res = await fetch(`${gw.url}/api/v1/merchant/purchase/available?game=csgo&full=true`, { headers: { 'x-api-key': m.api_key } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.total).toBe(SIZE);
    expect(body.data.items.length).toBe(SIZE);
    expect(new Set(body.data.items.map((i: any) => i.id)).size).toBe(SIZE);
    const grouped = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo');
    expect(grouped.body.data.total).toBe(300);
    expect(grouped.body.data.items.reduce((s: number, g: any) => s + g.count, 0)).toBe(SIZE);
  });

  it('a reader that takes nothing for the write timeout is dropped and its slot returns', async () => {
    gw.ctx.catalogue.streamTuning.writeTimeoutMs = 500;
    try {
      const c = await stalledClient('/purchase/available?game=csgo&full=true');
      expect(c.head).toMatch(/^HTTP\/1\.1 200/);
      await eventually(async () => gw.ctx.catalogue.activeStreams() === 0);
      // The server closed its end: reading now gets what the kernel still held, then the end of
      // the connection — without the final chunk.
      let tail = '';
      c.socket.on('data', (d: Buffer) => (tail = (tail + d.toString('latin1')).slice(-100)));
      c.socket.resume();
      await c.closed;
      expect(tail.endsWith('0\r\n\r\n')).toBe(false);
    } finally {
      resetTuning();
    }
  });

  it('small batches: the body is the same as with one batch (keyset walk, no repeats)', async () => {
    gw.ctx.catalogue.streamTuning.batchSize = 999;
    try {
      const res = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true');
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(SIZE);
      expect(new Set(res.body.data.items.map((i: any) => i.id)).size).toBe(SIZE);
      gw.ctx.catalogue.streamTuning.batchSize = 7;
      const grouped = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo');
      expect(grouped.body.data.total).toBe(300);
      expect(new Set(grouped.body.data.items.map((g: any) => g.name)).size).toBe(300);
    } finally {
      resetTuning();
    }
  });

  it('a failure before the first batch is a clean 503 envelope with Retry-After', async () => {
    gw.ctx.catalogue.streamTuning.beforeBatch = () => {
      throw new Error('injected: database went away');
    };
    try {
      const res = await fetch(`${gw.url}/api/v1/merchant/purchase/available?game=csgo&full=true`, { headers: { 'x-api-key': m.api_key } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(await res.json()).toEqual({ success: false, message: 'internal error' });
      expect(gw.ctx.catalogue.activeStreams()).toBe(0);
    } finally {
      resetTuning();
    }
  });

  it('a failure part-way cuts the connection: the body never ends like a complete JSON document', async () => {
    gw.ctx.catalogue.streamTuning.batchSize = 500;
    gw.ctx.catalogue.streamTuning.beforeBatch = (i) => {
      if (i === 3) throw new Error('injected: database went away');
    };
    try {
      const res = await fetch(`${gw.url}/api/v1/merchant/purchase/available?game=csgo&full=true`, { headers: { 'x-api-key': m.api_key } });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();

      // On the wire: chunked, and the connection closes without the terminating 0-length chunk.
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(gw.url).port), '127.0.0.1');
        const parts: Buffer[] = [];
        socket.on('data', (d) => parts.push(d));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(parts).toString('latin1')));
        socket.write(`GET /api/v1/merchant/purchase/available?game=csgo&full=true HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${m.api_key}\r\n\r\n`);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 200/);
      expect(raw.toLowerCase()).toContain('transfer-encoding: chunked');
      expect(raw.endsWith('0\r\n\r\n')).toBe(false);
      expect(raw).not.toContain('"total"');
      await eventually(async () => gw.ctx.catalogue.activeStreams() === 0);
    } finally {
      resetTuning();
    }
  });
});

describe('page cache', () => {
  it('is keyed on what shapes the page, not the query string: extra parameters add nothing', async () => {
    const first = await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=5');
    expect(first.status).toBe(200);
    const before = gw.ctx.catalogue.pageCacheStats();
    expect(before.entries).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 20; i++) {
      const res = await gw.merchant(m.api_key, 'GET', `/purchase/available?game=csgo&full=true&page=5&x=${i}&utm=${'z'.repeat(i)}`);
      expect(res.status).toBe(200);
      expect(res.body.data.items).toEqual(first.body.data.items);
      // next/previous are built for this request (they keep its query)
      expect(new URL(res.body.data.next).searchParams.get('x')).toBe(String(i));
      expect(new URL(res.body.data.previous).searchParams.get('page')).toBe('4');
    }
    expect(gw.ctx.catalogue.pageCacheStats()).toEqual(before);
    // pages past the last are not cached at all
    for (let p = 17; p < 40; p++) expect((await gw.merchant(m.api_key, 'GET', `/purchase/available?game=csgo&full=true&page=${p}`)).status).toBe(200);
    expect(gw.ctx.catalogue.pageCacheStats()).toEqual(before);
    // another representation (extended) is another entry
    await gw.merchant(m.api_key, 'GET', '/purchase/available?game=csgo&full=true&page=5&extended=true');
    expect(gw.ctx.catalogue.pageCacheStats().entries).toBe(before.entries + 1);
  });
});
