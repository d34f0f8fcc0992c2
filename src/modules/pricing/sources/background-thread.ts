// The price sources' worker threads (json-off-thread.ts, book-worker.ts) parse tens of MB while
// requests run, on machines of two cores shared with the database: at the lowest priority (nice 19)
// the kernel runs the event loop, PostgreSQL and everything else first, and the parse gets what is
// left. Linux sets a thread's priority by its id (/proc/thread-self); elsewhere, or where lowering is
// not allowed, the thread keeps the default priority.

/**
 * Lowers the calling thread's priority. Self-contained (no imports, no helpers): the inline JSON
 * worker embeds its source text.
 */
export function lowerThreadPriority(): void {
  try {
    const builtin = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    if (!builtin) return;
    const fs = builtin('node:fs') as typeof import('node:fs');
    const os = builtin('node:os') as typeof import('node:os');
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) os.setPriority(tid, 19);
  } catch {
    // not Linux, or not allowed: the default priority
  }
}
