/** The test run's start order (test/helpers/start-order.ts), which the sequencer applies. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startOrder, type FileKind } from '#test/helpers/start-order.ts';

const kindOf = (name: string): FileKind => (name.startsWith('w') ? 'waits' : name.startsWith('e') ? 'local-cloud' : 'cpu');

describe('the start order of a run', () => {
  it('starts one waiting file first, the two longest CPU-bound files next, then the other waiting files, local clouds last', () => {
    expect(startOrder(['u1', 'e1', 'w1', 'u2', 'u3', 'w2', 'e2', 'u4', 'w3'], kindOf, 2)).toEqual(['w1', 'u1', 'u2', 'w2', 'w3', 'u3', 'u4', 'e1', 'e2']);
  });

  it('starts every file once, each kind in the order it came in', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('w', 'u', 'e')), fc.integer({ min: 0, max: 4 }), (kinds, between) => {
        const files = kinds.map((kind, i) => `${kind}${i}`);
        const ordered = startOrder(files, kindOf, between);
        expect([...ordered].sort()).toEqual([...files].sort());
        for (const kind of ['waits', 'cpu', 'local-cloud'] as const)
          expect(ordered.filter((f) => kindOf(f) === kind)).toEqual(files.filter((f) => kindOf(f) === kind));
        expect(ordered.slice(ordered.length - files.filter((f) => kindOf(f) === 'local-cloud').length).every((f) => kindOf(f) === 'local-cloud')).toBe(true);
      }),
    );
  });
});
