// One HTTP request on a kept-alive agent, and a quantile of sorted latencies: shared by the load
// generators that time each request themselves (load.ts's paced client, timed-load.ts).
import http from 'node:http';

/** Sends one request; answers its status (−1 when it failed) and the body's length, the body discarded. */
export function httpOnce(url: string, opts: { agent: http.Agent; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0;
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: opts.agent }, (res) => {
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', () => resolve({ status: -1, bytes }));
    });
    req.on('error', () => resolve({ status: -1, bytes }));
    req.end(opts.body);
  });
}

/** The q-quantile (0–1) of ascending `sorted`, the nearest rank below; undefined when empty. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : undefined;
}
