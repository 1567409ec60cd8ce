/**
 * Estimates that read what compaction kept instead of replaying the window: a type's rollup of
 * occurrences per hour and bucket, or its threshold crossings per window.
 */
import type { Family } from '../venues.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import type { Detection } from '../events/declare.ts';
import {
  BUCKET_RATIO,
  HOUR_MS,
  bucketEdge,
  bucketOf,
  isExactEdge,
  NO_VALUE_BUCKET,
  oiCrossingCells,
  oiCrossingsCoverage,
  readRollup,
  uncoveredSpans,
  type RollupSource,
} from './rollups.ts';
import { OI_DELTA_LOWEST_PCT, ROLLUPS } from '../archive/sql.ts';
import { matches } from './match.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import { minuteContext } from '../events/kit/reads.ts';
import { DAY_MS, MINUTE_PAGE_MS, SCAN_BUDGET_MS, keeper, pagesOf, scan, shown } from './scan.ts';
import {
  ESTIMATE_SAMPLE,
  type EstimateInput,
  LADDER_STEPS,
  atOrAbove,
  cutNote,
  histogramOf,
  histogramPercentile,
  occurrenceOf,
  perDayMembers,
} from './estimate-shape.ts';

/**
 * The estimate from a type's hourly rollup: whole hours from the rollup's histogram, the hours it
 * does not cover yet (the open hour, unfolded deltas) replayed from raw rows. Per-day counts are
 * exact when the rule's threshold is a bucket edge (a power of ten, as the cost floors are); the
 * ladder's rungs are bucket edges, so each is exact; percentiles are the edge below them.
 */
export async function estimateFromRollup(
  input: EstimateInput,
  detection: Extract<Detection, { kind: 'batch' }>,
  rollup: RollupSource,
  metric: string,
  bound: { threshold: number; strict: boolean },
) {
  const { deps, decl, config, watched, firstDay, now } = input;
  const deadline = now + SCAN_BUDGET_MS;
  const families = (config.venue ?? decl.venues).filter((v) => !whollyBeforeCoverage(detection.reads, v, now - 1));
  const addresses = ROLLUPS[rollup].perWallet ? [...(config.addresses ?? watched)] : undefined;
  const read = await readRollup(deps.archive, rollup, families, config.symbols, firstDay, now, addresses);
  // The ladder and distribution take every occurrence the rule's scope and floor let through, whatever its threshold.
  const others = { ...config, conditions: [], min_notional_usd: undefined };
  const tail = await scan(deps, decl, detection, config, watched, firstDay, now, deadline, {
    answered: read.covered,
    keep: keeper(deps, decl, config, others, watched),
  });
  const from = Math.max(firstDay, tail.from);
  const cells = read.cells.filter((c) => c.hour >= from);
  const hits = tail.candidates.filter((c) => matches(decl, config, c, watched));
  // No threshold: every event counts, those of no value too.
  const thresholdBucket = bound.threshold > 0 ? bucketOf(bound.threshold) : -Infinity;
  const perDay = Array.from({ length: input.lookbackDays }, () => 0);
  for (const hit of hits) perDay[Math.floor((hit.occurredAt - firstDay) / DAY_MS)]! += 1;
  for (const cell of cells) if (cell.bucket >= thresholdBucket) perDay[Math.floor((cell.hour - firstDay) / DAY_MS)]! += cell.events;

  const histogram = histogramOf(tail.candidates.map((c) => c.metrics[metric]).filter((v): v is number => typeof v === 'number'));
  // The cost floor holds for the ladder too (a power of ten, so whole buckets).
  // Events of no value (zero or less) count per day but have no place in the histogram of positive values.
  const floorBucket = decl.costFloor?.metric === metric ? bucketOf(decl.costFloor.min) : NO_VALUE_BUCKET + 1;
  for (const cell of cells.filter((c) => c.bucket >= floorBucket)) {
    histogram.counts.set(cell.bucket, (histogram.counts.get(cell.bucket) ?? 0) + cell.events);
    histogram.n += cell.events;
    histogram.max = Math.max(histogram.max, cell.max);
  }
  const days = Math.max(1, (now - from) / DAY_MS);
  // Without a threshold the ladder is drawn around the median (as the replay draws it).
  const base = config.min_notional_usd ?? (bound.threshold > 0 ? bound.threshold : histogram.n > 0 ? histogramPercentile(histogram, 50) : 1);
  // The steps are at least a third apart and a bucket is about 15% wide: ten distinct rungs.
  const rungs = LADDER_STEPS.map((step) => bucketOf(base * step));
  const exact = (bound.threshold === 0 || isExactEdge(bound.threshold)) && !bound.strict;
  const notes = [
    `Whole hours were read from hourly rollups (${read.covered.size ? [...read.covered.values()].reduce((n, h) => n + h.size, 0) : 0} family-hours), the rest replayed from the archive.`,
    exact
      ? 'Per-day counts are exact.'
      : `Per-day counts round the threshold ${bound.threshold} down to the histogram bucket edge ${Number(bucketEdge(thresholdBucket).toPrecision(6))} (16 buckets a decade, each about ${Math.round((BUCKET_RATIO - 1) * 100)}% wide).`,
    'Ladder rungs are bucket edges (shown to 4 significant digits) and counted exactly at them; distribution percentiles are the bucket edge below them, max is exact.',
    ...(tail.truncated ? [cutNote] : []),
  ];
  return {
    event_type: decl.type,
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString() },
    ...perDayMembers(input, perDay),
    primary_metric: metric,
    ladder: rungs.map((bucket) => ({ value: Number(bucketEdge(bucket).toPrecision(4)), per_day: Number((atOrAbove(histogram, bucket) / days).toFixed(2)) })),
    distribution:
      histogram.n === 0
        ? null
        : {
            n: histogram.n,
            p50: histogramPercentile(histogram, 50),
            p90: histogramPercentile(histogram, 90),
            p99: histogramPercentile(histogram, 99),
            max: histogram.max,
          },
    // Only the replayed hours have occurrences to show; the rollup keeps counts.
    sample: (await shown(deps, config, hits.sort((a, b) => b.occurredAt - a.occurredAt).slice(0, ESTIMATE_SAMPLE))).map(occurrenceOf),
    basis: { mode: exact ? ('exact' as const) : ('sampled' as const), note: notes.join(' ') },
    rowsScanned: tail.rowsScanned + read.rowsRead,
  };
}

/**
 * market.oi_delta's estimate from its crossing histograms (oi_crossings): the crossings at a
 * threshold T of the rule's window are #{move >= T} - #{previous same-way move >= T} per covered
 * slot, so the rule's per-day counts and every rung of the ladder come from the same cells, exact
 * at bucket edges; the hours the rollup does not cover (the open hour, unfolded deltas) are
 * replayed through the detector at the rule's threshold, each rung and the lowest threshold at once.
 */
export async function estimateFromCrossings(input: EstimateInput, detection: Extract<Detection, { kind: 'minute' }>) {
  const { deps, decl, config, watched, firstDay, now } = input;
  const deadline = now + SCAN_BUDGET_MS;
  const windowS = config.params.window_s as number;
  const threshold = config.params.threshold_pct as number;
  const families = (config.venue ?? decl.venues).filter((f) => !whollyBeforeCoverage('open_interest', f, now - 1));
  const coverage = await oiCrossingsCoverage(deps.archive, families, firstDay, now);
  const rungs = LADDER_STEPS.map((step) => bucketOf(threshold * step));
  const thresholds = [...new Set([threshold, OI_DELTA_LOWEST_PCT, ...rungs.map(bucketEdge)])];

  // The uncovered hours, newest first a day at a time, every threshold in one pass of the detector,
  // while the covered slots' cells are read.
  const covered = (family: string, hour: number) => coverage.covered.get(family as Family)?.has(hour) ?? false;
  const uncovered = uncoveredSpans(firstDay, now, (hour) => families.every((f) => covered(f, hour)));
  const pages = uncovered.flatMap(([a, b]) => pagesOf(a, b, MINUTE_PAGE_MS)).sort((a, b) => b[0] - a[0]);
  const replay = async () => {
    const found: Candidate[] = [];
    for (const [pageFrom, pageTo] of pages) {
      if (deps.clock.now() > deadline) return { found, from: pageTo };
      const page = await detection.detect(
        minuteContext(deps, pageFrom, pageTo),
        thresholds.map((t) => ({ window_s: windowS, threshold_pct: t })),
      );
      // Scope and floor as the rule has them; hours a family's rollup answered are not counted twice.
      found.push(
        ...page.filter(
          (c) =>
            !covered(c.venue, Math.floor(c.occurredAt / HOUR_MS) * HOUR_MS)
            && matches(decl, { ...config, params: { ...config.params, ...c.params } }, c, watched),
        ),
      );
    }
    return { found, from: firstDay };
  };
  const [read, { found: replayed, from }] = await Promise.all([oiCrossingCells(deps.archive, coverage, config.symbols, windowS, firstDay, now), replay()]);
  const at = (t: number) => replayed.filter((c) => c.params?.threshold_pct === t);
  const cells = read.cells.filter((c) => c.ts >= from);
  const crossingsFrom = (bucket: number) => (cell: (typeof cells)[number]) =>
    cell.bucket < bucket ? 0 : cell.kind === 'upper' ? cell.events : cell.kind === 'lower' ? -cell.events : 0;

  const perDay = Array.from({ length: input.lookbackDays }, () => 0);
  const counted = crossingsFrom(bucketOf(threshold));
  for (const cell of cells) perDay[Math.floor((cell.ts - firstDay) / DAY_MS)]! += counted(cell);
  const hits = at(threshold).filter((c) => c.occurredAt >= from);
  for (const hit of hits) perDay[Math.floor((hit.occurredAt - firstDay) / DAY_MS)]! += 1;

  const days = Math.max(1, (now - from) / DAY_MS);
  const histogram = histogramOf(at(OI_DELTA_LOWEST_PCT).map((c) => Math.abs(c.metrics.delta_pct as number)));
  for (const cell of cells.filter((c) => c.kind === 'first')) {
    histogram.counts.set(cell.bucket, (histogram.counts.get(cell.bucket) ?? 0) + cell.events);
    histogram.n += cell.events;
    histogram.max = Math.max(histogram.max, cell.max);
  }
  const exact = isExactEdge(threshold);
  const coveredHours = [...coverage.covered.values()].reduce((n, h) => n + h.size, 0);
  const notes = [
    `Whole hours were read from the crossings rollup (${coveredHours} family-hours), the rest replayed from the archive.`,
    exact
      ? 'Per-day counts are exact.'
      : `Per-day counts round the threshold ${threshold} down to the histogram bucket edge ${Number(bucketEdge(bucketOf(threshold)).toPrecision(6))} (16 buckets a decade, each about ${Math.round((BUCKET_RATIO - 1) * 100)}% wide).`,
    'Ladder rungs are bucket edges (shown to 4 significant digits), each the crossings at that threshold; distribution percentiles are the bucket edge below the moves that cross the lowest threshold (0.1%); max is exact.',
    ...(from > firstDay ? [cutNote] : []),
  ];
  return {
    event_type: decl.type,
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString() },
    ...perDayMembers(input, perDay),
    primary_metric: 'delta_pct',
    ladder: rungs.map((bucket) => {
      const count = cells.reduce((n, cell) => n + crossingsFrom(bucket)(cell), 0) + at(bucketEdge(bucket)).filter((c) => c.occurredAt >= from).length;
      return { value: Number(bucketEdge(bucket).toPrecision(4)), per_day: Number((count / days).toFixed(2)) };
    }),
    distribution:
      histogram.n === 0
        ? null
        : {
            n: histogram.n,
            p50: histogramPercentile(histogram, 50),
            p90: histogramPercentile(histogram, 90),
            p99: histogramPercentile(histogram, 99),
            max: histogram.max,
          },
    sample: (await shown(deps, config, hits.sort((a, b) => b.occurredAt - a.occurredAt).slice(0, ESTIMATE_SAMPLE))).map(occurrenceOf),
    basis: { mode: exact ? ('exact' as const) : ('sampled' as const), note: notes.join(' ') },
    rowsScanned: read.rowsRead,
  };
}
