/**
 * hip4 questions over the real archive: the outcomes whose side records name a question make it
 * (named choices and the fallback), a settled named outcome is listed as settled, a question is
 * served only once one of its outcomes is listed, pages follow the id cursor, and an unknown id is 404.
 */
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { question, questionsPage } from '#core/market/questions.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';

const deps = scratchArchive();
const T0 = Date.parse('2026-09-04T00:00:00Z');
const DAY = 86_400_000;
const NOW = T0 + 3_600_000;
const ingest = (records: readonly object[]) => ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));

const side = (outcomeId: number, s: 0 | 1, listedAt: number, q?: { question_id: number; fallback_outcome_id: number; name?: string }) => ({
  dataset: 'instruments',
  family: 'hip4',
  symbol: `#${outcomeId * 10 + s}`,
  ts: listedAt,
  market_type: 'outcome',
  sz_decimals: 0,
  outcome: {
    outcome_id: outcomeId,
    side: s,
    asset_id: 100_000_000 + outcomeId * 10 + s,
    name: `Outcome ${outcomeId}`,
    side_name: s === 0 ? 'Yes' : 'No',
    description: 'class:priceBucket|underlying:BTC',
    display_title: `Outcome ${outcomeId}`,
    slug: `outcome-${outcomeId}`,
    ...(q && {
      question: {
        question_id: q.question_id,
        name: q.name ?? `Question ${q.question_id}`,
        description: 'class:priceBucket|underlying:BTC|period:1d',
        fallback_outcome_id: q.fallback_outcome_id,
      },
    }),
  },
});
const both = (outcomeId: number, listedAt: number, q?: Parameters<typeof side>[3]) => [side(outcomeId, 0, listedAt, q), side(outcomeId, 1, listedAt, q)];

describe('hip4 questions', () => {
  it('derives questions from the outcomes naming them, with settled choices, point in time, paged by id', async () => {
    // Prepare: question 5 has choices 51 and 52 and fallback 53; question 7 is listed after NOW; outcome 60 stands alone.
    const q5 = { question_id: 5, fallback_outcome_id: 53 };
    await ingest([
      ...both(51, T0 - 2 * DAY, q5),
      ...both(52, T0 - DAY, q5),
      ...both(53, T0 - DAY, q5),
      ...both(60, T0 - DAY),
      side(51, 0, T0 - DAY / 2, { ...q5, name: 'Question 5, amended' }),
      ...both(71, NOW + 1_000, { question_id: 7, fallback_outcome_id: 72 }),
      { dataset: 'settlements', family: 'hip4', symbol: '#520', ts: T0 + 1_000, resolution: 'yes', settle_price: '1', open_interest: '10' },
    ]);
    // Act
    const listed = await questionsPage(deps(), { limit: 100 }, NOW);
    const later = await questionsPage(deps(), { limit: 1 }, NOW + 2_000);
    const next = await questionsPage(deps(), { limit: 1, cursor: later.nextCursor! }, NOW + 2_000);
    // Assess
    expect(listed).toEqual({
      data: [
        {
          question_id: 5,
          name: 'Question 5, amended',
          description: 'class:priceBucket|underlying:BTC|period:1d',
          fallback_outcome_id: 53,
          named_outcome_ids: [51, 52],
          settled_named_outcomes: [52],
          first_seen_at: new Date(T0 - 2 * DAY).toISOString(),
          last_updated_at: new Date(T0 - DAY / 2).toISOString(),
        },
      ],
      nextCursor: null,
    });
    expect(await question(deps(), 5, NOW)).toEqual(listed.data[0]);
    expect(later.data.map((q) => q.question_id)).toEqual([5]);
    expect(later.nextCursor).toBe('5');
    expect(next).toMatchObject({ data: [{ question_id: 7, named_outcome_ids: [71], fallback_outcome_id: 72, settled_named_outcomes: [] }], nextCursor: null });
    await expect(question(deps(), 7, NOW)).rejects.toMatchObject({ code: 'not_found' });
    await expect(question(deps(), 6, NOW + 2_000)).rejects.toMatchObject({ code: 'not_found' });
  });
});
