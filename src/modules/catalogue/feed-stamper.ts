// Per instance: stamps committed catalogue events every STAMP_EVERY_MS (migration 008), so the
// unstamped rows that page reads add up stay few even when nobody reads the feed. Idle cost: one
// index probe per tick; several instances stamping at once just queue on the clock row.
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { stampEvents } from './catalogue-repo.js';

const STAMP_EVERY_MS = 200;

export function startFeedStamper(db: Db, log: Logger, everyMs = STAMP_EVERY_MS): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = stampEvents(db)
      .then(() => undefined, (err) => log.warn({ err }, 'catalogue event stamping failed; retrying'))
      .finally(() => {
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(tick, everyMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
