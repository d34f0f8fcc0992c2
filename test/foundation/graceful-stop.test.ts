// SIGTERM in the middle of work, as a supervisor sends it: for the embedded cluster and for
// DATABASE_URL, a burst of writes is answered or turned away (never reset), every answered write is
// there after the restart, a webhook attempt in flight is finished and delivered once, and the
// process exits 0 without an error-level log line.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded.js';
import { freshDatabase } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { http as call, PROCESS_ADMIN_TOKEN, ready, spawnGateway, waitFor, type GatewayProcess } from '../trust/gateway-process.js';

const started: GatewayProcess[] = [];
const dirs: string[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const g of started) g.killGroup();
  for (const r of receivers) await r.close();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

/** One top-up on a connection of its own: its HTTP status, or the socket error's code. */
function topUp(base: string, merchantId: number, reference: string): Promise<number | string> {
  const body = JSON.stringify({ amount: 1, reference });
  return new Promise((resolve) => {
    const req = http.request(`${base}/api/admin/merchants/${merchantId}/top-ups`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${PROCESS_ADMIN_TOKEN}` },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? err.message));
    req.end(body);
  });
}

const errorLines = (out: string) => out.split('\n').filter((l) => /"level":(50|60)/.test(l));

describe.each(['embedded', 'external'] as const)('SIGTERM with the %s database', (mode) => {
  it('answers or turns away every request (no reset), keeps every answered write, finishes the webhook attempt in flight once, exits 0', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-graceful-'));
    dirs.push(dataDir);
    const env: Record<string, string> = { SANDBOX_CATALOGUE_SIZE: '50', LOG_LEVEL: 'info', ...(mode === 'external' ? { DATABASE_URL: await freshDatabase() } : {}) };
    const port = await freePort();

    // The first webhook is held by the receiver until the stop has begun.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const receiver = await startReceiver(0, (_req, n) => (n === 0 ? { status: 200, until: held } : { status: 200 }));
    receivers.push(receiver);

    const gw = await ready(spawnGateway({ dataDir, port, env }));
    started.push(gw);
    const m = await call(gw.url, 'POST', '/api/admin/merchants', { admin: true, body: { name: 'Stop shop', webhook_url: receiver.url('/hook') } });
    expect(m.status).toBe(201);
    const merchant = m.body.data as { id: number; api_key: string };
    const listings = await call(gw.url, 'GET', '/api/v1/merchant/purchase/available?game=csgo&full=true', { key: merchant.api_key, timeoutMs: 60_000 });
    const assetId = (listings.body.data.items as { id: string }[])[0]!.id;
    const purchase = await call(gw.url, 'POST', '/api/v1/merchant/purchase', {
      key: merchant.api_key,
      body: { game: 'csgo', partner: 12345678, token: 'abcdefgh', asset_id: assetId, merchant_tx_id: 'graceful-1' },
    });
    expect(purchase.status).toBe(200);
    await waitFor(() => receiver.on('/hook').length === 1, 60_000, 'the first webhook attempt to be in flight');

    // A burst of writes from 8 clients, each stopping at its first refusal (503, or no listener).
    const results: (number | string)[] = [];
    const answered: string[] = [];
    let seq = 0;
    const clients = Array.from({ length: 8 }, async () => {
      for (;;) {
        const reference = `burst-${++seq}`;
        const r = await topUp(gw.url, merchant.id, reference);
        results.push(r);
        if (r === 201) answered.push(reference);
        else break;
      }
    });
    await waitFor(() => answered.length >= 20, 60_000, 'some answered writes');
    process.kill(gw.pid, 'SIGTERM');
    await waitFor(() => gw.output().includes('stopping the gateway'), 30_000, 'the stop to begin');
    release();
    await Promise.all(clients);
    expect(await gw.exited).toBe(0);

    // Every request was answered (201, or 503 once stopping) or found no listener; none was reset.
    expect(results.filter((r) => r !== 201 && r !== 503 && r !== 'ECONNREFUSED')).toEqual([]);
    expect(results.filter((r) => r === 503 || r === 'ECONNREFUSED').length).toBe(8);
    expect(gw.output()).toContain('stopped cleanly');
    expect(errorLines(gw.output())).toEqual([]);

    const again = await ready(spawnGateway({ dataDir, port, env }));
    started.push(again);
    // A top-up's reference is its idempotency key: sent again, a stored one answers duplicate.
    for (const reference of answered) {
      const r = await call(again.url, 'POST', `/api/admin/merchants/${merchant.id}/top-ups`, { admin: true, body: { amount: 1, reference } });
      expect(r.body.data.duplicate, `answered top-up ${reference} is stored`).toBe(true);
    }

    // The attempt held across the stop was finished by the stopping gateway: delivered, once.
    const deliveries = await call(again.url, 'GET', `/api/admin/merchants/${merchant.id}/webhook-deliveries?limit=50`, { admin: true });
    const events = deliveries.body.data as { webhook_id: string; state: string; attempts: unknown[] }[];
    const heldId = receiver.received[0]!.headers['webhook-id'];
    const heldEvent = events.find((e) => e.webhook_id === heldId);
    expect(heldEvent?.state).toBe('delivered');
    expect(heldEvent?.attempts.length).toBe(1);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === heldId).length).toBe(1);

    process.kill(again.pid, 'SIGTERM');
    expect(await again.exited).toBe(0);
    expect(errorLines(again.output())).toEqual([]);
  }, 240_000);
});
