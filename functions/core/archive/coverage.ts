/**
 * Coverage starts, read from the dataset registry (schemas/datasets.ts). A window wholly before a
 * dataset's start in a family is answered with an empty page without touching storage: the dataset
 * does not cover it.
 */
import { DATASETS, type Dataset, type DatasetDef } from '#schemas/datasets.ts';
import type { Family } from '../venues.ts';

/** The first covered instant, or undefined when the family has no such dataset at all. */
export function coverageStart(dataset: Dataset, family: Family): number | undefined {
  const coverage: DatasetDef['coverage'] = DATASETS[dataset].coverage;
  return coverage[family];
}

/** True when [from, to] ends before coverage starts (or the family lacks the dataset). */
export function whollyBeforeCoverage(dataset: Dataset, family: Family, to: number): boolean {
  const start = coverageStart(dataset, family);
  return start === undefined || to < start;
}

/**
 * What a page says when its window ends before the dataset begins in the family: `coverage_from`
 * and a notice, so an empty page is not read as "nothing happened".
 */
export function coverageNotice(dataset: Dataset, family: Family, windowEnd: number): { coverage_from: string; notice: string } | undefined {
  const start = coverageStart(dataset, family);
  if (start === undefined || windowEnd >= start) return undefined;
  const from = new Date(start).toISOString();
  const name = dataset.replace(/_1m$/, '').replaceAll('_', ' ');
  return { coverage_from: from, notice: `The archive holds ${name} for ${family} from ${from}; the window ends before that.` };
}
