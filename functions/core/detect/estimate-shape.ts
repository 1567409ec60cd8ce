/**
 * What an estimate's answer is made of, however it was counted: occurrences per day and their
 * summary, the ladder of thresholds around the rule's, metric histograms and notes.
 */
import type { Detection, EventTypeDecl, Preview } from '../events/declare.ts';
import { bucketEdge, bucketOf } from './rollups.ts';
import type { StoredConfig } from '../webhooks/filters.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import { DAY_MS, type PreviewDeps, paramsOf } from './scan.ts';

/** Seconds-class events reach the queue about a second after the block. */
const SECONDS_CLASS_LAG_MS = 1_000;

/** An occurrence as a preview shows it: when it would have been delivered, and its `data`. */
export const occurrenceOf = (c: Candidate) => ({ observed_at_estimate: new Date(c.occurredAt + SECONDS_CLASS_LAG_MS).toISOString(), data: c.data });

/** Matched occurrences an estimate shows, newest first. */
export const ESTIMATE_SAMPLE = 5;

/** Ten rungs around the configured threshold (or the median when the rule has none). */
export const LADDER_STEPS = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10] as const;

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The histogram of a metric: events per bucket (see rollups.ts), and the largest value. */
interface Histogram {
  counts: Map<number, number>;
  n: number;
  max: number;
}

export function histogramOf(values: readonly number[]): Histogram {
  const counts = new Map<number, number>();
  for (const v of values) if (v > 0) counts.set(bucketOf(v), (counts.get(bucketOf(v)) ?? 0) + 1);
  return { counts, n: values.filter((v) => v > 0).length, max: values.filter((v) => v > 0).reduce((m, v) => Math.max(m, v), -Infinity) };
}

/** Events in buckets from `bucket` up. */
export const atOrAbove = (h: Histogram, bucket: number) => [...h.counts].reduce((sum, [b, n]) => (b >= bucket ? sum + n : sum), 0);

/** The lower edge of the bucket holding the p-th percentile (the same rank `percentile` takes). */
export function histogramPercentile(h: Histogram, p: number): number {
  const rank = Math.min(h.n - 1, Math.floor((p / 100) * h.n));
  let seen = 0;
  for (const [bucket, n] of [...h.counts].sort(([a], [b]) => a - b)) {
    seen += n;
    if (seen > rank) return Number(bucketEdge(bucket).toPrecision(4));
  }
  return h.max;
}

/**
 * The lower bound a rule puts on its ladder metric, when that is all its conditions say (so a
 * histogram of the metric answers it): the largest of the cost floor and its `>=`/`>` bounds, 0
 * when there is none (every event counts). Undefined when a condition is on anything else, is not
 * a lower bound, or is a bound of zero or less (the histogram keeps such values in one bucket).
 */
export function lowerBoundOnly(decl: EventTypeDecl, config: StoredConfig, metric: string): { threshold: number; strict: boolean } | undefined {
  let threshold = decl.costFloor?.metric === metric ? decl.costFloor.min : 0;
  let strict = false;
  for (const condition of config.conditions) {
    if (condition.metric !== metric || typeof condition.value !== 'number') return undefined;
    if (condition.op !== 'greater_than_or_equal' && condition.op !== 'greater_than') return undefined;
    if (condition.value <= 0) return undefined;
    if (condition.value > threshold || (condition.value === threshold && condition.op === 'greater_than')) {
      threshold = condition.value;
      strict = condition.op === 'greater_than';
    }
  }
  return { threshold, strict };
}

export interface EstimateInput {
  deps: PreviewDeps;
  decl: EventTypeDecl;
  config: StoredConfig;
  watched: ReadonlySet<string>;
  lookbackDays: number;
  firstDay: number;
  now: number;
}

/** The response members both ways of estimating share: per-day counts and their summary. */
export function perDayMembers(input: EstimateInput, perDay: readonly number[]) {
  const sortedDays = [...perDay].sort((a, b) => a - b);
  return {
    days: input.lookbackDays,
    total: perDay.reduce((a, b) => a + b, 0),
    per_day: perDay.map((count, i) => ({ date: new Date(input.firstDay + i * DAY_MS).toISOString().slice(0, 10), count })),
    per_day_p50: percentile(sortedDays, 50) ?? 0,
    per_day_max: sortedDays.at(-1) ?? 0,
  };
}

export const percentNote = (config: StoredConfig) =>
  config.conditions.some((c) => c.metric.startsWith('notional_pct_'))
    ? ['Percent thresholds were evaluated against the reference values at each occurrence (volume and open interest from the archive).']
    : [];

export const cutNote = 'The scan reached its row cap or time budget; the window starts later than asked.';

/** What an estimate counts: per-day occurrences of the rule, its newest, and the ladder's values (ascending). */
export interface Counted {
  perDay: number[];
  newest: Candidate[];
  values: number[];
  from: number;
  truncated: boolean;
  rowsScanned: number;
}

/** The first index of ascending `values` at or above `value`. */
export function firstAtOrAbove(values: readonly number[], value: number): number {
  let [lo, hi] = [0, values.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! >= value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The rule's param set and, for a param-gated type, its lowest threshold's (the ladder's pool, to see below the rule). */
export function gatedParams(detection: Detection, config: StoredConfig, gate: NonNullable<Preview['estimate']>['gate']) {
  const lowest = gate && detection.kind === 'minute' ? { ...config, params: { ...config.params, [gate.param]: gate.lowest, ...gate.fixed } } : undefined;
  return { rule: paramsOf(detection, config), lowest };
}
