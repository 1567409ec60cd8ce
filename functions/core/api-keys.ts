/**
 * API keys are random 256-bit secrets shown once; only their SHA-256 digest is stored. A fast hash
 * is enough (and standard, as in Unkey or Stripe) because the keys are high-entropy, unlike
 * passwords; it keeps the authorizer to one cheap lookup.
 */
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'mda_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key: prefix + 43 base64url characters (32 random bytes). */
export function mintApiKey(random: (size: number) => Buffer = randomBytes): string {
  return API_KEY_PREFIX + random(32).toString('base64url');
}

/** What may be shown of a key after creation, to tell keys apart. */
export function keyHint(key: string): string {
  return `${key.slice(0, 8)}…`;
}

/** Ids are random, URL-safe and prefixed by their kind (`acct_…`). */
export function newId(kind: string, random: (size: number) => Buffer = randomBytes): string {
  return `${kind}_${random(12).toString('base64url')}`;
}
