/**
 * Previews of a rule before it costs deliveries (SPEC, estimate and dry-run): the archive window is
 * replayed through the same detectors, reference values and matcher that live delivery uses, so a
 * dry-run shows exactly what a subscription with that configuration would have been sent (minus
 * `max_age_s`, which only concerns outages). Neither creates a subscription or a delivery. The two
 * share a budget of 6 calls a minute per account; a scan that runs out of time is a 504.
 */
import { AppError } from '../errors.ts';
import type { Family } from '../venues.ts';
import type { ArchiveDeps } from '../../ports/archive.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { windowFiles, windowSource } from '../archive/read.ts';
import type { Clock } from '../../ports/clock.ts';
import type { WebhookStores } from '../../ports/webhooks.ts';
import type { BreadthStore } from '../../ports/breadth.ts';
import type { NormalizedRecord } from '../../../schemas/datasets.ts';
import { DRY_RUN_TYPES, ESTIMATE_TYPES, EVENT_DEFINITION_BY_TYPE } from '../events/registry.ts';
import type { Detection, EventDefinition, EventTypeDecl, Preview } from '../events/declare.ts';
import { BUCKET_RATIO, HOUR_MS, bucketEdge, bucketOf, isExactEdge, NO_VALUE_BUCKET, detectorInput, type DetectorInput, oiCrossingCells, oiCrossingsCoverage, readRollup, uncoveredSpans, type RollupSource } from './rollups.ts';
import { OI_DELTA_LOWEST_PCT, ROLLUPS } from '../archive/sql.ts';
import { normalizeConfig, type StoredConfig } from '../webhooks/filters.ts';
import type { Caller } from '../accounts.ts';
import { matches } from './match.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import type { ReferenceSource } from '../events/kit/relative-metrics.ts';
import { withReferences } from './dispatch.ts';
import { minuteContext } from '../events/kit/reads.ts';
export const PREVIEW_BUDGET = { calls: 6, windowMs: 60_000 } as const;
/** Most rows one preview scans; past it the window's start moves later and the answer says truncated. */
export const SCAN_ROW_CAP = 250_000;
/**
 * No page of a scan starts past this point of the call: what was read by then is answered, with
 * `truncated` and a later `window.from`. API Gateway gives up at 29 s; one page is an hour of one
 * dataset's files, so the call ends well inside it.
 */
export const SCAN_BUDGET_MS = 10_000;
/**
 * A scan pages through its window newest first: an hour a page on the window's last day (hour
 * files) and on a day part of which another source answered, a whole day otherwise (its day files
 * are opened once, not once an hour). Instants never straddle two pages.
 */
export const SCAN_PAGE_MS = 3_600_000;
/** Minute detectors are replayed a day of the window at a time (each reads its own lookback before it). */
const MINUTE_PAGE_MS = 86_400_000;
const DAY_MS = 86_400_000;
/** Seconds-class events reach the queue about a second after the block. */
const SECONDS_CLASS_LAG_MS = 1_000;

export interface PreviewDeps {
  store: Pick<WebhookStores, 'rules' | 'allowances'>;
  clock: Clock;
  archive: ArchiveDeps;
  breadth: BreadthStore;
  references: ReferenceSource;
}

async function takeBudget(deps: PreviewDeps, caller: Caller): Promise<void> {
  const now = deps.clock.now();
  const minute = Math.floor(now / PREVIEW_BUDGET.windowMs);
  if (!(await deps.store.allowances.takeToken(caller.id, `PREVIEW#${minute}`, PREVIEW_BUDGET.calls, Math.floor(now / 1000) + 3_600))) {
    const retryAfter = Math.max(1, Math.ceil(((minute + 1) * PREVIEW_BUDGET.windowMs - now) / 1000));
    throw new AppError('rate_limited', `Estimate and dry-run share ${PREVIEW_BUDGET.calls} calls a minute per account; retry in ${retryAfter} s.`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}

function previewDefinition(eventType: unknown, supported: readonly string[], what: string): EventDefinition & { detection: Detection } {
  const definition = typeof eventType === 'string' ? EVENT_DEFINITION_BY_TYPE.get(eventType) : undefined;
  if (!definition?.detection || !supported.includes(definition.declaration.type)) {
    throw new AppError('invalid_parameter', `${what} is available for: ${supported.join(', ')}.`, { param: 'event_type', validValues: supported });
  }
  return definition;
}

function configOf(body: Record<string, unknown>): unknown {
  if (body.filters !== undefined && body.config !== undefined) throw new AppError('invalid_parameter', 'Send config or its alias filters, not both.', { param: 'config' });
  return body.config ?? body.filters;
}

/** What a scan read: the candidates of [from, to), `from` moved later when the scan was cut (`truncated`). */
export interface Scan { candidates: Candidate[]; from: number; truncated: boolean; rowsScanned: number }

/** The scan's pages of [from, to), newest first (see SCAN_PAGE_MS). */
function scanPages(from: number, to: number, answered?: ReadonlyMap<string, ReadonlySet<number>>): [number, number][] {
  const lastDay = Math.floor((to - 1) / DAY_MS) * DAY_MS;
  const pages: [number, number][] = [];
  for (let day = lastDay; day + DAY_MS > from; day -= DAY_MS) {
    const [start, end] = [Math.max(from, day), Math.min(to, day + DAY_MS)];
    const partlyAnswered = [...(answered?.values() ?? [])].some((hours) => [...hours].some((h) => h >= day && h < day + DAY_MS));
    if (day === lastDay || partlyAnswered) pages.push(...pagesOf(start, end, SCAN_PAGE_MS));
    else pages.push([start, end]);
  }
  return pages;
}

/** The pages of [from, to), newest first: [pageFrom, pageTo) each. */
function pagesOf(from: number, to: number, pageMs: number): [number, number][] {
  const pages: [number, number][] = [];
  for (let end = to; end > from; end = Math.max(from, Math.ceil(end / pageMs - 1) * pageMs)) {
    pages.push([Math.max(from, Math.ceil(end / pageMs - 1) * pageMs), end]);
  }
  return pages;
}

/**
 * Which of a page's candidates a preview keeps: those `pool` lets through (scope, floor and the
 * conditions it has), with the relative metrics computed for them only when a condition of the
 * rule reads one. Those take an archive read per occurrence's minute, so they are worked out for
 * what survives the other conditions, never for every occurrence of the window.
 */
export function keeper(deps: Pick<PreviewDeps, 'references'>, decl: EventTypeDecl, rule: StoredConfig, pool: StoredConfig, watched: ReadonlySet<string>) {
  const relative = (c: { metric: string }) => c.metric.startsWith('notional_pct_');
  const needsReferences = rule.conditions.some(relative);
  const absolute = { ...pool, conditions: pool.conditions.filter((c) => !relative(c)) };
  return async (candidates: readonly Candidate[]): Promise<Candidate[]> => {
    const survivors = candidates.filter((c) => matches(decl, absolute, c, watched));
    if (!needsReferences) return survivors;
    return (await withReferences(survivors, deps.references, { batched: true })).filter((c) => matches(decl, pool, c, watched));
  };
}

/** The delivered form of the occurrences shown: relative metrics added where the keeper did not. */
export async function shown(deps: Pick<PreviewDeps, 'references'>, rule: StoredConfig, candidates: Candidate[]): Promise<Candidate[]> {
  return rule.conditions.some((c) => c.metric.startsWith('notional_pct_')) ? candidates : withReferences(candidates, deps.references, { batched: true });
}

interface ScanOptions {
  /** Most rows read before the window is cut (default SCAN_ROW_CAP). */
  rowCap?: number;
  /** Keeps a page's candidates worth keeping (see keeper); all of them by default. */
  keep?: (candidates: readonly Candidate[]) => Promise<Candidate[]>;
  /** Pages (hours) of a family another source has already answered for (the estimate's rollups): not read. */
  answered?: ReadonlyMap<string, ReadonlySet<number>>;
}

const keepAll = async (candidates: readonly Candidate[]) => [...candidates];

/**
 * Replays [from, to) through a batch detector, reading only the files of the rule's venues and
 * symbols, a page (an hour) at a time, newest first, each page's occurrences detected as it is
 * read (an instant is never split between pages, so this is what one pass would find). When the
 * row cap or the time budget runs out, the window's start moves to the start of the last page read
 * whole (or, inside a page, to just after the last instant read whole) and the scan says
 * truncated. Out of time before any page: 504.
 */
export async function scan(
  deps: Pick<PreviewDeps, 'archive' | 'clock' | 'references'>, decl: EventTypeDecl, detection: Extract<Detection, { kind: 'batch' }>, config: StoredConfig,
  watched: ReadonlySet<string>, from: number, to: number, deadline: number, options: ScanOptions = {},
): Promise<Scan> {
  const keep = options.keep ?? keepAll;
  const rowCap = options.rowCap ?? SCAN_ROW_CAP;
  const families = (config.venue ?? decl.venues).filter((v) => !whollyBeforeCoverage(detection.reads, v, to - 1));
  const addresses = [...(config.addresses ?? watched)];
  if (deps.clock.now() > deadline) throw scanTimeout();
  const listed = await Promise.all(families.map(async (family) => ({
    family,
    // Only the hours no rollup answers are listed (the open hour's files without the day's per-symbol ones: see unsettledFrom).
    files: (await Promise.all(uncoveredSpans(from, to, (hour) => options.answered?.get(family)?.has(hour) ?? false).map(([spanFrom, spanTo]) =>
      windowFiles(deps.archive, { dataset: detection.reads, family, from: spanFrom, to: spanTo - 1, symbols: config.symbols })))).flat(),
  })));
  const candidates: Candidate[] = [];
  let rowsScanned = 0;
  let start = to;
  let truncated = false;
  for (const [pageFrom, pageTo] of scanPages(from, to, options.answered)) {
    if (deps.clock.now() > deadline) {
      if (start === to) throw scanTimeout();
      truncated = true;
      break;
    }
    let page: NormalizedRecord[] = [];
    for (const { family, files } of listed) {
      if (options.answered?.get(family)?.has(pageFrom) && pageTo - pageFrom === SCAN_PAGE_MS) continue;
      const window = await windowSource(deps.archive, { dataset: detection.reads, family, from: pageFrom, to: pageTo - 1, symbols: config.symbols }, files);
      if (!window) continue;
      const where: string[] = [];
      const params = { ...window.params, p_limit: Math.min(rowCap - rowsScanned + 1, Number.MAX_SAFE_INTEGER) } as Record<string, unknown>;
      if (detection.addressColumn) {
        where.push(`list_contains($p_addresses, "${detection.addressColumn}")`);
        params.p_addresses = addresses;
      }
      const columns = detection.columns ? detection.columns.map((c) => `"${c}"`).join(', ') : '*';
      const found = await deps.archive.sql.query({
        sql: `SELECT ${columns} FROM (${window.sql}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts DESC LIMIT $p_limit`,
        params: params as never,
      });
      for (const row of found) page.push({ ...row, dataset: detection.reads, family } as unknown as NormalizedRecord);
    }
    page.sort((a, b) => b.ts - a.ts);
    let cut: number | undefined;
    if (rowsScanned + page.length > rowCap) {
      // Keep whole instants only: the cut instant may be split between what was read and what was not.
      cut = page[rowCap - rowsScanned]!.ts;
      page = page.filter((r) => r.ts > cut!);
    }
    rowsScanned += page.length;
    candidates.push(...await keep(detection.detect(page, new Set(addresses))));
    if (cut !== undefined) {
      start = cut + 1;
      truncated = true;
      break;
    }
    start = pageFrom;
  }
  return { candidates, from: start, truncated, rowsScanned };
}

/** The params a minute detection reads, from a rule's configuration. */
const paramsOf = (detection: Detection, config: StoredConfig): Record<string, unknown> =>
  (detection.kind === 'minute' ? Object.fromEntries(detection.params.map((k) => [k, config.params[k]])) : {});

/**
 * Minute-class types replay their detector over the window with the configuration's own params, a
 * day at a time newest first, under the same budget as `scan`.
 */
async function minuteScan(
  deps: Omit<PreviewDeps, 'store'>, detection: Extract<Detection, { kind: 'minute' }>, config: StoredConfig, from: number, to: number, deadline: number, keep = keepAll,
): Promise<Scan> {
  const params = Object.fromEntries(detection.params.map((k) => [k, config.params[k]]));
  const candidates: Candidate[] = [];
  let start = to;
  let truncated = false;
  for (const [pageFrom, pageTo] of pagesOf(from, to, MINUTE_PAGE_MS)) {
    if (deps.clock.now() > deadline) {
      if (start === to) throw scanTimeout();
      truncated = true;
      break;
    }
    candidates.push(...await keep(await detection.detect(minuteContext(deps, pageFrom, pageTo), [params])));
    start = pageFrom;
  }
  return { candidates, from: start, truncated, rowsScanned: 0 };
}

/**
 * Every occurrence of [from, to) a detection finds, kept by `keep`, with no time budget or row cap
 * (a replay job's day: the task has minutes, and pages keep memory to an hour of rows).
 */
export async function replayWindow(
  deps: Omit<PreviewDeps, 'store'>, decl: EventTypeDecl, detection: Detection, config: StoredConfig, watched: ReadonlySet<string>, from: number, to: number,
  keep: (candidates: readonly Candidate[]) => Promise<Candidate[]>,
): Promise<Scan> {
  if (detection.kind === 'announced') throw new Error(`${decl.type} is not detected from the archive`);
  if (detection.kind === 'minute') return minuteScan(deps, detection, config, from, to, Infinity, keep);
  return scan(deps, decl, detection, config, watched, from, to, Infinity, { keep, rowCap: Infinity });
}

const scanTimeout = () => new AppError('scan_timeout', 'The scan ran out of time; retry with a shorter lookback_s (dry-run) or lookback_days (estimate).');

/**
 * A read that gives up on its own (an SDK request or a file download timing out while the machine
 * is busy) is the scan running out of time, a 504 with the spec's body, not a server error.
 */
async function withinScanTime<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Error && !(error instanceof AppError) && (error.name === 'TimeoutError' || error.name === 'AbortError' || /timed? ?out/i.test(error.message))) {
      throw new AppError('scan_timeout', scanTimeout().message, { cause: error });
    }
    throw error;
  }
}

function integerIn(body: Record<string, unknown>, name: string, range: { min: number; max: number; default: number }): number {
  const value = body[name] ?? range.default;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    throw new AppError('invalid_parameter', `${name} is a whole number from ${range.min} to ${range.max}.`, { param: name });
  }
  return value;
}

const BODY_KEYS = { 'dry-run': ['event_type', 'config', 'filters', 'lookback_s', 'limit'], estimate: ['event_type', 'config', 'filters', 'lookback_days'] };

function checkKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw new AppError('invalid_parameter', `Unknown member ${key}; the body takes: ${allowed.join(', ')}.`, { param: key, validValues: allowed });
  }
}

async function prepare(deps: PreviewDeps, caller: Caller, body: Record<string, unknown>, supported: readonly string[], what: string) {
  const definition = previewDefinition(body.event_type, supported, what);
  const decl = definition.declaration;
  const watched = new Set((await deps.store.rules.listAddresses(caller.id)).map((a) => a.address));
  const config = normalizeConfig(decl, configOf(body), watched);
  if (decl.scope === 'addresses' && watched.size === 0) {
    throw new AppError('invalid_parameter', `${decl.type} fires for watched addresses only, and this account watches none; add one with POST /v1/webhooks/addresses.`, { param: 'event_type' });
  }
  return { decl, detection: definition.detection, estimation: definition.preview?.estimate, config, watched };
}

/** POST /v1/webhooks/subscriptions/dry-run */
export async function dryRun(deps: PreviewDeps, caller: Caller, body: Record<string, unknown>) {
  checkKeys(body, BODY_KEYS['dry-run']);
  const lookbackS = integerIn(body, 'lookback_s', { min: 60, max: 86_400, default: 3_600 });
  const limit = integerIn(body, 'limit', { min: 1, max: 200, default: 100 });
  const { decl, detection, config, watched } = await prepare(deps, caller, body, DRY_RUN_TYPES, 'Dry-run');
  if (detection.kind !== 'batch') throw new Error(`Dry-run of ${decl.type} needs a batch detector`);
  await takeBudget(deps, caller);
  const now = deps.clock.now();
  const to = now;
  // Addresses are matched as watched now, including time before they were added (the scan covers it).
  const keep = keeper(deps, decl, config, config, watched);
  const result = await withinScanTime(() => scan(deps, decl, detection, config, watched, to - lookbackS * 1000, to, now + SCAN_BUDGET_MS, { keep }));
  const hits = result.candidates.sort((a, b) => b.occurredAt - a.occurredAt);
  return {
    event_type: decl.type,
    window: { from: new Date(result.from).toISOString(), to: new Date(to).toISOString() },
    matched: hits.length,
    truncated: result.truncated || hits.length > limit,
    occurrences: (await withinScanTime(() => shown(deps, config, hits.slice(0, limit)))).map(occurrenceOf),
  };
}


/** Ten rungs around the configured threshold (or the median when the rule has none). */
/** An occurrence as a preview shows it: when it would have been delivered, and its `data`. */
const occurrenceOf = (c: Candidate) => ({ observed_at_estimate: new Date(c.occurredAt + SECONDS_CLASS_LAG_MS).toISOString(), data: c.data });

/** Matched occurrences an estimate shows, newest first. */
const ESTIMATE_SAMPLE = 5;

const LADDER_STEPS = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10] as const;

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The histogram of a metric: events per bucket (see rollups.ts), and the largest value. */
interface Histogram { counts: Map<number, number>; n: number; max: number }

function histogramOf(values: readonly number[]): Histogram {
  const counts = new Map<number, number>();
  for (const v of values) if (v > 0) counts.set(bucketOf(v), (counts.get(bucketOf(v)) ?? 0) + 1);
  return { counts, n: values.filter((v) => v > 0).length, max: values.filter((v) => v > 0).reduce((m, v) => Math.max(m, v), -Infinity) };
}

/** Events in buckets from `bucket` up. */
const atOrAbove = (h: Histogram, bucket: number) => [...h.counts].reduce((sum, [b, n]) => (b >= bucket ? sum + n : sum), 0);

/** The lower edge of the bucket holding the p-th percentile (the same rank `percentile` takes). */
function histogramPercentile(h: Histogram, p: number): number {
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
function lowerBoundOnly(decl: EventTypeDecl, config: StoredConfig, metric: string): { threshold: number; strict: boolean } | undefined {
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

interface EstimateInput {
  deps: PreviewDeps; decl: EventTypeDecl; config: StoredConfig; watched: ReadonlySet<string>; lookbackDays: number; firstDay: number; now: number;
}

/** The response members both ways of estimating share: per-day counts and their summary. */
function perDayMembers(input: EstimateInput, perDay: readonly number[]) {
  const sortedDays = [...perDay].sort((a, b) => a - b);
  return {
    days: input.lookbackDays,
    total: perDay.reduce((a, b) => a + b, 0),
    per_day: perDay.map((count, i) => ({ date: new Date(input.firstDay + i * DAY_MS).toISOString().slice(0, 10), count })),
    per_day_p50: percentile(sortedDays, 50) ?? 0,
    per_day_max: sortedDays.at(-1) ?? 0,
  };
}

const percentNote = (config: StoredConfig) => (config.conditions.some((c) => c.metric.startsWith('notional_pct_'))
  ? ['Percent thresholds were evaluated against the reference values at each occurrence (volume and open interest from the archive).'] : []);
const cutNote = 'The scan reached its row cap or time budget; the window starts later than asked.';

/**
 * The estimate from a type's hourly rollup: whole hours from the rollup's histogram, the hours it
 * does not cover yet (the open hour, unfolded deltas) replayed from raw rows. Per-day counts are
 * exact when the rule's threshold is a bucket edge (a power of ten, as the cost floors are); the
 * ladder's rungs are bucket edges, so each is exact; percentiles are the edge below them.
 */
async function estimateFromRollup(
  input: EstimateInput, detection: Extract<Detection, { kind: 'batch' }>, rollup: RollupSource, metric: string, bound: { threshold: number; strict: boolean },
) {
  const { deps, decl, config, watched, firstDay, now } = input;
  const deadline = now + SCAN_BUDGET_MS;
  const families = (config.venue ?? decl.venues).filter((v) => !whollyBeforeCoverage(detection.reads, v, now - 1));
  const addresses = ROLLUPS[rollup].perWallet ? [...(config.addresses ?? watched)] : undefined;
  const read = await readRollup(deps.archive, rollup, families, config.symbols, firstDay, now, addresses);
  // The ladder and distribution take every occurrence the rule's scope and floor let through, whatever its threshold.
  const others = { ...config, conditions: [], min_notional_usd: undefined };
  const tail = await scan(deps, decl, detection, config, watched, firstDay, now, deadline, { answered: read.covered, keep: keeper(deps, decl, config, others, watched) });
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
    distribution: histogram.n === 0 ? null : {
      n: histogram.n, p50: histogramPercentile(histogram, 50), p90: histogramPercentile(histogram, 90), p99: histogramPercentile(histogram, 99), max: histogram.max,
    },
    // Only the replayed hours have occurrences to show; the rollup keeps counts.
    sample: (await shown(deps, config, hits.sort((a, b) => b.occurredAt - a.occurredAt).slice(0, ESTIMATE_SAMPLE))).map(occurrenceOf),
    basis: { mode: exact ? 'exact' as const : 'sampled' as const, note: notes.join(' ') },
    rowsScanned: tail.rowsScanned + read.rowsRead,
  };
}

/** POST /v1/webhooks/subscriptions/estimate */
export async function estimate(deps: PreviewDeps, caller: Caller, body: Record<string, unknown>) {
  const { rowsScanned: _rows, ...answer } = await estimateWithCost(deps, caller, body);
  return answer;
}

/** The estimate and the rows it read (what the bench compares). */
export async function estimateWithCost(deps: PreviewDeps, caller: Caller, body: Record<string, unknown>) {
  checkKeys(body, BODY_KEYS.estimate);
  const lookbackDays = integerIn(body, 'lookback_days', { min: 1, max: 30, default: 7 });
  const { decl, detection, estimation, config, watched } = await prepare(deps, caller, body, ESTIMATE_TYPES, 'Estimate');
  if (detection.kind === 'announced' || !estimation) throw new Error(`Estimate of ${decl.type} needs a detector over the archive and a ladder metric`);
  await takeBudget(deps, caller);
  const now = deps.clock.now();
  // Whole UTC days, oldest first, ending with today so far.
  const firstDay = Math.floor(now / DAY_MS) * DAY_MS - (lookbackDays - 1) * DAY_MS;
  const input: EstimateInput = { deps, decl, config, watched, lookbackDays, firstDay, now };
  const bound = estimation.rollup && detection.kind === 'batch' ? lowerBoundOnly(decl, config, estimation.metric) : undefined;
  if (bound && estimation.rollup && detection.kind === 'batch') {
    return withinScanTime(() => estimateFromRollup(input, detection, estimation.rollup!, estimation.metric, bound));
  }
  if (estimation.crossings && detection.kind === 'minute' && config.conditions.length === 0 && config.min_notional_usd === undefined) {
    return withinScanTime(() => estimateFromCrossings(input, detection));
  }
  return withinScanTime(() => estimateByReplay(input, detection, estimation));
}

/**
 * market.oi_delta's estimate from its crossing histograms (oi_crossings): the crossings at a
 * threshold T of the rule's window are #{move >= T} - #{previous same-way move >= T} per covered
 * slot, so the rule's per-day counts and every rung of the ladder come from the same cells, exact
 * at bucket edges; the hours the rollup does not cover (the open hour, unfolded deltas) are
 * replayed through the detector at the rule's threshold, each rung and the lowest threshold at once.
 */
async function estimateFromCrossings(input: EstimateInput, detection: Extract<Detection, { kind: 'minute' }>) {
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
      const page = await detection.detect(minuteContext(deps, pageFrom, pageTo), thresholds.map((t) => ({ window_s: windowS, threshold_pct: t })));
      // Scope and floor as the rule has them; hours a family's rollup answered are not counted twice.
      found.push(...page.filter((c) => !covered(c.venue, Math.floor(c.occurredAt / HOUR_MS) * HOUR_MS)
        && matches(decl, { ...config, params: { ...config.params, ...c.params } }, c, watched)));
    }
    return { found, from: firstDay };
  };
  const [read, { found: replayed, from }] = await Promise.all([oiCrossingCells(deps.archive, coverage, config.symbols, windowS, firstDay, now), replay()]);
  const at = (t: number) => replayed.filter((c) => c.params?.threshold_pct === t);
  const cells = read.cells.filter((c) => c.ts >= from);
  const crossingsFrom = (bucket: number) => (cell: (typeof cells)[number]) => (cell.bucket < bucket ? 0 : cell.kind === 'upper' ? cell.events : cell.kind === 'lower' ? -cell.events : 0);

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
    distribution: histogram.n === 0 ? null : {
      n: histogram.n, p50: histogramPercentile(histogram, 50), p90: histogramPercentile(histogram, 90), p99: histogramPercentile(histogram, 99), max: histogram.max,
    },
    sample: (await shown(deps, config, hits.sort((a, b) => b.occurredAt - a.occurredAt).slice(0, ESTIMATE_SAMPLE))).map(occurrenceOf),
    basis: { mode: exact ? 'exact' as const : 'sampled' as const, note: notes.join(' ') },
    rowsScanned: read.rowsRead,
  };
}

/** What an estimate counts: per-day occurrences of the rule, its newest, and the ladder's values (ascending). */
interface Counted { perDay: number[]; newest: Candidate[]; values: number[]; from: number; truncated: boolean; rowsScanned: number }

/** The estimate by replaying the window through the detectors (paged and budgeted like dry-run). */
async function estimateByReplay(input: EstimateInput, detection: Exclude<Detection, { kind: 'announced' }>, estimation: NonNullable<Preview['estimate']>) {
  const { deps, decl, config, firstDay, now } = input;
  const metric = estimation.metric;
  // A reduction answers the rules whose params it was kept for (the others are replayed).
  const reduced = estimation.reduced?.answers?.(paramsOf(detection, config)) === false ? undefined : estimation.reduced;
  const reducedInput = reduced ? await detectorInput(deps.archive, reduced, config.venue ?? decl.venues, config.symbols, reduced.since(firstDay), now) : undefined;
  // A rule with no condition or floor takes every occurrence its scope (the relation's families and symbols) holds: counted in SQL.
  const counted = reducedInput?.summarize && config.conditions.length === 0 && config.min_notional_usd === undefined && !decl.costFloor
    ? await countedInSql(input, detection, estimation, reducedInput.summarize)
    : await countedByMatching(input, detection, estimation, reducedInput);
  const { perDay, values, from, truncated } = counted;
  const days = Math.max(1, (now - from) / DAY_MS);
  const gate = estimation.gate;
  const configured = gate ? (config.params[gate.param] as number) : (config.min_notional_usd ?? decl.costFloor?.min);
  const base = configured ?? percentile(values, 50) ?? 0;
  const rungs = LADDER_STEPS.map((step) => Number((base * step).toPrecision(4)));
  const reducedNote = !reduced || !reducedInput ? [] : [
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
    distribution: values.length === 0 ? null : {
      n: values.length, p50: percentile(values, 50)!, p90: percentile(values, 90)!, p99: percentile(values, 99)!, max: values.at(-1)!,
    },
    sample: (await shown(deps, config, counted.newest)).map(occurrenceOf),
    // Every occurrence of the window was replayed through the detectors (none sampled or modelled);
    // from a reduction, in one pass over the whole window: exact.
    basis: { mode: reduced ? 'exact' as const : 'replayed' as const, note: notes.length ? notes.join(' ') : null },
    rowsScanned: reducedInput ? reducedInput.rowsRead() : counted.rowsScanned,
  };
}

/** The first index of ascending `values` at or above `value`. */
function firstAtOrAbove(values: readonly number[], value: number): number {
  let [lo, hi] = [0, values.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! >= value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The rule's param set and, for a param-gated type, its lowest threshold's (the ladder's pool, to see below the rule). */
function gatedParams(detection: Detection, config: StoredConfig, gate: NonNullable<Preview['estimate']>['gate']) {
  const lowest = gate && detection.kind === 'minute' ? { ...config, params: { ...config.params, [gate.param]: gate.lowest, ...gate.fixed } } : undefined;
  return { rule: paramsOf(detection, config), lowest };
}

/** Counted by the detector's SQL over a reduction: no occurrence is decoded but the newest shown. */
async function countedInSql(
  input: EstimateInput, detection: Exclude<Detection, { kind: 'announced' }>, estimation: NonNullable<Preview['estimate']>,
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
  input: EstimateInput, detection: Exclude<Detection, { kind: 'announced' }>, estimation: NonNullable<Preview['estimate']>, reducedInput: DetectorInput | undefined,
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
  const values = pool.filter((c) => c.occurredAt >= from && matches(decl, poolConfig, c, watched))
    .map((c) => c.metrics[metric]).filter((v): v is number => typeof v === 'number').map((v) => (estimation.absolute ? Math.abs(v) : v)).sort((a, b) => a - b);
  const newest = hits.sort((a, b) => b.occurredAt - a.occurredAt).slice(0, ESTIMATE_SAMPLE);
  return { perDay, newest, values, from, truncated, rowsScanned: result.rowsScanned };
}
