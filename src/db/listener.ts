// A LISTEN on a dedicated connection that comes back by itself (used by the per-instance caches:
// API keys, catalogue page versions). `up` says whether notifications are being received: a
// cache must not serve from memory otherwise, since notifications sent meanwhile are lost.
// onDown runs when the connection drops (and at stop); onUp once LISTEN is in place again.
import pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_MS = 1000;

export interface Listener {
  readonly up: boolean;
  stop(): Promise<void>;
}

export function startListener(o: {
  connection: pg.ClientConfig;
  channel: string;
  log: Logger;
  /** Logged (warn) when the connection is lost. */
  lostMessage: string;
  onNotify(payload: string): void;
  onUp(): void | Promise<void>;
  onDown(): void;
}): Listener {
  let up = false;
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  async function closeClient(): Promise<void> {
    up = false;
    o.onDown();
    const c = client;
    client = undefined;
    c?.removeAllListeners();
    c?.on('error', () => {});
    await c?.end().catch(() => {});
  }

  function lost(err?: Error) {
    if (!up && !client) return;
    if (err && !stopped) o.log.warn({ err }, o.lostMessage);
    void closeClient();
    if (!stopped) {
      retry = setTimeout(() => void connect(), RECONNECT_MS);
      retry.unref();
    }
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client(o.connection);
    client = c;
    c.on('error', (err) => lost(err));
    c.on('end', () => lost(new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === o.channel) o.onNotify(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`listen ${o.channel}`);
      if (client !== c || stopped) return;
      up = true;
      await o.onUp(); // anything known before may have missed a notification
    } catch (err) {
      if (client === c) lost(err as Error);
    }
  }

  const ready = connect();
  return {
    get up() {
      return up;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await ready;
      await closeClient();
    },
  };
}
