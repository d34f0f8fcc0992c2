// Bot secrets at rest: AES-256-GCM under BOT_SECRETS_KEY (32 bytes, base64 or hex). A stored
// value is iv (12) | tag (16) | ciphertext; the bot id is bound as associated data, so a secret
// copied onto another bot's row does not decrypt.
import crypto from 'node:crypto';

export class SecretKeyError extends Error {}

export interface BotSecrets {
  password: string;
  shared_secret: string;
  identity_secret: string;
  /**
   * A stored web session (steamcommunity cookies, steamLoginSecure=<steamid>||<access token>…),
   * used as is when present: sign-in over HTTP alone, e.g. against a stand-in platform.
   */
  web_cookies?: string[];
}

/** What is sealed with the bot's secrets: bound to the account so a copied row does not open. */
export const secretsAad = (accountName: string) => `bot:${accountName.toLowerCase()}`;
export const refreshTokenAad = (accountName: string) => `bot-refresh:${accountName.toLowerCase()}`;
/** The bot's outbound proxy URL (it may carry the proxy's credentials). */
export const proxyAad = (accountName: string) => `bot-proxy:${accountName.toLowerCase()}`;

// The key's format is a setting's: config-parse.ts reads it (config.ts checks it at start).
export { parseSecretsKey } from '../../config-parse.js';

export interface SecretBox {
  seal(plain: string, aad: string): Buffer;
  open(sealed: Buffer, aad: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  return {
    seal(plain, aad) {
      const iv = crypto.randomBytes(12);
      const c = crypto.createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    open(sealed, aad) {
      if (sealed.length < 28) throw new SecretKeyError('stored secret is truncated');
      const d = crypto.createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      d.setAAD(Buffer.from(aad, 'utf8'));
      d.setAuthTag(sealed.subarray(12, 28));
      try {
        return Buffer.concat([d.update(sealed.subarray(28)), d.final()]).toString('utf8');
      } catch {
        throw new SecretKeyError('stored secret does not decrypt with BOT_SECRETS_KEY (wrong key or tampered row)');
      }
    },
  };
}
