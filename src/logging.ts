// The gateway's one log: pino JSON lines on stdout, one schema for every line —
// {"level":30,"time":<epoch ms>,"pid":…,"hostname":…,"reqId"?:…,"msg":…, fields} — the access log,
// graphile-worker's lines and the start and stop lines alike. A readable form only when stdout is a
// terminal or LOG_FORMAT=pretty (a small formatter of those same lines; no extra dependency).
// Secrets never go to this log: what a first start must show once goes to stderr (main.ts).
import pino, { type Logger } from 'pino';
import { Logger as WorkerLogger } from 'graphile-worker';

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT, else pretty on a terminal and JSON everywhere else (a pipe, a file, a supervisor). */
export function logFormat(setting: LogFormat | undefined, stdoutIsTty = Boolean(process.stdout.isTTY)): LogFormat {
  return setting ?? (stdoutIsTty ? 'pretty' : 'json');
}

export function createLogger(opts: { level: string; format: LogFormat }): Logger {
  if (opts.format === 'json') return pino({ level: opts.level });
  return pino({ level: opts.level }, prettyStream((s) => process.stdout.write(s)));
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'v']);

/** One JSON log line as a person reads it: `12:00:00.123 INFO  [req-id] message key=value …`. */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = new Date(Number(o.time)).toISOString().slice(11, 23);
  const level = (LEVELS[Number(o.level)] ?? String(o.level)).padEnd(5);
  const id = o.reqId ? ` [${String(o.reqId)}]` : '';
  const rest = Object.entries(o)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' ');
  return `${time} ${level}${id} ${String(o.msg ?? '')}${rest ? `  ${rest}` : ''}`;
}

/** A pino destination that writes each JSON line (several may come in one write) in the pretty form. */
export function prettyStream(out: (s: string) => unknown): { write(chunk: string): boolean } {
  return {
    write(chunk: string) {
      let text = '';
      for (const line of chunk.split('\n')) if (line) text += `${prettyLine(line)}\n`;
      out(text);
      return true;
    },
  };
}

/**
 * graphile-worker's own lines (its scope as fields) through the gateway's logger. Its info lines
 * (one per job run, the crontab it did not find) are debug here: the gateway's jobs say what they do.
 */
export function workerLogger(log: Logger, skip?: (level: string, message: string, meta?: Record<string, unknown>) => boolean): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    if (skip?.(level, message, meta)) return; // said otherwise (a database that is away: its one warning)
    const fields = { worker: scope, ...(meta ?? {}) };
    if (level === 'error') log.error(fields, message);
    else if (level === 'warning') log.warn(fields, message);
    else log.debug(fields, message);
  });
}
