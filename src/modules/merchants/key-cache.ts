// API keys cached per instance (keyed by the key's hash), so authentication costs no database
// round trip on the hot path. Every change of a merchant row notifies 'merchant_changed' in its
// own transaction (trigger of 008_feed_watermark.sql); each instance LISTENs on a dedicated
// connection and drops that merchant's entries. The cache is used only while that connection is
// up: when it drops or (re)connects the whole cache is flushed, since notifications may be lost.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { startListener } from '../../db/listener.js';
import { findByKeyHash, type MerchantRow } from './merchant-repo.js';

export const MERCHANT_CHANGED_CHANNEL = 'merchant_changed';
const MAX_ENTRIES = 10_000;

export interface KeyCache {
  /** The merchant owning this key hash, from memory when the listener is up. */
  lookup(hash: string): Promise<MerchantRow | undefined>;
  /** The cached merchant of this key hash, without waiting (undefined: not cached, or cache off). */
  cached(hash: string): MerchantRow | undefined;
  /** Whether entries are being served (the listener is connected). */
  readonly listening: boolean;
  /** Forgets every entry now (this instance changed merchants: its own NOTIFY is still on the way). */
  flush(): void;
  stop(): Promise<void>;
}

export function createKeyCache(db: Db, connection: pg.ClientConfig, log: Logger): KeyCache {
  const byHash = new Map<string, MerchantRow>();
  // Bumped on every invalidation: a lookup that read the database before one does not store its
  // (possibly old) row.
  let epoch = 0;

  function flush() {
    epoch++;
    byHash.clear();
  }

  function dropMerchant(id: number) {
    epoch++;
    for (const [hash, m] of byHash) if (m.id === id) byHash.delete(hash);
  }

  const listener = startListener({
    connection,
    channel: MERCHANT_CHANGED_CHANNEL,
    log,
    db, // a database that is away is the outage's one warning, not this listener's
    lostMessage: 'merchant notification connection lost; API key cache off until it is back',
    onNotify(payload) {
      const id = Number(payload);
      if (payload !== '' && Number.isSafeInteger(id)) dropMerchant(id);
      else flush();
    },
    onUp: flush,
    onDown: flush,
  });

  return {
    get listening() {
      return listener.up;
    },
    flush,
    cached: (hash) => (listener.up ? byHash.get(hash) : undefined),
    async lookup(hash) {
      if (!listener.up) return findByKeyHash(db, hash);
      const hit = byHash.get(hash);
      if (hit) return hit;
      const at = epoch;
      const row = await findByKeyHash(db, hash);
      // Unknown keys are not remembered: the map holds only real merchants' keys.
      if (row && listener.up && at === epoch) {
        if (byHash.size >= MAX_ENTRIES) byHash.clear();
        byHash.set(hash, row);
      }
      return row;
    },
    stop: () => listener.stop(),
  };
}
