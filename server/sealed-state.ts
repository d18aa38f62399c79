import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The environment variable that gives every replica the same key for sealed state (any string of 32+ characters). */
export const STATE_KEY_ENV = 'AGENT_SPACES_STATE_KEY';

/**
 * Seals small JSON values a client must carry and hand back unchanged (an approval round's
 * `requestState`, a result page's handle) with AES-256-GCM: the client can neither read nor alter
 * them, and a sealed value made for one purpose does not open for another. Expiry and one-time use are
 * the caller's, carried inside the value.
 */
export interface Sealer {
  seal(purpose: string, value: unknown): string;
  /** The value, or `undefined` when the text was not sealed by this key for this purpose (altered, forged, or another purpose's). */
  open(purpose: string, sealed: string): unknown;
}

/**
 * A sealer with `key` (a string of at least 32 characters, hashed to 256 bits), else with
 * `$AGENT_SPACES_STATE_KEY`, else with a random key of this process: state then opens only in the
 * process that sealed it, which is all a single server needs. Replicas behind a load balancer share one key.
 */
export function createSealer(key: string | undefined = process.env[STATE_KEY_ENV]): Sealer {
  if (key !== undefined && key.length < 32) {
    throw new RangeError(
      `the state key must be at least 32 characters (got ${key.length}); set ${STATE_KEY_ENV} to a long random string, or leave it unset for a random key per process`,
    );
  }
  const secret = key === undefined ? randomBytes(32) : createHash('sha256').update(`agent-spaces state key\0${key}`).digest();
  return {
    seal(purpose, value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      // The purpose is authenticated, not stored: a handle cannot be handed back as an approval state.
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(purpose, sealed) {
      if (typeof sealed !== 'string' || !sealed.startsWith('v1.') || sealed.length > 16_384) return undefined;
      const bytes = Buffer.from(sealed.slice(3), 'base64url');
      if (bytes.length < 29) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', secret, bytes.subarray(0, 12));
        decipher.setAAD(Buffer.from(purpose));
        decipher.setAuthTag(bytes.subarray(12, 28));
        const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    },
  };
}
