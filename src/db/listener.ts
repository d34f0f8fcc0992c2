// A LISTEN on a dedicated connection that comes back by itself (used by the per-instance caches:
// API keys, catalogue page versions). `up` says whether notifications are being received: a
// cache must not serve from memory otherwise, since notifications sent meanwhile are lost.
// onDown runs when the connection drops (and at stop); onUp once LISTEN is in place again.
//
// A database that restarts or fails over ends the connection (57P01, a reset, a close): the loss
// is noted on the database's outage (db/outage.ts: one warning for the whole gateway) and the
// connection is made again every RECONNECT_MS, quietly, until LISTEN is in place. A connection
// that silently stopped answering (a failover that left it half-open) is found by a heartbeat
// query that gets no answer in time, and made again the same way.
import pg from 'pg';
import type { Logger } from 'pino';
import { noteDatabaseError } from './outage.js';

const RECONNECT_MS = 1000;
const HEARTBEAT_MS = 5000;
const HEARTBEAT_TIMEOUT_MS = 5000;

export interface Listener {
  readonly up: boolean;
  stop(): Promise<void>;
}

export function startListener(o: {
  connection: pg.ClientConfig;
  channel: string;
  log: Logger;
  /** The pool or Kysely instance whose database outage a loss is noted on (db/outage.ts). */
  db?: object;
  /** Logged (warn) when the connection is lost for another reason than the database being away. */
  lostMessage: string;
  onNotify(payload: string): void;
  onUp(): void | Promise<void>;
  onDown(): void;
  /** Tests: how often the connection is checked. */
  heartbeatMs?: number;
}): Listener {
  let up = false;
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  // Set from a loss until LISTEN is in place again: the reconnect attempts between log nothing.
  let lostSince = 0;

  async function closeClient(): Promise<void> {
    up = false;
    clearTimeout(heartbeat);
    o.onDown();
    const c = client;
    client = undefined;
    c?.removeAllListeners();
    c?.on('error', () => {});
    await c?.end().catch(() => {});
  }

  function lost(err?: Error) {
    if (!up && !client) return;
    if (err && !stopped && !lostSince && !noteDatabaseError(o.db, err)) o.log.warn({ err }, o.lostMessage);
    if (!stopped && !lostSince) lostSince = Date.now();
    void closeClient();
    if (!stopped) {
      clearTimeout(retry);
      retry = setTimeout(() => void connect(), RECONNECT_MS);
      retry.unref();
    }
  }

  function checkLater(c: pg.Client) {
    heartbeat = setTimeout(() => {
      if (client !== c || stopped) return;
      const noAnswer = setTimeout(() => {
        if (client === c) lost(Object.assign(new Error('Connection terminated: the LISTEN connection did not answer its heartbeat'), { code: '08006' }));
      }, HEARTBEAT_TIMEOUT_MS);
      c.query('select 1').then(
        () => {
          clearTimeout(noAnswer);
          if (client === c && !stopped) checkLater(c);
        },
        (err: Error) => {
          clearTimeout(noAnswer);
          if (client === c) lost(err);
        },
      );
    }, o.heartbeatMs ?? HEARTBEAT_MS);
    heartbeat.unref();
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    // Named in pg_stat_activity, so an operator (and a test) can tell the listeners apart.
    const c = new pg.Client({ ...o.connection, keepAlive: true, application_name: `gateway listen ${o.channel}` });
    client = c;
    c.on('error', (err) => lost(err));
    c.on('end', () => lost(new Error('Connection terminated: the LISTEN connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === o.channel) o.onNotify(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`listen ${o.channel}`);
      if (client !== c || stopped) return;
      up = true;
      if (lostSince) o.log.debug({ channel: o.channel, downMs: Date.now() - lostSince }, 'listening again');
      lostSince = 0;
      checkLater(c);
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
