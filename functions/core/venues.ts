/**
 * Venue families as the core sees them: the families and symbol forms (defined with the schemas,
 * which are written in them), what a symbol says about its venue, and where each family's routes live.
 */
import { CAPPED_BOOK_FAMILIES, FAMILIES, NATIVE_BOOK_LEVELS, SYMBOL_FORMS, type Family } from '#schemas/venues.ts';

export { CAPPED_BOOK_FAMILIES, FAMILIES, NATIVE_BOOK_LEVELS, SYMBOL_FORMS, type Family };

export function isSymbolOf(family: Family, symbol: string): boolean {
  return SYMBOL_FORMS[family].pattern.test(symbol);
}

/** The builder dex of a hip3 symbol (`xyz:TSLA` -> `xyz`). */
export function dexOf(symbol: string): string | undefined {
  const colon = symbol.indexOf(':');
  return colon > 0 ? symbol.slice(0, colon) : undefined;
}

/** Path prefix of each venue family's routes (the route table's, and the links events carry). */
export const FAMILY_PREFIX: Readonly<Record<Family, string>> = {
  perpx: '/v1/perpx',
  spot: '/v1/perpx/spot',
  hip3: '/v1/perpx/hip3',
  hip4: '/v1/perpx/hip4',
  altx: '/v1/altx',
  'altx-rh': '/v1/altx-rh',
};
