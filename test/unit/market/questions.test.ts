/**
 * hip4 questions from the outcome side records (core/market/questions.ts): a question is the
 * outcomes that name it; its fallback is never a named choice; its settled choices are the named
 * outcomes that settled; the newest record naming it says its name; pages by id cover it once.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { pageOfQuestions, questionsOf, type SideEntry } from '#core/market/questions.ts';

const T0 = Date.UTC(2026, 8, 1);

/** Outcomes 0..n, each in no question or one of a few, with each question's fallback among its outcome ids or not listed at all. */
const registry = fc.record({
  membership: fc.array(fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }), { minLength: 1, maxLength: 25 }),
  fallbacks: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 5, maxLength: 5 }),
  listedAt: fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 25, maxLength: 25 }),
  settled: fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
});

function entriesOf({ membership, fallbacks, listedAt }: { membership: (number | undefined)[]; fallbacks: number[]; listedAt: number[] }): SideEntry[] {
  return membership.flatMap((q, outcome) =>
    ([0, 1] as const).map((s) => ({
      firstSeen: T0 + listedAt[outcome]! * 60_000,
      lastUpdated: T0 + (listedAt[outcome]! + s) * 60_000,
      side: {
        outcome_id: outcome,
        side: s,
        asset_id: 100_000_000 + 10 * outcome + s,
        name: `o${outcome}`,
        side_name: s ? 'No' : 'Yes',
        description: '',
        display_title: `o${outcome}`,
        slug: `o-${outcome}`,
        ...(q !== undefined && {
          question: {
            question_id: q,
            name: `q${q} as of ${listedAt[outcome]! + s}`,
            description: `class:priceBucket|q:${q}`,
            fallback_outcome_id: fallbacks[q]!,
          },
        }),
      },
    })),
  );
}

describe('questionsOf', () => {
  it('groups the outcomes naming a question: named ones ascending without the fallback, settled ones among them, dates and name from its records', () => {
    fc.assert(
      fc.property(registry, (input) => {
        const entries = entriesOf(input);
        const settled = new Set(input.settled.flatMap((yes, id) => (yes ? [id] : [])));
        const out = questionsOf(entries, settled);
        const ids = [...new Set(input.membership.filter((q) => q !== undefined))].sort((a, b) => a - b);
        expect(out.map((q) => q.question_id)).toEqual(ids);
        for (const q of out) {
          const naming = entries.filter((e) => e.side.question?.question_id === q.question_id);
          const outcomesNaming = [...new Set(naming.map((e) => e.side.outcome_id))];
          expect(q.fallback_outcome_id).toBe(input.fallbacks[q.question_id]);
          expect(q.named_outcome_ids).toEqual(outcomesNaming.filter((id) => id !== q.fallback_outcome_id).sort((a, b) => a - b));
          expect(q.settled_named_outcomes).toEqual(q.named_outcome_ids.filter((id) => settled.has(id)));
          expect(Date.parse(q.first_seen_at)).toBe(Math.min(...naming.map((e) => e.firstSeen)));
          const newest = Math.max(...naming.map((e) => e.lastUpdated));
          expect(Date.parse(q.last_updated_at)).toBe(newest);
          expect(naming.filter((e) => e.lastUpdated === newest).map((e) => e.side.question!.name)).toContain(q.name);
        }
      }),
    );
  });

  it('pages by id: following next_cursor from the first page gives every question once, in order, and the last page has no cursor', () => {
    fc.assert(
      fc.property(registry, fc.integer({ min: 1, max: 4 }), (input, limit) => {
        const all = questionsOf(entriesOf(input), new Set());
        const served = [];
        let cursor: string | undefined;
        for (let pages = 0; ; pages++) {
          const { data, nextCursor } = pageOfQuestions(all, limit, cursor);
          served.push(...data);
          expect(data.length).toBeLessThanOrEqual(limit);
          if (nextCursor === null) break;
          expect(nextCursor).toBe(String(data.at(-1)!.question_id));
          cursor = nextCursor;
          expect(pages).toBeLessThan(all.length);
        }
        expect(served).toEqual(all);
      }),
    );
  });

  it('refuses a cursor that is not a question id', () => {
    for (const cursor of ['abc', '-1', '01', '1_2', '']) {
      expect(() => pageOfQuestions([], 10, cursor)).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    }
  });
});
