// The per-request metrics of /metrics (requests by method, route and status; latency by method and
// route), counted in plain per-route records and formatted only when scraped. prom-client's own
// Counter and Histogram hash and validate their label objects on every observation: a cost on
// every request of the hot paths for what a scrape every 15 s reads.
import type client from 'prom-client';

const BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteRecord {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  buckets: number[];
  sum: number;
  count: number;
}

export interface RouteStats {
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function registerRouteStats(registry: client.Registry): RouteStats {
  const records = new Map<string, RouteRecord>();
  const all = () => [...records.values()].sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method));

  const requests = {
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route, method and status',
    type: 'counter',
    get: async () => ({
      name: requests.name,
      help: requests.help,
      type: 'counter',
      aggregator: 'sum',
      values: all().flatMap((r) =>
        [...r.byStatus].sort((a, b) => a[0] - b[0]).map(([status, n]) => ({ labels: { method: r.method, route: r.route, status: String(status) }, value: n })),
      ),
    }),
  };
  const latency = {
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    type: 'histogram',
    get: async () => ({
      name: latency.name,
      help: latency.help,
      type: 'histogram',
      aggregator: 'sum',
      values: all().flatMap((r) => {
        const labels = { method: r.method, route: r.route };
        let cumulative = 0;
        const out: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
        BUCKETS.forEach((le, i) => {
          cumulative += r.buckets[i];
          out.push({ metricName: `${latency.name}_bucket`, labels: { le, ...labels }, value: cumulative });
        });
        out.push({ metricName: `${latency.name}_bucket`, labels: { le: '+Inf', ...labels }, value: r.count });
        out.push({ metricName: `${latency.name}_sum`, labels, value: r.sum });
        out.push({ metricName: `${latency.name}_count`, labels, value: r.count });
        return out;
      }),
    }),
  };
  registry.registerMetric(requests as unknown as client.Metric);
  registry.registerMetric(latency as unknown as client.Metric);

  return {
    observe(method, route, status, seconds) {
      const key = `${method} ${route}`;
      let r = records.get(key);
      if (!r) {
        r = { method, route, byStatus: new Map(), buckets: new Array<number>(BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
        records.set(key, r);
      }
      r.byStatus.set(status, (r.byStatus.get(status) ?? 0) + 1);
      let i = 0;
      while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
      r.buckets[i]++;
      r.sum += seconds;
      r.count++;
    },
  };
}
