import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerThreadPriority } from './background-thread.js';
import { fetchJsonOffThread } from './json-off-thread.js';
import { loadBookOffThread } from './book-off-thread.js';

/** Runs the function's source text in a worker (as the inline JSON worker embeds it); answers [worker's priority, process's]. */
function inWorker(): Promise<[number, number]> {
  const code = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const os = require('node:os');
(${lowerThreadPriority.toString()})();
const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
parentPort.postMessage([os.getPriority(tid), os.getPriority(process.pid)]);
`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', (m: [number, number]) => void w.terminate().then(() => resolve(m)));
    w.once('error', reject);
  });
}

/** The threads of this process at nice 19, by id, from /proc (the field after the command's closing parenthesis, 17th). */
function threadsAtNineteen(): Set<string> {
  return new Set(
    fs.readdirSync('/proc/self/task').filter((tid) => {
      try {
        const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16] === '19';
      } catch {
        return false; // the thread ended meanwhile
      }
    }),
  );
}

/** A source that answers only when told: the worker waits on it, alive, meanwhile. */
const waiting: (() => void)[] = [];
let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    waiting.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(req.url!.startsWith('/book') ? '[{"market_hash_name":"A","price":1}]' : '[1,2,3]'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(() => server?.close());

/**
 * Once the worker's request waits at the source: whether a thread that was not at nice 19 before
 * (the suite's files share processes: another file's worker may still be ending) is at 19 now; then
 * the source answers.
 */
async function newThreadAtNineteen(before: Set<string>): Promise<boolean> {
  while (waiting.length === 0) await new Promise((r) => setTimeout(r, 10));
  const seen = [...threadsAtNineteen()].some((tid) => !before.has(tid));
  waiting.splice(0).forEach((answer) => answer());
  return seen;
}

describe.runIf(process.platform === 'linux')('the price sources’ worker threads run at nice 19', () => {
  const before = os.getPriority(process.pid);
  // a test process already at 19 would prove nothing
  it.runIf(before !== 19)('lowerThreadPriority lowers the calling thread, and only that thread (its source text runs alone in a worker)', async () => {
    const [worker, main] = await inWorker();
    expect(worker).toBe(19);
    expect(main).toBe(before);
    expect(os.getPriority(process.pid)).toBe(before);
  });
  it.runIf(before !== 19)('the JSON worker (Skinport, a URL book) and the book worker are at 19 while they work; the event loop is not', async () => {
    const rows: unknown[] = [];
    let was = threadsAtNineteen();
    const json = fetchJsonOffThread(`${base}/list`, {}, 30_000, (r) => void rows.push(...r));
    expect(await newThreadAtNineteen(was)).toBe(true);
    expect(await json).toEqual({ kind: 'done' });
    expect(rows).toEqual([1, 2, 3]);
    was = threadsAtNineteen();
    const book = loadBookOffThread(`${base}/book/csgo.json`, () => {});
    expect(await newThreadAtNineteen(was)).toBe(true);
    expect(await book).toBe(1);
    expect(os.getPriority(process.pid)).toBe(before);
  });
});
