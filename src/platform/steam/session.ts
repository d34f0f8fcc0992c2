// Signing a bot in over HTTP alone: steam-session's web-browser flow. A stored refresh token
// (≈200 days) gives web cookies directly; without one (or once it is refused) the account name,
// password and a steam-totp code from the shared secret start a new session, whose refresh token
// the caller stores (encrypted) in the database — never on local disk.
import SteamTotp from 'steam-totp';
import { EAuthTokenPlatformType, LoginSession } from 'steam-session';

export interface SignInRequest {
  accountName: string;
  password: string;
  sharedSecret: string;
  refreshToken?: string;
}

export interface WebSession {
  /** Cookies for steamcommunity.com (steamLoginSecure=<steamid>||<access token>, sessionid…). */
  cookies: string[];
  /** A new refresh token to store, when the sign-in made one. */
  refreshToken?: string;
}

export interface SessionProvider {
  signIn(req: SignInRequest): Promise<WebSession>;
}

/** A bot account could not sign in to Steam: its driver leaves the rotation with this message as the reason. */
export class BotSignInError extends Error {}

/**
 * Steam refused the sign-in for its rate limit (EResult RateLimitExceeded): no sign-in is tried for
 * the bot before `retryAfterMs` has passed (the driver shows when, as the bot's rotation reason).
 */
export class SignInRateLimitedError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`sign-in refused by Steam for its rate limit; not tried again for ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}

/** EResult.RateLimitExceeded, as steam-session reports it on a refused sign-in. */
const RATE_LIMIT_EXCEEDED = 84;
/** Steam names no time with a rate-limited sign-in; its login limit is known to last about half an hour. */
export const SIGN_IN_RATE_LIMIT_WAIT_MS = 30 * 60_000;
/** A sign-in error as the driver takes it: a rate limit with its wait (a Retry-After when one is given). */
function signInError(err: Error & { eresult?: number; retryAfter?: number }): Error {
  if (err.eresult === RATE_LIMIT_EXCEEDED || /RateLimitExceeded|rate limit/i.test(err.message)) {
    return new SignInRateLimitedError(err.retryAfter && err.retryAfter > 0 ? err.retryAfter * 1000 : SIGN_IN_RATE_LIMIT_WAIT_MS);
  }
  return err;
}

export function steamSessionProvider(timeoutMs = 30_000): SessionProvider {
  const provider: SessionProvider = {
    async signIn(req) {
      if (req.refreshToken) {
        const session = new LoginSession(EAuthTokenPlatformType.WebBrowser);
        try {
          session.refreshToken = req.refreshToken;
          return { cookies: await session.getWebCookies() };
        } catch {
          // Expired or revoked: sign in with the credentials below.
        }
      }
      const session = new LoginSession(EAuthTokenPlatformType.WebBrowser);
      session.loginTimeout = timeoutMs;
      const authenticated = new Promise<void>((resolve, reject) => {
        session.once('authenticated', () => resolve());
        session.once('timeout', () => reject(new BotSignInError('sign-in timed out')));
        session.once('error', (err: Error) => reject(new BotSignInError(`sign-in failed: ${err.message}`)));
      });
      const start = await session.startWithCredentials({
        accountName: req.accountName,
        password: req.password,
        steamGuardCode: SteamTotp.generateAuthCode(req.sharedSecret),
      });
      if (start.actionRequired) {
        session.cancelLoginAttempt();
        throw new BotSignInError('sign-in needs an action the gateway cannot take (email code or app approval): check the shared secret');
      }
      await authenticated;
      return { cookies: await session.getWebCookies(), refreshToken: session.refreshToken };
    },
  };
  return { signIn: (req) => provider.signIn(req).catch((err: Error) => { throw signInError(err); }) };
}
