// nock's interceptor stays on in a test worker once any file has loaded it (the suite keeps one
// module graph per worker), and a proxy agent's socket does not survive it. Files that test real
// proxies turn it off for their run and back on after, for the files that follow.
import nock from 'nock';

/** Turns nock's interceptor off if it is on; returns what turns it back on. */
export function withoutNock(): () => void {
  const wasOn = nock.isActive();
  if (wasOn) nock.restore();
  return () => {
    if (wasOn) nock.activate();
  };
}
