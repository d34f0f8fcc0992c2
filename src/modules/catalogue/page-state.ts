// Per instance: the catalogue's page versions, live counts, cursors and rebuild lease held in
// memory, so a page request with a matching If-None-Match is answered (304) and a cached page
// body is sent without a database round trip.
//
// How it stays current without a lock shared by writers: writers only add unstamped events
// (catalogue_events.delta, `at` null) and never notify (a NOTIFY takes PostgreSQL's cluster-wide commit lock). The
// stamper — every STAMP_EVERY_MS on each instance, and every feed read — folds committed events
// into catalogue_pages and, in the same statement, NOTIFYs 'catalogue_changed'; rebuild-lease
// changes notify too. Each instance LISTENs on a dedicated connection and re-reads every page
// row (one small query, coalesced). So the memory is the folded state: another instance's sale
// shows here within one stamp interval (≈ STAMP_EVERY_MS + a notification). This instance's own
// writes (noteLocalWrite, called after their commit) are exact: until a stamp that began after
// them has been read back, requests take the database path, which counts unstamped events too.
// The memory is used only while the listener is up: when it drops or (re)connects, it is
// dropped and re-read, since notifications may have been lost meanwhile.
//
// Versions in memory and in the database are the same measure (the count of the page's
// committed events; the database path adds the unstamped ones), so the page-byte cache is keyed
// by one version whichever path built the entry.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { startListener, type Listener } from '../../db/listener.js';
import { noteDatabaseError } from '../../db/outage.js';
import { CATALOGUE_CHANGED_CHANNEL, readPageStates, stampEvents, type PageStateRow } from './catalogue-repo.js';

export const STAMP_EVERY_MS = 200;

export interface MemoryMeta {
  version: number;
  liveCount: number;
  /** Page cursor (last_update_at), epoch milliseconds. */
  lastUpdateMs: number;
}

export interface GameSnapshot {
  /** Milliseconds of rebuild lease left (0: none). */
  rebuildLeftMs(): number;
  page(page: number): MemoryMeta | undefined;
  whole: MemoryMeta;
}

export interface PageState {
  /** The game's state from memory; undefined when the database must be asked (listener down, local write pending). */
  snapshot(game: string): GameSnapshot | undefined;
  /** Call after committing a listing change on this instance: reads go to the database until it is stamped and read back. */
  noteLocalWrite(): void;
  /** Re-reads the state now (after a local rebuild-lease change). */
  refresh(): Promise<void>;
  /** Starts the listener and the stamper (once per instance). */
  start(connection: pg.ClientConfig): void;
  stop(): Promise<void>;
}

export function createPageState(deps: { db: Db; log: Logger; stampEveryMs?: number }): PageState {
  const { db, log } = deps;
  const stampEveryMs = deps.stampEveryMs ?? STAMP_EVERY_MS;
  let games = new Map<string, { pages: Map<number, MemoryMeta>; whole: MemoryMeta }>();
  let rebuildUntil = 0; // Date.now() based
  let loaded = false;
  let stopped = false;
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> = Promise.resolve();
  // Local writes: `localSeq` counts them; `cleanSeq` is the last one known stamped and read back.
  let localSeq = 0;
  let cleanSeq = 0;
  // Refreshes run one at a time (each snapshot later than the last); a request meanwhile reruns.
  let inFlight: Promise<void> | undefined;
  let again = false;

  function apply(rows: PageStateRow[], rebuildLeftMs: number) {
    const next = new Map<string, { pages: Map<number, MemoryMeta>; whole: MemoryMeta }>();
    for (const r of rows) {
      let g = next.get(r.game);
      if (!g) {
        g = { pages: new Map(), whole: { version: 0, liveCount: 0, lastUpdateMs: 0 } };
        next.set(r.game, g);
      }
      const meta = { version: Number(r.version), liveCount: Number(r.live_count), lastUpdateMs: Math.min(r.updated_at.getTime(), Number(r.feed_now_ms)) };
      g.pages.set(r.page, meta);
      g.whole.version += meta.version;
      g.whole.liveCount += meta.liveCount;
      // As gameMeta: the latest page change, but never past the feed's "now".
      g.whole.lastUpdateMs = Math.max(g.whole.lastUpdateMs, meta.lastUpdateMs);
    }
    games = next;
    rebuildUntil = rebuildLeftMs > 0 ? Date.now() + rebuildLeftMs : 0;
    loaded = true;
  }

  async function readOnce(): Promise<void> {
    const { rows, rebuildLeftMs } = await readPageStates(db);
    apply(rows, rebuildLeftMs);
  }

  function refresh(): Promise<void> {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      try {
        do {
          again = false;
          await readOnce();
        } while (again);
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  }

  function drop() {
    loaded = false;
    games = new Map();
  }

  let listener: Listener | undefined;
  const listening = () => listener?.up === true;

  // ---- stamper --------------------------------------------------------------------------------
  // Stamps committed events so unstamped rows stay few and other instances learn of changes; a
  // tick that follows local writes also reads the state back, which makes them exact here.
  const tick = () => {
    const seq = localSeq;
    ticking = (async () => {
      await stampEvents(db);
      if (seq > cleanSeq) {
        await refresh();
        cleanSeq = Math.max(cleanSeq, seq);
      }
    })()
      .catch((err) => {
        if (!noteDatabaseError(db, err)) log.warn({ err }, 'catalogue event stamping failed; retrying');
      })
      .finally(() => {
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(tick, stampEveryMs);
    timer.unref();
  };

  return {
    snapshot(game) {
      if (!listening() || !loaded || localSeq !== cleanSeq) return undefined;
      const g = games.get(game);
      if (!g) return undefined;
      const until = rebuildUntil;
      return {
        rebuildLeftMs: () => (until > 0 ? Math.max(0, until - Date.now()) : 0),
        page: (n) => g.pages.get(n),
        whole: g.whole,
      };
    },
    noteLocalWrite() {
      localSeq++;
    },
    refresh: () => (listening() ? refresh() : Promise.resolve()),
    start(conn) {
      if (started) return;
      started = true;
      listener = startListener({
        connection: conn,
        channel: CATALOGUE_CHANGED_CHANNEL,
        log,
        db, // a database that is away is the outage's one warning, not this listener's
        lostMessage: 'catalogue notification connection lost; page versions read from the database until it is back',
        onNotify: () => {
          // A failed re-read must not leave old versions served: the database path until the next one.
          if (listening()) refresh().catch((err) => { drop(); if (!noteDatabaseError(db, err)) log.warn({ err }, 'catalogue page versions could not be read'); });
        },
        onUp: refresh,
        onDown: drop,
      });
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await listener?.stop();
    },
  };
}
