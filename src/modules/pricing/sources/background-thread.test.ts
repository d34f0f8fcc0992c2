import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { lowerThreadPriority } from './background-thread.js';

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

describe.runIf(process.platform === 'linux')('lowerThreadPriority', () => {
  it('lowers the calling thread to nice 19, and only that thread (its source text runs alone in a worker)', async () => {
    const before = os.getPriority(process.pid);
    const [worker, main] = await inWorker();
    expect(worker).toBe(19);
    expect(main).toBe(before);
    expect(os.getPriority(process.pid)).toBe(before);
  });
});
