/**
 * Decimal strings as the normalized records carry them: fixed precision, never exponent notation, no
 * trailing zeros, no negative zero. Sizes and positions are kept as integer units (size x 10^szDecimals)
 * so sums stay exact; prices are rounded to the venue's tick when they are formatted.
 */

/** `value` with at most `decimals` fractional digits. */
export function formatFixed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  let end = text.length;
  if (decimals > 0) {
    while (text.charCodeAt(end - 1) === 48) end--;
    if (text.charCodeAt(end - 1) === 46) end--;
  }
  const trimmed = end === text.length ? text : text.slice(0, end);
  return trimmed === '-0' ? '0' : trimmed;
}

/** Integer units of 10^-decimals (a size, or a price in ticks) as a decimal string; exact, and cheaper than toFixed. */
export function formatUnits(units: number, decimals: number): string {
  let magnitude = Math.abs(units);
  let places = decimals;
  // Trailing zeros go first, as whole divisions by ten (exact on integers).
  while (places > 0 && magnitude % 10 === 0) {
    magnitude /= 10;
    places--;
  }
  const sign = units < 0 ? '-' : '';
  const digits = String(magnitude);
  if (places === 0) return magnitude === 0 ? '0' : sign + digits;
  const point = digits.length - places;
  return point > 0 ? `${sign}${digits.slice(0, point)}.${digits.slice(point)}` : `${sign}0.${'0'.repeat(-point)}${digits}`;
}

/**
 * Price decimals of Hyperliquid-style venues: five significant figures, never more than the venue's
 * maximum (6 - szDecimals for perps, 8 - szDecimals for spot), and whole numbers are always allowed.
 */
export function priceDecimals(price: number, maxDecimals: number): number {
  const integerDigits = Math.floor(Math.log10(price)) + 1;
  return Math.max(0, Math.min(maxDecimals, 5 - integerDigits));
}
