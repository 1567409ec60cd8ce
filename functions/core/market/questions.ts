/**
 * hip4 questions, derived from the outcome metadata the instrument registry keeps: every side record
 * of an outcome that belongs to a question carries the question (id, name, description and its
 * fallback outcome), so a question is the outcomes that name it. Point in time, like the registry.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { OutcomeSideDetails } from '#schemas/datasets.ts';
import type { Question } from '#schemas/market.ts';
import { parseTransparentCursor } from './cursor.ts';
import { outcomeSideOf, outcomes, registryEntries } from './registry-views.ts';

const iso = (ts: number) => new Date(ts).toISOString();
type QuestionDetails = NonNullable<OutcomeSideDetails['question']>;

/** One side record of the registry: the newest per side coin, with when the side was first listed. */
export interface SideEntry {
  side: OutcomeSideDetails;
  firstSeen: number;
  lastUpdated: number;
}

/**
 * The questions the side records name, by id. A question's name, description and fallback are those
 * of the newest record naming it (the venue may amend a question); its named outcomes are the other
 * outcomes naming it, ascending, and `settled` says which outcomes have settled.
 */
export function questionsOf(entries: readonly SideEntry[], settled: ReadonlySet<number>): Question[] {
  const seen = new Map<number, { newest: number; details: QuestionDetails; outcomeIds: Set<number>; firstSeen: number }>();
  for (const { side, firstSeen, lastUpdated } of entries) {
    const details = side.question;
    if (!details) continue;
    const known = seen.get(details.question_id);
    if (!known) {
      seen.set(details.question_id, { newest: lastUpdated, details, outcomeIds: new Set([side.outcome_id]), firstSeen });
      continue;
    }
    known.outcomeIds.add(side.outcome_id);
    known.firstSeen = Math.min(known.firstSeen, firstSeen);
    if (lastUpdated >= known.newest) Object.assign(known, { newest: lastUpdated, details });
  }
  return [...seen.values()]
    .sort((a, b) => a.details.question_id - b.details.question_id)
    .map(({ details, outcomeIds, firstSeen, newest }) => {
      const named = [...outcomeIds].filter((id) => id !== details.fallback_outcome_id).sort((a, b) => a - b);
      return {
        question_id: details.question_id,
        name: details.name,
        description: details.description,
        fallback_outcome_id: details.fallback_outcome_id,
        named_outcome_ids: named,
        settled_named_outcomes: named.filter((id) => settled.has(id)),
        first_seen_at: iso(firstSeen),
        last_updated_at: iso(newest),
      };
    });
}

/** Every question of the outcomes listed at or before `at`. */
export async function questions(deps: ArchiveDeps, at: number): Promise<Question[]> {
  const entries = (await registryEntries(deps, 'hip4', at)).flatMap(({ row, firstSeen, lastUpdated }) => {
    const side = outcomeSideOf(row);
    return side ? [{ side, firstSeen, lastUpdated }] : [];
  });
  if (!entries.some((e) => e.side.question)) return [];
  const settled = new Set((await outcomes(deps, at)).filter((o) => o.is_settled).map((o) => o.outcome_id));
  return questionsOf(entries, settled);
}

/** The page of `all` (by id) after `cursor`, the last id served (the real service's form); the next cursor is this page's last id. */
export function pageOfQuestions(all: readonly Question[], limit: number, cursor?: string): { data: Question[]; nextCursor: string | null } {
  const after = cursor === undefined ? -1 : parseTransparentCursor('id', cursor)[0]!;
  const following = all.filter((q) => q.question_id > after);
  const data = following.slice(0, limit);
  return { data, nextCursor: following.length > limit ? String(data.at(-1)!.question_id) : null };
}

export async function questionsPage(
  deps: ArchiveDeps,
  req: { limit: number; cursor?: string },
  now: number,
): Promise<{ data: Question[]; nextCursor: string | null }> {
  return pageOfQuestions(await questions(deps, now), req.limit, req.cursor);
}

export async function question(deps: ArchiveDeps, id: number, now: number): Promise<Question> {
  const found = (await questions(deps, now)).find((q) => q.question_id === id);
  if (!found) throw new AppError('not_found', `No question ${id}.`, { param: 'question_id' });
  return found;
}
