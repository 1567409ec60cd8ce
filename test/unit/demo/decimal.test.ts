import { describe, expect, it } from 'vitest';
import { formatFixed, formatUnits, priceDecimals } from '#local/demo/decimal.ts';

describe('formatFixed', () => {
  it('rounds to the decimals and drops trailing zeros, exponents and negative zero', () => {
    expect(formatFixed(97_000, 0)).toBe('97000');
    expect(formatFixed(3_400.5, 2)).toBe('3400.5');
    expect(formatFixed(0.000_012_5, 10)).toBe('0.0000125');
    expect(formatFixed(1e-12, 6)).toBe('0');
    expect(formatFixed(-1e-12, 6)).toBe('0');
    expect(formatFixed(-2.5, 3)).toBe('-2.5');
    expect(formatFixed(100, 3)).toBe('100');
  });

  it('formats integer units exactly', () => {
    expect(formatUnits(15_745, 5)).toBe('0.15745');
    expect(formatUnits(-77_419, 4)).toBe('-7.7419');
    expect(formatUnits(0, 4)).toBe('0');
  });
});

describe('priceDecimals', () => {
  it('keeps five significant figures within the venue maximum', () => {
    expect(priceDecimals(97_000, 1)).toBe(0);
    expect(priceDecimals(123_456, 1)).toBe(0);
    expect(priceDecimals(3_400, 2)).toBe(1);
    expect(priceDecimals(25, 4)).toBe(3);
    expect(priceDecimals(0.0175, 6)).toBe(6);
    expect(priceDecimals(0.0175, 4)).toBe(4);
  });
});
