// Prometheus metrics: requests by route and status, latency, and the job queue depth.
import client from 'prom-client';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.js';

export function registerMetrics(app: FastifyInstance, db: Db): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new client.Gauge({
    name: 'gateway_job_queue_depth',
    help: 'Jobs waiting in the queue (graphile-worker), by task',
    labelNames: ['task'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await sql<{ task: string; n: number }>`
          select t.identifier as task, count(*)::int as n
            from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
           where j.locked_at is null group by t.identifier`.execute(db);
        for (const r of rows.rows) this.set({ task: r.task }, r.n);
      } catch {
        // the database being down is reported by /readyz; metrics stay available
      }
    },
  });

  new client.Gauge({
    name: 'gateway_webhook_events_undelivered',
    help: 'Webhook events not delivered: pending (waiting for an attempt) or exhausted (gave up)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await sql<{ state: string; n: number }>`
          select state, count(*)::int as n from webhook_events where state <> 'delivered' group by state`.execute(db);
        this.set({ state: 'pending' }, 0);
        this.set({ state: 'exhausted' }, 0);
        for (const r of rows.rows) this.set({ state: r.state }, r.n);
      } catch {
        // reported by /readyz
      }
    },
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route };
    requests.inc({ ...labels, status: String(reply.statusCode) });
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}
