// Group commit at the application level: calls that arrive at about the same time are run as one
// batch (one statement, one commit, one round trip) instead of one each — writes (a commit each,
// with its WAL flush) and hot reads alike. A batch collects what
// arrives within one event-loop turn, and while the previous batch is in flight (at most
// `inFlight` at once): under load, batches grow by themselves; alone, a call waits one turn.
// `run` answers one result per item, in order; if it throws, every caller of the batch gets the
// error (callers fall back to their own path).

export interface BatchedOptions {
  /** Most items per batch (the rest wait for the next). */
  maxBatch?: number;
  /** Most batches in flight at once. */
  inFlight?: number;
}

export function batched<I, O>(run: (items: I[]) => Promise<O[]>, opts: BatchedOptions = {}) {
  const maxBatch = opts.maxBatch ?? 64;
  const inFlight = opts.inFlight ?? 1;
  let queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let running = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || queue.length === 0 || running >= inFlight) return;
    scheduled = true;
    setImmediate(flush);
  }

  function flush(): void {
    scheduled = false;
    if (queue.length === 0 || running >= inFlight) return;
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
    running++;
    run(batch.map((b) => b.item)).then(
      (out) => batch.forEach((b, i) => b.resolve(out[i])),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    ).finally(() => {
      running--;
      schedule();
    });
    schedule();
  }

  return {
    add(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
