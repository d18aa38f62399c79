import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineFunction, defineTool } from '../core/index.js';
import { DEFAULT_STD_LIMITS, type StdLimits } from './std-limits.js';

const algorithm = z.enum(['sha256', 'sha1', 'md5', 'sha512']).default('sha256');
const encoding = z.enum(['hex', 'base64']).default('hex').describe('Output encoding (default hex).');
const inputEncoding = z.enum(['utf8', 'base64', 'hex']).default('utf8').describe('How `data` is encoded (default utf8 text).');

/** Longest HMAC key, in characters: keys are short; a longer one is hashed down anyway. */
const MAX_KEY_CHARS = 64 * 1024;

/** `crypto`: hashes, HMACs and random values; inputs are bounded by `maxInputChars`. */
export function createCryptoTool(limits: Partial<Pick<StdLimits, 'maxInputChars'>> = {}) {
  const data = z.string().max(limits.maxInputChars ?? DEFAULT_STD_LIMITS.maxInputChars);
  return defineTool({
    name: 'crypto',
    description: 'Hash and HMAC data (sha256, sha1, md5, sha512), make random UUIDs and random bytes.',
    functions: {
      hash: defineFunction({
        description: 'Hashes data with sha256 (default), sha1, md5 or sha512; returns the digest in hex (default) or base64.',
        parameters: z.object({ data, algorithm, encoding, inputEncoding }),
        returns: z.string(),
        handler: ({ data, algorithm, encoding, inputEncoding }) =>
          createHash(algorithm).update(Buffer.from(data, inputEncoding)).digest(encoding),
      }),
      hmac: defineFunction({
        description: 'HMAC of data with a key (sha256 by default); returns the digest in hex (default) or base64.',
        parameters: z.object({ key: z.string().max(MAX_KEY_CHARS), data, algorithm, encoding, inputEncoding }),
        returns: z.string(),
        handler: ({ key, data, algorithm, encoding, inputEncoding }) =>
          createHmac(algorithm, key).update(Buffer.from(data, inputEncoding)).digest(encoding),
      }),
      randomUUID: defineFunction({
        description: 'A random (version 4) UUID.',
        parameters: z.object({}),
        returns: z.string(),
        handler: () => randomUUID(),
      }),
      randomBytes: defineFunction({
        description: 'Cryptographically random bytes, as hex (default) or base64.',
        parameters: z.object({ length: z.number().int().min(1).max(65_536).describe('Number of bytes.'), encoding }),
        returns: z.string(),
        handler: ({ length, encoding }) => randomBytes(length).toString(encoding),
      }),
    },
  });
}
