// A big JSON answer (Skinport's item list: 100 000 items are ~20 MB) fetched and parsed in a worker
// thread, and handed to the event loop an array slice at a time, each asked for after the previous
// one was taken: parsing it on the event loop held every request up for hundreds of ms. The worker
// is inline code (no file to resolve under tsx, vitest or the build), one per fetch, at the lowest
// thread priority (background-thread.ts).
import { Worker } from 'node:worker_threads';
import { lowerThreadPriority } from './background-thread.js';

const WORKER = `
(${lowerThreadPriority.toString()})();
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { url, headers, timeoutMs, chunk } = workerData;
  let res, text;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers });
    text = await res.text();
  } catch (err) {
    parentPort.postMessage({ kind: 'failed', message: String((err && err.message) || err) });
    return;
  }
  if (!res.ok) {
    parentPort.postMessage({ kind: 'status', status: res.status, retryAfter: res.headers.get('retry-after') });
    return;
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    parentPort.postMessage({ kind: 'not-json' });
    return;
  }
  text = undefined;
  if (!Array.isArray(body)) {
    parentPort.postMessage({ kind: 'body', body });
    return;
  }
  let at = 0;
  const next = () => {
    if (at >= body.length) return parentPort.postMessage({ kind: 'done' });
    parentPort.postMessage({ kind: 'rows', offset: at, rows: body.slice(at, at + chunk) });
    at += chunk;
  };
  parentPort.on('message', next);
  next();
})();
`;

/** The one way a worker's promise ends: the first outcome wins, the worker is terminated. */
export function ender(w: Worker): (fn: () => void) => void {
  let settled = false;
  return (fn) => {
    if (settled) return;
    settled = true;
    void w.terminate();
    fn();
  };
}

export type JsonAnswer =
  | { kind: 'failed'; message: string }
  | { kind: 'status'; status: number; retryAfter: string | null }
  | { kind: 'not-json' }
  | { kind: 'body'; body: unknown }
  | { kind: 'rows'; offset: number; rows: unknown[] }
  | { kind: 'done' };

/**
 * GETs `url` and parses it off the event loop. A top-level array comes to `onRows` in slices of
 * `chunk` (the next one asked for only after onRows returned and other work ran); the answer says
 * how it ended: 'done' after an array, 'body' for anything else, or the failure.
 */
export function fetchJsonOffThread(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  onRows: (rows: unknown[], offset: number) => void,
  chunk = 2000,
): Promise<Exclude<JsonAnswer, { kind: 'rows' }>> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { url, headers, timeoutMs, chunk } });
    const end = ender(w);
    w.on('message', (m: JsonAnswer) => {
      if (m.kind !== 'rows') return end(() => resolve(m));
      try {
        onRows(m.rows, m.offset);
      } catch (err) {
        return end(() => reject(err));
      }
      setImmediate(() => w.postMessage('next')); // requests run before the next slice
    });
    w.on('error', (err) => end(() => reject(err)));
    w.on('exit', (code) => end(() => reject(new Error(`JSON worker exited with ${code}`))));
  });
}
