// API keys cached per instance (keyed by the key's hash), so authentication costs no database
// round trip on the hot path. Every change of a merchant row notifies 'merchant_changed' in its
// own transaction (trigger of 008_feed_watermark.sql); each instance LISTENs on a dedicated
// connection and drops that merchant's entries. The cache is used only while that connection is
// up: when it drops or (re)connects the whole cache is flushed, since notifications may be lost.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { findByKeyHash, type MerchantRow } from './merchant-repo.js';

export const MERCHANT_CHANGED_CHANNEL = 'merchant_changed';
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1000;

export interface KeyCache {
  /** The merchant owning this key hash, from memory when the listener is up. */
  lookup(hash: string): Promise<MerchantRow | undefined>;
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
  let listening = false;
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  function flush() {
    epoch++;
    byHash.clear();
  }

  function dropMerchant(id: number) {
    epoch++;
    for (const [hash, m] of byHash) if (m.id === id) byHash.delete(hash);
  }

  /** Stops serving from memory and closes the listener connection. */
  async function closeClient(): Promise<void> {
    listening = false;
    flush();
    const c = client;
    client = undefined;
    c?.removeAllListeners();
    c?.on('error', () => {});
    await c?.end().catch(() => {});
  }

  function lost(err?: Error) {
    if (!listening && !client) return;
    if (err && !stopped) log.warn({ err }, 'merchant notification connection lost; API key cache off until it is back');
    void closeClient();
    if (!stopped) {
      retry = setTimeout(() => void connect(), RECONNECT_MS);
      retry.unref();
    }
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client(connection);
    client = c;
    c.on('error', (err) => lost(err));
    c.on('end', () => lost(new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel !== MERCHANT_CHANGED_CHANNEL) return;
      const id = Number(msg.payload);
      if (Number.isSafeInteger(id)) dropMerchant(id);
      else flush();
    });
    try {
      await c.connect();
      await c.query(`listen ${MERCHANT_CHANGED_CHANNEL}`);
      if (client !== c || stopped) return;
      flush(); // anything cached before may have missed a notification
      listening = true;
    } catch (err) {
      if (client === c) lost(err as Error);
    }
  }

  const ready = connect();

  return {
    get listening() {
      return listening;
    },
    flush,
    async lookup(hash) {
      if (!listening) return findByKeyHash(db, hash);
      const hit = byHash.get(hash);
      if (hit) return hit;
      const at = epoch;
      const row = await findByKeyHash(db, hash);
      // Unknown keys are not remembered: the map holds only real merchants' keys.
      if (row && listening && at === epoch) {
        if (byHash.size >= MAX_ENTRIES) byHash.clear();
        byHash.set(hash, row);
      }
      return row;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await ready;
      await closeClient();
    },
  };
}
