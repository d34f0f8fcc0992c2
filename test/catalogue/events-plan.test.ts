// The catalogue feed's reads (GET /purchase/events) and its prune on a grown catalogue_events whose
// statistics were taken when it was small. Its `at` indexes hold only stamped events (migration
// 079: an unstamped event no longer writes a null into them). Each read asks for `at >=`, `at <` or
// `(at, id) >`, which implies `at is not null`, so it must still find its rows by those indexes,
// never by a scan of the table (counted in buffers: test/plan-buffers.ts). They are not named
// prepared statements: each call is planned with its values (a custom plan).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeStatistics, mostBuffers, planTestDatabase, rolledBack as rolledBackOn, tablePages } from '../plan-buffers.js';
import type { Db } from '../../src/db/database.js';
import {
  eventsExistFrom,
  eventsExistFromStatement,
  eventsRestOfMillisecondStatement,
  eventsSince,
  eventsSinceStatement,
  pruneEventsStatement,
} from '../../src/modules/catalogue/catalogue-repo.js';
import type { RawBuilder } from 'kysely';

const GROWN = 60_000; // stamped events after the statistics were taken (before: 20)
const T0 = Date.parse('2026-01-01T00:00:00Z');

let pool: pg.Pool;
let db: Db;

beforeAll(async () => {
  ({ pool, db } = await planTestDatabase());
  // One event a millisecond from T0, the games in turn; then a few unstamped ones (at null).
  const grow = (from: number, n: number) =>
    pool.query(
      `insert into catalogue_events (game, page, listing_id, type, delta, at)
       select (array['csgo', 'dota2', 'rust', 'tf2'])[1 + g % 4], 1, 'l' || g, 'upsert', 1,
              timestamptz 'epoch' + ($3::bigint + g) * interval '1 millisecond'
         from generate_series($1::int, $1::int + $2 - 1) g`,
      [from, n, T0],
    );
  await grow(1, 20);
  await freezeStatistics(pool, ['catalogue_events']);
  await grow(100, GROWN);
  await pool.query(`insert into catalogue_events (game, page, listing_id, type, delta) select 'csgo', 1, 'u' || g, 'upsert', 1 from generate_series(1, 50) g`);
});
afterAll(async () => pool?.end());

const rolledBack = <T,>(fn: (c: pg.PoolClient) => Promise<T>) => rolledBackOn(pool, fn);

describe('the catalogue feed on a grown table with stale statistics', () => {
  it('the table is large enough that a scan would show, and the unstamped events are in no at index', async () => {
    expect(await tablePages(pool, 'catalogue_events')).toBeGreaterThan(400);
    const r = await pool.query(
      `select (select count(*) from catalogue_events where at is null)::int as unstamped,
              (select count(*) from catalogue_events)::int as total`,
    );
    expect(r.rows[0]).toEqual({ unstamped: 50, total: GROWN + 20 + 50 });
    const idx = await pool.query(`select indexdef from pg_indexes where indexname in ('catalogue_events_at_idx', 'catalogue_events_game_at_idx') order by 1`);
    expect(idx.rows.map((x) => x.indexdef as string).every((d) => d.endsWith('WHERE (at IS NOT NULL)'))).toBe(true);
  });

  const cases: [string, RawBuilder<unknown>][] = [
    ['events since a time, every game', eventsSinceStatement(T0 + 30_000, undefined, 100)],
    ['events since a time, one game', eventsSinceStatement(T0 + 30_000, 'rust', 100)],
    ['the rest of a millisecond', eventsRestOfMillisecondStatement(new Date(T0 + 30_100).toISOString(), 0, T0 + 30_101, undefined)],
    ['whether events exist from a time, one game', eventsExistFromStatement(T0 + 59_000, 'csgo')],
  ];
  for (const [name, statement] of cases) {
    it(`${name}: by an at index`, async () => {
      const q = statement.compile(db);
      expect(await rolledBack((c) => mostBuffers(c, q.sql, q.parameters))).toBeLessThan(60);
    });
  }

  it('the reads answer what the table holds', async () => {
    const all = await eventsSince(db, T0 + 30_000, undefined, 100);
    expect(all).toHaveLength(100);
    expect(Number(all[0]!.at_ms)).toBe(T0 + 30_000);
    const rust = await eventsSince(db, T0 + 30_000, 'rust', 10);
    expect(rust.every((e) => e.game === 'rust')).toBe(true);
    // the last events: g = 60 096 is csgo's (g % 4 = 0), 60 099 the last of all; one past each
    expect(await eventsExistFrom(db, T0 + 60_096, 'csgo')).toBe(true);
    expect(await eventsExistFrom(db, T0 + 60_097, 'csgo')).toBe(false);
    expect(await eventsExistFrom(db, T0 + 60_099, undefined)).toBe(true);
    expect(await eventsExistFrom(db, T0 + 60_100, undefined)).toBe(false);
  });

  it('the prune can take its events by the at index (its condition implies at is not null)', async () => {
    const q = pruneEventsStatement(86_400).compile(db);
    // With scans priced out, a plan without the index would still be a scan: the index must qualify.
    const plan = await rolledBack(async (c) => {
      await c.query('set local enable_seqscan = off');
      return (await c.query(`explain ${q.sql}`, q.parameters as unknown[])).rows.map((x) => x['QUERY PLAN'] as string).join('\n');
    });
    expect(plan).toMatch(/catalogue_events_(game_)?at_idx/);
    expect(plan).not.toMatch(/Seq Scan on catalogue_events/);
  });
});
