/**
 * The estimate by replaying the window through the type's detector (paged and budgeted as dry-run),
 * counted in SQL where the detector has an SQL form, else by matching each occurrence.
 */
import { AppError } from '../errors.ts';
import type { Detection, Preview } from '../events/declare.ts';
import { detectorInput, type DetectorInput } from './reductions.ts';
import { matches } from './match.ts';
import { DAY_MS, SCAN_BUDGET_MS, type Scan, keeper, minuteScan, paramsOf, scan, shown } from './scan.ts';
import {
  type Counted,
  ESTIMATE_SAMPLE,
  type EstimateInput,
  LADDER_STEPS,
  cutNote,
  firstAtOrAbove,
  gatedParams,
  occurrenceOf,
  perDayMembers,
  percentNote,
  percentile,
} from './estimate-shape.ts';

/** The estimate by replaying the window through the detectors (paged and budgeted like dry-run). */
export async function estimateByReplay(
  input: EstimateInput,
  detection: Exclude<Detection, { kind: 'announced' }>,
  estimation: NonNullable<Preview['estimate']>,
) {
  const { deps, decl, config, firstDay, now } = input;
  const metric = estimation.metric;
  // A reduction answers the rules whose params it was kept for (the others are replayed).
  const reduced = estimation.reduced?.answers?.(paramsOf(detection, config)) === false ? undefined : estimation.reduced;
  const reducedInput = reduced
    ? await detectorInput(deps.archive, reduced, config.venue ?? decl.venues, config.symbols, reduced.since(firstDay), now)
    : undefined;
  // A rule with no condition or floor takes every occurrence its scope (the relation's families and symbols) holds: counted in SQL.
  const counted =
    reducedInput?.summarize && config.conditions.length === 0 && config.min_notional_usd === undefined && !decl.costFloor
      ? await countedInSql(input, detection, estimation, reducedInput.summarize)
      : await countedByMatching(input, detection, estimation, reducedInput);
  const { perDay, values, from, truncated } = counted;
  const days = Math.max(1, (now - from) / DAY_MS);
  const gate = estimation.gate;
  const configured = gate ? (config.params[gate.param] as number) : (config.min_notional_usd ?? decl.costFloor?.min);
  const base = configured ?? percentile(values, 50) ?? 0;
  const rungs = LADDER_STEPS.map((step) => Number((base * step).toPrecision(4)));
  const reducedNote =
    !reduced || !reducedInput
      ? []
      : [
          'reduction' in reduced.rows
            ? `The detector ran once over the whole window, reading the rows it needs from an hourly reduction (${reducedInput.coveredHours} family-hours), the other hours from the archive.`
            : 'The detector ran once over the whole window, reading its rows (one per event) from the archive at once.',
          ...(reduced.note ? [reduced.note] : []),
        ];
  const notes = [...reducedNote, ...(truncated ? [cutNote] : []), ...percentNote(config)];
  return {
    event_type: decl.type,
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString() },
    ...perDayMembers(input, perDay),
    primary_metric: metric,
    ladder: rungs.map((value) => ({ value, per_day: Number(((values.length - firstAtOrAbove(values, value)) / days).toFixed(2)) })),
    distribution:
      values.length === 0
        ? null
        : {
            n: values.length,
            p50: percentile(values, 50)!,
            p90: percentile(values, 90)!,
            p99: percentile(values, 99)!,
            max: values.at(-1)!,
          },
    sample: (await shown(deps, config, counted.newest)).map(occurrenceOf),
    // Every occurrence of the window was replayed through the detectors (none sampled or modelled);
    // from a reduction, in one pass over the whole window: exact.
    basis: { mode: reduced ? ('exact' as const) : ('replayed' as const), note: notes.length ? notes.join(' ') : null },
    rowsScanned: reducedInput ? reducedInput.rowsRead() : counted.rowsScanned,
  };
}

/** Counted by the detector's SQL over a reduction: no occurrence is decoded but the newest shown. */
async function countedInSql(
  input: EstimateInput,
  detection: Exclude<Detection, { kind: 'announced' }>,
  estimation: NonNullable<Preview['estimate']>,
  summarize: NonNullable<DetectorInput['summarize']>,
): Promise<Counted> {
  const { firstDay, now, config } = input;
  const { rule, lowest } = gatedParams(detection, config, estimation.gate);
  const [hits, pool] = await Promise.all([
    summarize(firstDay, now, rule, { metric: estimation.metric, absolute: estimation.absolute ?? false }, ESTIMATE_SAMPLE),
    lowest ? summarize(firstDay, now, paramsOf(detection, lowest), { metric: estimation.metric, absolute: estimation.absolute ?? false }, 0) : undefined,
  ]);
  const perDay = Array.from({ length: input.lookbackDays }, (_, i) => hits.perDay.get(firstDay + i * DAY_MS) ?? 0);
  return { perDay, newest: hits.newest, values: (pool ?? hits).values, from: firstDay, truncated: false, rowsScanned: 0 };
}

/** Counted by matching each occurrence with the rule: from a reduction's detector, or replayed page by page. */
async function countedByMatching(
  input: EstimateInput,
  detection: Exclude<Detection, { kind: 'announced' }>,
  estimation: NonNullable<Preview['estimate']>,
  reducedInput: DetectorInput | undefined,
): Promise<Counted> {
  const { deps, decl, config, watched, firstDay, now } = input;
  const deadline = now + SCAN_BUDGET_MS;
  const metric = estimation.metric;
  // The ladder's pool: the rule with no bound on its own metric; it holds every hit.
  const others = { ...config, conditions: config.conditions.filter((c) => c.metric !== metric), min_notional_usd: undefined };
  const keep = keeper(deps, decl, config, others, watched);
  const result: Scan = reducedInput
    ? { candidates: await keep(await reducedInput.detect(firstDay, now, [paramsOf(detection, config)])), from: firstDay, truncated: false, rowsScanned: 0 }
    : detection.kind === 'minute'
      ? await minuteScan(deps, detection, config, firstDay, now, deadline, keep)
      : await scan(deps, decl, detection, config, watched, firstDay, now, deadline, { keep });
  const hits = result.candidates.filter((c) => matches(decl, config, c, watched));
  const perDay = Array.from({ length: input.lookbackDays }, () => 0);
  for (const hit of hits) perDay[Math.floor((hit.occurredAt - firstDay) / DAY_MS)]! += 1;

  // The ladder: how often the rule would fire at other thresholds of its own metric, all else
  // equal. Param-gated types are replayed once more at their lowest threshold to see below it.
  let pool = result.candidates;
  // The gate's occurrences carry its params, so they are matched with them.
  let poolConfig = others;
  let from = Math.max(firstDay, result.from);
  let truncated = result.truncated;
  const { lowest } = gatedParams(detection, config, estimation.gate);
  if (lowest && detection.kind === 'minute') {
    // Judged against the rule's other filters, not its threshold: the gate takes the rule's params.
    const lowestKeep = keeper(deps, decl, lowest, { ...others, params: lowest.params }, watched);
    const gated: Scan | undefined = reducedInput
      ? { candidates: await lowestKeep(await reducedInput.detect(from, now, [paramsOf(detection, lowest)])), from, truncated: false, rowsScanned: 0 }
      : await minuteScan(deps, detection, lowest, from, now, deadline, lowestKeep).catch((error: unknown) => {
          // Out of time before its first day: the ladder has no values below the threshold to show.
          if (error instanceof AppError && error.code === 'scan_timeout') return undefined;
          throw error;
        });
    pool = gated?.candidates ?? [];
    poolConfig = { ...others, params: lowest.params };
    if (!gated || gated.truncated) truncated = true;
    if (gated) from = Math.max(from, gated.from);
  }
  const values = pool
    .filter((c) => c.occurredAt >= from && matches(decl, poolConfig, c, watched))
    .map((c) => c.metrics[metric])
    .filter((v): v is number => typeof v === 'number')
    .map((v) => (estimation.absolute ? Math.abs(v) : v))
    .sort((a, b) => a - b);
  const newest = hits.sort((a, b) => b.occurredAt - a.occurredAt).slice(0, ESTIMATE_SAMPLE);
  return { perDay, newest, values, from, truncated, rowsScanned: result.rowsScanned };
}
