import { describe, expect, it } from 'vitest';
import { Rng, hash32 } from '#local/demo/random.ts';

const draws = (n: number, draw: (rng: Rng) => number, seed = 1) => {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => draw(rng));
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('hash32', () => {
  it('is stable, sensitive to every input and to the high bits of large numbers', () => {
    expect(hash32(42, 3, 1_773_100_800)).toBe(hash32(42, 3, 1_773_100_800));
    const hashes = new Set([hash32(42, 3, 1), hash32(42, 3, 2), hash32(43, 3, 1), hash32(42, 4, 1), hash32(1, 2 ** 32 + 1), hash32(1, 1)]);
    expect(hashes.size).toBe(6);
  });
});

describe('Rng', () => {
  it('repeats its sequence for a seed and draws uniformly in [0, 1)', () => {
    expect(draws(5, (r) => r.next())).toEqual(draws(5, (r) => r.next()));
    expect(draws(5, (r) => r.next(), 2)).not.toEqual(draws(5, (r) => r.next()));
    const uniform = draws(20_000, (r) => r.next());
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...uniform)).toBeLessThan(1);
    expect(mean(uniform)).toBeCloseTo(0.5, 1);
  });

  it('draws the distributions with their moments', () => {
    const normal = draws(20_000, (r) => r.normal());
    expect(mean(normal)).toBeCloseTo(0, 1);
    expect(mean(normal.map((x) => x * x))).toBeCloseTo(1, 1);
    expect(mean(draws(20_000, (r) => r.exponential(3)))).toBeCloseTo(3, 0);
    expect(mean(draws(20_000, (r) => r.poisson(2.5)))).toBeCloseTo(2.5, 1);
    expect(mean(draws(5_000, (r) => r.poisson(80))) / 80).toBeCloseTo(1, 1);
    const pareto = draws(20_000, (r) => r.pareto(1, 1.5));
    expect(Math.min(...pareto)).toBeGreaterThanOrEqual(1);
    expect(pareto.filter((x) => x > 10).length / pareto.length).toBeCloseTo(10 ** -1.5, 1);
  });

  it('picks by weight and writes hex', () => {
    const counts = [0, 0, 0];
    for (const i of draws(30_000, (r) => r.weighted([1, 1, 4]))) counts[i]!++;
    expect(counts.map((c) => c / 30_000)).toEqual([expect.closeTo(0.25, 1), expect.closeTo(0, 1), expect.closeTo(0.75, 1)]);
    expect(new Rng(7).hex(40)).toMatch(/^[0-9a-f]{40}$/);
  });
});
