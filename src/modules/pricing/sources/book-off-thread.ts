// The own book (400 000 entries for 100 000 items per game) read, parsed and checked in a worker
// thread (book-worker.ts), and handed to the event loop a slice of entries at a time, the next one
// asked for only after the previous one was taken and other work ran: parsing it on the event loop
// held every request up for about a second. Errors are the book's own (PriceBookError, with its
// issues), raised here. A small book (the sandbox's 1.5 MB) is parsed on the event loop: starting a
// worker costs more than that. Under tsx or vitest the worker runs the TypeScript source (tsx registered
// in it); the build runs its compiled file.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { stat, readdir } from 'node:fs/promises';
import { GAMES } from '../../../domain/games.js';
import { PriceBook, PriceBookError, type PriceBookEntry } from '../pricebook.js';
import { isSourceList, loadSourceList } from '../price-sources.js';
import { ender } from './json-off-thread.js';

type Message = { kind: 'entries'; entries: PriceBookEntry[] } | { kind: 'done'; total: number } | { kind: 'error'; message: string; bookError: boolean; issues: PriceBookError['issues'] };

/** A worker of the TypeScript source: tsx registered first (the worker's own loader knows no .ts). */
const TS_BOOT = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((t) => { (t.register ?? t.default.register)(); return import(workerData.entry); });
`;

function bookWorker(workerData: Record<string, unknown>): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // tsx's ESM entry of its API (its CommonJS one cannot register the loader in a worker)
    const req = createRequire(here);
    const pkg = req.resolve('tsx/package.json');
    const tsx = pathToFileURL(path.join(path.dirname(pkg), (req(pkg) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!.import.default)).href;
    return new Worker(TS_BOOT, { eval: true, workerData: { ...workerData, tsx, entry: new URL('./book-worker.ts', here).href } });
  }
  return new Worker(new URL('./book-worker.js', here), { workerData });
}

/** Loads the book at `source` off the event loop; onEntries gets every entry, in slices of `chunk`, in the book's order per game. */
export function loadBookOffThread(source: string, onEntries: (entries: PriceBookEntry[]) => void | Promise<void>, chunk = 2000): Promise<number> {
  return new Promise((resolve, reject) => {
    const w = bookWorker({ source, chunk });
    const end = ender(w);
    w.on('message', (m: Message) => {
      if (m.kind === 'done') return end(() => resolve(m.total));
      if (m.kind === 'error') return end(() => reject(m.bookError ? new PriceBookError(m.message, m.issues) : new Error(m.message)));
      Promise.resolve()
        .then(() => onEntries(m.entries))
        .then(
          () => setImmediate(() => w.postMessage('next')), // requests run before the next slice
          (err) => end(() => reject(err)),
        );
    });
    w.on('error', (err) => end(() => reject(err)));
    w.on('exit', (code) => end(() => reject(new Error(`price book worker exited with ${code}`))));
  });
}

/** Books from this size on are parsed in the worker; a URL always is. */
export const OFF_THREAD_BYTES = 4 * 1024 * 1024;

/** Size of a book file or directory; Infinity for a URL; 0 when unreadable (the load says why). */
async function bookBytes(source: string): Promise<number> {
  if (/^https?:\/\//i.test(source) || isSourceList(source)) return Infinity;
  try {
    const info = await stat(source);
    if (!info.isDirectory()) return info.size;
    let n = 0;
    for (const f of await readdir(source)) n += (await stat(path.join(source, f)).catch(() => ({ size: 0 }))).size;
    return n;
  } catch {
    return 0;
  }
}

const yieldToRequests = () => new Promise<void>((r) => setImmediate(r));

/**
 * Loads the own book: from offThreadBytes on in the worker (loadBookOffThread), a smaller one on the
 * event loop; either way onEntries gets its entries in slices of `chunk`, requests running between.
 */
export async function loadBook(source: string, onEntries: (entries: PriceBookEntry[]) => void | Promise<void>, opts: { offThreadBytes?: number; chunk?: number } = {}): Promise<number> {
  const chunk = opts.chunk ?? 2000;
  if ((await bookBytes(source)) >= (opts.offThreadBytes ?? OFF_THREAD_BYTES)) return loadBookOffThread(source, onEntries, chunk);
  const book = isSourceList(source) ? new PriceBook(await loadSourceList(source)) : await PriceBook.load(source);
  const all = GAMES.flatMap((g) => book.list(g));
  for (let at = 0; at < all.length; at += chunk) {
    if (at > 0) await yieldToRequests();
    await onEntries(all.slice(at, at + chunk));
  }
  return all.length;
}
