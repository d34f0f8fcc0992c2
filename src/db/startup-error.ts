// A start refused for a reason the operator can act on (another gateway on DATA_DIR, a directory
// the postgres user cannot enter, a changed migration): main.ts and the CLI print its message as
// one line, without a stack trace.
export class StartupError extends Error {
  override name = 'StartupError';
}
