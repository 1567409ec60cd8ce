/**
 * Venue families and their symbol forms (SPEC "Venue families and symbol forms"): the vocabulary the
 * record and route schemas are written in, and which the core reads through core/venues.ts.
 */
export const FAMILIES = ['perpx', 'spot', 'hip3', 'hip4', 'altx', 'altx-rh'] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * Native book snapshots are the venue's top 20 levels a side on the perpx families (SPEC, general
 * rule 2); altx and altx-rh publish every level, so their native checkpoints and the level deltas of
 * their tick history describe the same book (a replay of one lands on the other).
 */
export const NATIVE_BOOK_LEVELS = 20;
export const CAPPED_BOOK_FAMILIES: readonly Family[] = ['perpx', 'spot', 'hip3', 'hip4'];

export const SYMBOL_FORMS: Readonly<Record<Family, { pattern: RegExp; example: string; description: string }>> = {
  perpx: { pattern: /^[A-Za-z0-9]{1,20}$/, example: 'BTC', description: 'bare coin' },
  // `@<pair index>`: a pair the venue's files name by index only, when no spot metadata named it (README, Bringing real data).
  spot: { pattern: /^([A-Z0-9]{1,20}-[A-Z0-9]{1,20}|@\d{1,6})$/, example: 'HYPE-USDC', description: 'dashed pair BASE-QUOTE (or @<pair index> when unnamed)' },
  hip3: { pattern: /^[a-z0-9]{1,12}:[A-Za-z0-9]{1,20}$/, example: 'xyz:TSLA', description: '<dex>:<COIN>, case-sensitive' },
  hip4: { pattern: /^#\d{1,9}$/, example: '#10', description: 'outcome side #<N> (10 x outcome + side)' },
  altx: { pattern: /^[A-Z0-9]{1,20}$/, example: 'ETH', description: 'market symbol' },
  'altx-rh': { pattern: /^[A-Z0-9]{1,20}(-USDG)?$/, example: 'BTC', description: 'bare perp symbol or BASE-USDG spot pair' },
};
