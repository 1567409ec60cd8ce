/**
 * Seeded randomness for the demo market. `hash32` derives an independent stream from a seed and a few
 * integers (a tick's epoch second, a wallet index...), so the simulation can draw a fresh generator per
 * tick and stay identical however `advance` is chunked. `Rng` is mulberry32 with the distributions the
 * simulator needs; nothing here touches Math.random.
 */

/** Streams of `hash32(seed, stream, ...)`; distinct tags keep the draws of unrelated processes apart. */
export const STREAM = {
  init: 1,
  wallets: 2,
  tick: 3,
  demoSchedule: 4,
  cascade: 5,
  listing: 6,
  transfers: 7,
  book: 8,
  systemSchedule: 9,
  spotTwap: 10,
} as const;

const TWO_32 = 4_294_967_296;
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Murmur3-style mixing of integers (each split into two 32-bit halves, so epoch seconds and big seeds hash whole). */
export function hash32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    for (const word of [value >>> 0, Math.floor(value / TWO_32) >>> 0]) {
      let k = Math.imul(word, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
      h = (h << 13) | (h >>> 19);
      h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private state: number;
  private spare: number | undefined;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / TWO_32;
  }

  uniform(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Standard normal (Box-Muller, both values of a pair used; 1 - u keeps the logarithm finite). */
  normal(): number {
    const spare = this.spare;
    if (spare !== undefined) {
      this.spare = undefined;
      return spare;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - this.next()));
    const angle = 2 * Math.PI * this.next();
    this.spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }

  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** Knuth's product method for small means; the normal approximation beyond, where it is accurate. */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let count = 0;
    for (let product = this.next(); product > limit; product *= this.next()) count++;
    return count;
  }

  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Pareto with minimum `scale`: the heavy tail of wallet sizes and activity. */
  pareto(scale: number, alpha: number): number {
    // biome-ignore lint/style/useExponentiationOperator: the demo's numbers are fixed by its seed; `**` is not promised to round as Math.pow does.
    return scale / Math.pow(1 - this.next(), 1 / alpha);
  }

  /** Index into `cumulative` (running sums of weights) with probability proportional to each weight. */
  weighted(cumulative: ArrayLike<number>, count = cumulative.length): number {
    const target = this.next() * (cumulative[count - 1] ?? 0);
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((cumulative[mid] ?? 0) > target) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  /** `length` lowercase hex digits (a multiple of 8). */
  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 8) {
      const word = this.int(TWO_32);
      out += HEX_BYTES[word >>> 24]! + HEX_BYTES[(word >>> 16) & 255]! + HEX_BYTES[(word >>> 8) & 255]! + HEX_BYTES[word & 255]!;
    }
    return out;
  }
}
