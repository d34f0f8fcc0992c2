// After-commit signals: a tap fires after a transaction that ran a statement naming its marker
// (e.g. `job_outbox`) has committed, or after such a statement ran outside a transaction. So a
// consumer of what was written (the job relay) can be woken in-process the moment the rows are
// visible, without every writer having to call it, and without a NOTIFY in the writer's
// transaction (a NOTIFY takes PostgreSQL's cluster-wide commit lock).
//
// Works at Kysely's driver level: it sees every statement and the transaction boundaries of
// `db.transaction()`. A rolled-back transaction fires nothing; a savepoint rolled back after a
// marked statement still fires (a spurious wake-up is harmless, a missed one is not: consumers
// also poll).
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';

export interface CommitTap {
  marker: string;
  fire: () => void;
}

export class CommitTaps {
  private readonly taps: CommitTap[] = [];

  /** Calls `fire` after each commit of a transaction (or autocommit statement) whose SQL named `marker`. */
  on(marker: string, fire: () => void): () => void {
    const tap = { marker, fire };
    this.taps.push(tap);
    return () => {
      const i = this.taps.indexOf(tap);
      if (i >= 0) this.taps.splice(i, 1);
    };
  }

  /** The taps whose marker `sql` names (none most of the time: one `includes` per tap). */
  matching(sql: string): CommitTap[] | undefined {
    let hit: CommitTap[] | undefined;
    for (const t of this.taps) if (sql.includes(t.marker)) (hit ??= []).push(t);
    return hit;
  }

  static fire(taps: Iterable<CommitTap>): void {
    for (const t of taps) {
      try {
        t.fire();
      } catch {
        // a consumer's wake-up must never fail the writer
      }
    }
  }
}

class TappedConnection implements DatabaseConnection {
  inTransaction = false;
  pending = new Set<CommitTap>();
  constructor(
    readonly inner: DatabaseConnection,
    private readonly taps: CommitTaps,
  ) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const hit = this.taps.matching(q.sql);
    const result = await this.inner.executeQuery<R>(q);
    if (hit) {
      if (this.inTransaction) for (const t of hit) this.pending.add(t);
      else CommitTaps.fire(hit);
    }
    return result;
  }

  streamQuery<R>(q: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(q, chunkSize);
  }
}

/** Wraps a Kysely driver so that `taps` fire after the commits that concern them. */
export function tapCommits(driver: Driver, taps: CommitTaps): Driver {
  const inner = (c: DatabaseConnection) => (c as TappedConnection).inner;
  return {
    init: () => driver.init(),
    acquireConnection: async () => new TappedConnection(await driver.acquireConnection(), taps),
    async beginTransaction(c: DatabaseConnection, settings: TransactionSettings) {
      await driver.beginTransaction(inner(c), settings);
      (c as TappedConnection).inTransaction = true;
    },
    async commitTransaction(c: DatabaseConnection) {
      const tc = c as TappedConnection;
      const fired = tc.pending;
      tc.pending = new Set();
      tc.inTransaction = false;
      await driver.commitTransaction(inner(c));
      if (fired.size) CommitTaps.fire(fired);
    },
    async rollbackTransaction(c: DatabaseConnection) {
      const tc = c as TappedConnection;
      tc.pending.clear();
      tc.inTransaction = false;
      await driver.rollbackTransaction(inner(c));
    },
    savepoint: driver.savepoint && ((c, name, compile) => driver.savepoint!(inner(c), name, compile)),
    rollbackToSavepoint: driver.rollbackToSavepoint && ((c, name, compile) => driver.rollbackToSavepoint!(inner(c), name, compile)),
    releaseSavepoint: driver.releaseSavepoint && ((c, name, compile) => driver.releaseSavepoint!(inner(c), name, compile)),
    releaseConnection: (c: DatabaseConnection) => driver.releaseConnection(inner(c)),
    destroy: () => driver.destroy(),
  };
}
