// A raw TCP client for what fetch and inject cannot send: trickled bytes, malformed HTTP, huge
// headers. Collects everything the server writes and when it closed the connection.
import net from 'node:net';

export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the received text when the server closes, or rejects after timeoutMs. */
  closed(timeoutMs: number): Promise<{ text: string; afterMs: number }>;
  write(data: string): boolean;
}

export async function rawConnect(baseUrl: string): Promise<RawConnection> {
  const u = new URL(baseUrl);
  const socket = net.connect({ host: u.hostname, port: Number(u.port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const started = Date.now();
  let text = '';
  let closedAt: number | undefined;
  socket.on('data', (d) => (text += d.toString('latin1')));
  socket.on('error', () => {});
  const done = new Promise<void>((resolve) => socket.once('close', () => ((closedAt = Date.now()), resolve())));
  return {
    socket,
    received: () => text,
    write: (data) => (socket.destroyed ? false : socket.write(data)),
    async closed(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`connection still open after ${timeoutMs} ms; received: ${text.slice(0, 300)}`)), timeoutMs);
      });
      try {
        await Promise.race([done, timeout]);
      } finally {
        clearTimeout(timer);
        socket.destroy();
      }
      return { text, afterMs: (closedAt ?? Date.now()) - started };
    },
  };
}

/** Splits a raw HTTP/1.1 response into status, lower-cased headers and the body. */
export function parseResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end >= 0 ? text.slice(0, end) : text;
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: end >= 0 ? text.slice(end + 4) : '' };
}
