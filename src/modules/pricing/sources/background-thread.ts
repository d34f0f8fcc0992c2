// The price sources' worker threads (json-off-thread.ts, book-worker.ts) parse tens of MB while
// requests run, on machines of two cores: at the lowest priority (nice 19) the kernel runs the event
// loop (and the process's other threads) first, and the parse gets what is left. Niceness ranks
// threads within one scheduling group: PostgreSQL on the same host gets the same precedence only
// when it shares the group (no autogroup, no cgroup of its own). Starving is not a risk to a poll:
// its timeout covers the fetch, which waits on the network, not on the CPU (a 20 MB list's decoding
// is ≈ 20 ms of CPU). Linux sets a thread's priority by its id (/proc/thread-self); elsewhere, or
// where lowering is not allowed, the thread keeps the default priority.

/**
 * Lowers the calling thread's priority. Self-contained (no imports, no helpers): the inline JSON
 * worker embeds its source text.
 */
export function lowerThreadPriority(): void {
  try {
    // Node 20.16 and later; before it, the inline worker (CommonJS) still has require
    const builtin = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule ?? (typeof require === 'function' ? require : undefined);
    if (!builtin) return;
    const fs = builtin('node:fs') as typeof import('node:fs');
    const os = builtin('node:os') as typeof import('node:os');
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) os.setPriority(tid, 19);
  } catch {
    // not Linux, or not allowed: the default priority
  }
}
