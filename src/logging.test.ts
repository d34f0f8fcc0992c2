// The log's readable form: the same JSON lines, formatted only for a terminal or LOG_FORMAT=pretty.
import { describe, expect, it } from 'vitest';
import { logFormat, prettyStream } from './logging.js';

describe('log format', () => {
  it('is JSON unless stdout is a terminal or LOG_FORMAT says pretty', () => {
    expect(logFormat(undefined, false)).toBe('json');
    expect(logFormat(undefined, true)).toBe('pretty');
    expect(logFormat('json', true)).toBe('json');
    expect(logFormat('pretty', false)).toBe('pretty');
  });

  it('pretty: one readable line per JSON line, several in one write, the request id and fields kept', () => {
    let out = '';
    const stream = prettyStream((s) => (out += s));
    const t = Date.UTC(2026, 10, 26, 12, 0, 0, 123);
    stream.write(`{"level":30,"time":${t},"pid":1,"hostname":"h","reqId":"r-1","res":{"statusCode":200},"msg":"request completed"}\n` +
      `{"level":50,"time":${t},"pid":1,"hostname":"h","msg":"boom"}\n`);
    expect(out).toBe('12:00:00.123 INFO  [r-1] request completed  res={"statusCode":200}\n12:00:00.123 ERROR boom\n');
  });
});
