/**
 * Venue families and their symbol forms (SPEC "Venue families and symbol forms"). A symbol written
 * in the wrong form for its family matches nothing.
 */
export const FAMILIES = ['perpx', 'spot', 'hip3', 'hip4', 'altx', 'altx-rh'] as const;
export type Family = (typeof FAMILIES)[number];

export const SYMBOL_FORMS: Readonly<Record<Family, { pattern: RegExp; example: string; description: string }>> = {
  perpx: { pattern: /^[A-Za-z0-9]{1,20}$/, example: 'BTC', description: 'bare coin' },
  spot: { pattern: /^[A-Z0-9]{1,20}-[A-Z0-9]{1,20}$/, example: 'HYPE-USDC', description: 'dashed pair BASE-QUOTE' },
  hip3: { pattern: /^[a-z0-9]{1,12}:[A-Za-z0-9]{1,20}$/, example: 'xyz:TSLA', description: '<dex>:<COIN>, case-sensitive' },
  hip4: { pattern: /^#\d{1,9}$/, example: '#10', description: 'outcome side #<N> (10 x outcome + side)' },
  altx: { pattern: /^[A-Z0-9]{1,20}$/, example: 'ETH', description: 'market symbol' },
  'altx-rh': { pattern: /^[A-Z0-9]{1,20}(-USDG)?$/, example: 'BTC', description: 'bare perp symbol or BASE-USDG spot pair' },
};

export function isSymbolOf(family: Family, symbol: string): boolean {
  return SYMBOL_FORMS[family].pattern.test(symbol);
}

/** The builder dex of a hip3 symbol (`xyz:TSLA` -> `xyz`). */
export function dexOf(symbol: string): string | undefined {
  const colon = symbol.indexOf(':');
  return colon > 0 ? symbol.slice(0, colon) : undefined;
}
