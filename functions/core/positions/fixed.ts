/**
 * Fixed-point decimals for position accounting: a value is a bigint count of 10^-18 units. Sizes,
 * prices and fees arrive as decimal strings with far fewer places, so sums, differences and
 * products of two of them are exact; only the average entry price divides, and rounds half away
 * from zero at the 18th place. Doubles would drift with every fill of a long-lived position.
 */
import { formatDecimal, parseDecimal } from '../book/decimal.ts';

export type Fixed = bigint;

const SCALE = 18;
const ONE = 10n ** BigInt(SCALE);

export const ZERO: Fixed = 0n;

export function fixed(text: string): Fixed {
  const { units, scale } = parseDecimal(text);
  if (scale > SCALE) throw new RangeError(`${text} has more than ${SCALE} decimal places`);
  return units * 10n ** BigInt(SCALE - scale);
}

/** Canonical decimal text: no trailing fractional zeros, `0` for zero; `places` rounds first. */
export function text(value: Fixed, places = SCALE): string {
  const step = 10n ** BigInt(SCALE - Math.min(places, SCALE));
  return formatDecimal({ units: step === 1n ? value : divRound(value, step) * step, scale: SCALE });
}

/** a / b rounded half away from zero (integers). */
function divRound(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (2n * (r < 0n ? -r : r) >= (b < 0n ? -b : b)) return q + (a < 0n === b < 0n ? 1n : -1n);
  return q;
}

export const mul = (a: Fixed, b: Fixed): Fixed => divRound(a * b, ONE);
/** The average of `a` and `b` weighted by `wa` and `wb` (an average entry price over two lots). */
export const weightedAverage = (a: Fixed, wa: Fixed, b: Fixed, wb: Fixed): Fixed => divRound(a * wa + b * wb, wa + wb);
export const abs = (a: Fixed): Fixed => (a < 0n ? -a : a);
export const sign = (a: Fixed): -1 | 0 | 1 => (a < 0n ? -1 : a > 0n ? 1 : 0);

/**
 * `text(fixed(value), places)` for a canonical decimal string, by string arithmetic (pages hold tens
 * of thousands of prices; big integers cost a few microseconds each): the digits kept, plus one in
 * the last place when the first digit dropped is 5 or more (half away from zero).
 */
export function roundedText(value: string, places: number): string {
  const dot = value.indexOf('.');
  if (dot < 0 || value.length - dot - 1 <= places) return value;
  const negative = value.startsWith('-');
  let digits = value.slice(negative ? 1 : 0, dot) + value.slice(dot + 1, dot + 1 + places);
  if (value.charCodeAt(dot + 1 + places) >= 53) {
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === '9') i -= 1;
    digits = i < 0 ? `1${'0'.repeat(digits.length)}` : digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - i - 1);
  }
  const whole = digits.slice(0, digits.length - places).replace(/^0+(?=\d)/, '') || '0';
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  const out = fraction ? `${whole}.${fraction}` : whole;
  return negative && out !== '0' ? `-${out}` : out;
}
