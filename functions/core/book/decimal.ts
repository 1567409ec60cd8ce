/**
 * Exact sums of decimal strings. Book sizes are summed into level sizes and side totals; doing that
 * in doubles would print `0.30000000000000004`, and the native snapshot's levels must equal the
 * aggregated order-level book digit for digit.
 */

/** A decimal as an integer count of 10^-scale units. */
export interface Scaled {
  units: bigint;
  scale: number;
}

export function parseDecimal(text: string): Scaled {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const digits = dot < 0 ? body : body.slice(0, dot) + body.slice(dot + 1);
  const units = BigInt(digits);
  return { units: negative ? -units : units, scale: dot < 0 ? 0 : body.length - dot - 1 };
}

/** Canonical form: no trailing fractional zeros, no lone dot, `0` for zero. */
export function formatDecimal({ units, scale }: Scaled): string {
  const negative = units < 0n;
  let digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  let fraction = scale > 0 ? digits.slice(-scale) : '';
  digits = scale > 0 ? digits.slice(0, -scale) : digits;
  fraction = fraction.replace(/0+$/, '');
  const text = fraction ? `${digits}.${fraction}` : digits;
  return negative && text !== '0' ? `-${text}` : text;
}

/** The exact sum of decimal strings, in canonical form (`'0'` for none). */
export function sumDecimals(values: Iterable<string>): string {
  let total: Scaled = { units: 0n, scale: 0 };
  for (const value of values) {
    const next = parseDecimal(value);
    const scale = Math.max(total.scale, next.scale);
    total = { units: total.units * 10n ** BigInt(scale - total.scale) + next.units * 10n ** BigInt(scale - next.scale), scale };
  }
  return formatDecimal(total);
}

/** Already canonical: no leading zeros, no trailing fractional zeros, not negative zero. */
const CANONICAL = /^(-?[1-9]\d*(\.\d*[1-9])?|-?0\.\d*[1-9]|0)$/;

/** `value` in canonical form (`'1.50'` -> `'1.5'`); most values already are, and are returned as they are. */
export const canonicalDecimal = (value: string): string => (CANONICAL.test(value) ? value : formatDecimal(parseDecimal(value)));

/** The exact midpoint of two decimals. */
export function midpoint(a: string, b: string): string {
  const sum = parseDecimal(sumDecimals([a, b]));
  return formatDecimal({ units: sum.units * 5n, scale: sum.scale + 1 });
}

/** `a - b`, exactly. */
export const difference = (a: string, b: string): string => sumDecimals([a, b.startsWith('-') ? b.slice(1) : `-${b}`]);
