// What the steam adapter has already read from the platform within a flow, kept so the next step
// of the same flow does not read it again (docs/going-live.md "Steam calls per flow"): a trade
// link's partner details read at the inventory / quote step stand for the create and the send, a
// user's inventory for the create's check. Bounded: past maxEntries the oldest entries go.
export class ReadCache<T> {
  private entries = new Map<string, { at: number; value: T }>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  get(key: string, now = Date.now()): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (now - hit.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: T, now = Date.now()): void {
    this.entries.delete(key); // re-inserted last: the Map's order is the age order
    this.entries.set(key, { at: now, value });
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
