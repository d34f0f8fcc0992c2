// Signing a bot in over HTTP alone: steam-session's web-browser flow. A stored refresh token
// (≈200 days) gives web cookies directly; without one (or once it is refused) the account name,
// password and a steam-totp code from the shared secret start a new session, whose refresh token
// the caller stores (encrypted) in the database — never on local disk. A stored refresh token near
// its end is renewed on the way (when the platform grants it). Every request goes to the configured
// hosts and through the bot's own proxy (bot-route.ts).
import SteamTotp from 'steam-totp';
import { EAuthTokenPlatformType, LoginSession } from 'steam-session';
import { DEFAULT_LOGIN_API_URL, DEFAULT_LOGIN_URL, routeLoginSession, type LoginHosts } from './bot-route.js';

export interface SignInRequest {
  accountName: string;
  password: string;
  sharedSecret: string;
  refreshToken?: string;
  /** The bot's outbound proxy (http://, https://, socks5://…); none: direct. */
  proxy?: string;
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

/** A stored refresh token is renewed once it has less than this left (it lasts about 200 days). */
export const RENEW_REFRESH_TOKEN_WITHIN_MS = 30 * 86_400_000;

/** When a refresh token (a JWT) expires; undefined when it cannot be read. */
function expiresAt(token: string): number | undefined {
  try {
    const exp = (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export function steamSessionProvider(timeoutMs = 30_000, hosts: LoginHosts = { loginApiUrl: DEFAULT_LOGIN_API_URL, loginUrl: DEFAULT_LOGIN_URL }): SessionProvider {
  const newSession = (req: SignInRequest) => {
    const session = new LoginSession(EAuthTokenPlatformType.WebBrowser);
    routeLoginSession(session, hosts, req.proxy);
    return session;
  };
  const provider: SessionProvider = {
    async signIn(req) {
      if (req.refreshToken) {
        const session = newSession(req);
        try {
          session.refreshToken = req.refreshToken;
          let renewed: string | undefined;
          const exp = expiresAt(req.refreshToken);
          if (exp !== undefined && exp - Date.now() < RENEW_REFRESH_TOKEN_WITHIN_MS) {
            // The platform decides whether it renews; a refusal keeps the token in use (and once it
            // has expired, the credentials below make a new one).
            renewed = await session.renewRefreshToken().then((did) => (did ? session.refreshToken : undefined), () => undefined);
          }
          return { cookies: await session.getWebCookies(), ...(renewed ? { refreshToken: renewed } : {}) };
        } catch {
          // Expired or revoked: sign in with the credentials below.
        }
      }
      const session = newSession(req);
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
