/**
 * A family-wide read of hours from unsettledFrom(now) on lists no per-symbol file (see read.ts):
 * that is safe only if compaction, whose clock may be up to a minute ahead, cannot have folded
 * any such hour yet.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hourSettled, unsettledFrom } from '#core/archive/layout.ts';

const HOUR = 3_600_000;

describe('unsettledFrom', () => {
  it('starts at an hour that compaction cannot have folded, even with its clock a minute ahead, and leaves out no hour it cannot', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }), fc.integer({ min: 0, max: 60_000 }), (now, ahead) => {
        const first = unsettledFrom(now);
        expect(first % HOUR).toBe(0);
        for (let hour = first; hour < now + 2 * HOUR; hour += HOUR) expect(hourSettled(hour, now + ahead)).toBe(false);
        // The hour before it may have been folded by a clock a minute ahead.
        expect(hourSettled(first - HOUR, now + 60_000)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});
