// One form for every state machine of the service (deposits 3.1, purchases 3.2, withdrawals):
// transitions as data (event → from, to, fail reason, ledger movement) plus what entering a status
// does. Pure: the feature's transitions module applies a transition with one guarded UPDATE
// (WHERE status IN <from>), so a concurrent change loses cleanly, and performs the movement and
// the entry effects in the same transaction.
//
// Events are verbs (commit, send, accept, decline, expire, cancel, release, revert, fail…).
// Money moves with the TRANSITION (one status can be reached with different movements, e.g. a
// deposit completes by accept → credit or by release of a hold → release); webhooks, jobs and
// reservations come with the STATUS entered.

export interface Transition<S extends string, M extends string = never> {
  from: readonly S[];
  to: S;
  /** fail_reason the transition writes itself (otherwise the caller gives one, if any). */
  failReason?: string;
  /** The ledger movement applied with the change (spec 3.4). */
  movement?: M;
}

export interface StateMachine<S extends string, E extends string, M extends string, Entry> {
  statuses: readonly S[];
  transitions: Readonly<Record<E, Transition<S, M>>>;
  /** What entering each status does (webhook, jobs, reservation or listing release…). */
  onEnter: Readonly<Record<S, Entry & { terminal: boolean }>>;
}

/** Declares a machine (identity, for inference). */
export function stateMachine<S extends string, E extends string, M extends string, Entry>(m: StateMachine<S, E, M, Entry>): StateMachine<S, E, M, Entry> {
  return m;
}

/** The transition `event` from status `from`, or undefined when the table does not allow it. */
export function transitionFrom<S extends string, E extends string, M extends string>(
  m: StateMachine<S, E, M, unknown>,
  event: E,
  from: S,
): Transition<S, M> | undefined {
  const t = Object.hasOwn(m.transitions, event) ? m.transitions[event] : undefined;
  return t && t.from.includes(from) ? t : undefined;
}

export function isTerminal<S extends string>(m: StateMachine<S, string, string, unknown>, status: S): boolean {
  return m.onEnter[status].terminal;
}

export function eventsOf<E extends string>(m: StateMachine<string, E, string, unknown>): E[] {
  return Object.keys(m.transitions) as E[];
}
