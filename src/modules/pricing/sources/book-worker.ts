// The worker thread of book-off-thread.ts: loads and checks the own book (PRICE_BOOK: a file, a
// directory, a URL or `skinport:` lists) with the same code as the event loop did, then hands its
// entries over a slice at a time, each slice sent when the previous one was taken.
import { parentPort, workerData } from 'node:worker_threads';
import { GAMES } from '../../../domain/games.js';
import { PriceBook, PriceBookError, type PriceBookEntry } from '../pricebook.js';
import { isSourceList, loadSourceList } from '../price-sources.js';
import { lowerThreadPriority } from './background-thread.js';

lowerThreadPriority(); // the event loop first

const { source, chunk } = workerData as { source: string; chunk: number };
const port = parentPort!;

async function main(): Promise<void> {
  let book: PriceBook;
  try {
    book = isSourceList(source) ? new PriceBook(await loadSourceList(source)) : await PriceBook.load(source);
  } catch (err) {
    const e = err as Error;
    port.postMessage({ kind: 'error', message: e.message, bookError: err instanceof PriceBookError, issues: err instanceof PriceBookError ? err.issues : [] });
    return;
  }
  const all: PriceBookEntry[] = GAMES.flatMap((g) => book.list(g));
  let at = 0;
  const next = () => {
    if (at >= all.length) return port.postMessage({ kind: 'done', total: all.length });
    port.postMessage({ kind: 'entries', entries: all.slice(at, at + chunk) });
    at += chunk;
  };
  port.on('message', next);
  next();
}

void main();
