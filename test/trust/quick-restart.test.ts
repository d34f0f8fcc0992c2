// kill -9 of the whole gateway (Node's group, the embedded PostgreSQL, its watchdog) and a new start
// 0.3 s later, ten times in a row: each start takes DATA_DIR over from the dead one (no "another
// gateway is using DATA_DIR"), and every acknowledged write is still there. The gateway is started
// by a shell of its group, as `npm start` starts it: killed with it, the gateway is an orphan whose
// pid stays (a zombie) until init reaps it, which may be after the next start looks.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded.js';
import { http, processesWith, ready, spawnGateway, waitFor, type GatewayProcess } from './gateway-process.js';

const started: GatewayProcess[] = [];
let root = '';
afterAll(async () => {
  for (const g of started) g.killGroup();
  if (root) await waitFor(() => processesWith(root).length === 0, 15_000, 'the last group to be gone');
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('restart right after kill -9', () => {
  it('starts 0.3 s after the group was killed, ten times in a row, with every acknowledged top-up', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-quick-restart-'));
    await fs.chmod(root, 0o755); // the postgres user must enter it
    const dataDir = path.join(root, 'data');
    const port = await freePort();
    const start = () => {
      const g = spawnGateway({ dataDir, port, viaShell: true });
      started.push(g);
      return g;
    };
    let gw = await ready(start());
    expect((await http(gw.url, 'POST', '/api/admin/merchants', { admin: true, body: { name: 'Quick restart shop' } })).status).toBe(201);
    const entries = async () => {
      const ledger = await http(gw.url, 'GET', '/api/admin/merchants/1/ledger?limit=100', { admin: true });
      expect(ledger.status).toBe(200);
      return ledger.body.data.length as number;
    };
    const before = await entries(); // a sandbox merchant may start with entries of its own
    const acked: string[] = [];
    for (let cycle = 1; cycle <= 10; cycle++) {
      const reference = `cycle-${cycle}`;
      expect((await http(gw.url, 'POST', '/api/admin/merchants/1/top-ups', { admin: true, body: { amount: 1, reference } })).status).toBe(201);
      acked.push(reference);
      gw.killGroup();
      await new Promise((r) => setTimeout(r, 300));
      gw = await ready(start());
      expect(await entries()).toBe(before + acked.length);
    }
  }, 300_000);
});
