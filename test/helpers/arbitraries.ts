/** fast-check arbitraries several property suites share. */
import fc from 'fast-check';

/** A trade or fill at `offset` ms into a window of `span` ms: the price in cents, the size in lots of 0.001. */
export interface TapeTrade {
  offset: number;
  cents: number;
  lots: number;
  side: 'A' | 'B';
}

export const tapeTrade = (span: number): fc.Arbitrary<TapeTrade> =>
  fc.record({
    offset: fc.integer({ min: 0, max: span - 1 }),
    cents: fc.integer({ min: 1, max: 10_000_000 }),
    lots: fc.integer({ min: 1, max: 5_000 }),
    side: fc.constantFrom<'A' | 'B'>('A', 'B'),
  });
