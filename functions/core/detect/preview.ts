/**
 * Previews of a rule before it costs deliveries (SPEC, estimate and dry-run): the archive window is
 * replayed through the same detectors, reference values and matcher that live delivery uses, so a
 * dry-run shows exactly what a subscription with that configuration would have been sent (minus
 * `max_age_s`, which only concerns outages). Neither creates a subscription or a delivery. The two
 * share a budget of 6 calls a minute per account; a scan that runs out of time is a 504.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '../../ports/archive.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { windowSource } from '../archive/read.ts';
import type { Clock } from '../../ports/clock.ts';
import type { WebhookStores } from '../../ports/webhooks.ts';
import type { BreadthStore } from '../../ports/breadth.ts';
import type { NormalizedRecord } from '../../../schemas/datasets.ts';
import { DRY_RUN_TYPES, ESTIMATE_TYPES, EVENT_DEFINITION_BY_TYPE } from '../events/registry.ts';
import type { Detection, EventDefinition, EventTypeDecl } from '../events/declare.ts';
import { normalizeConfig, type StoredConfig } from '../webhooks/filters.ts';
import type { Caller } from '../accounts.ts';
import { matches } from './match.ts';
import type { Candidate } from './candidate.ts';
import type { ReferenceSource } from './relative-metrics.ts';
import { withReferences } from './dispatch.ts';
import { minuteContext } from './minute-reads.ts';
export const PREVIEW_BUDGET = { calls: 6, windowMs: 60_000 } as const;
/** Most rows one preview scans; past it the window's start moves later and the answer says truncated. */
export const SCAN_ROW_CAP = 250_000;
/** API Gateway gives up at 29 s; a scan still running at this point answers 504 instead. */
export const SCAN_BUDGET_MS = 20_000;
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

interface Scan { candidates: Candidate[]; from: number; truncated: boolean }

/**
 * Replays [from, to) through the detectors. Rows are read newest first up to the row cap; when the
 * cap cuts the window, its start moves to just after the last instant read whole.
 */
async function scan(
  deps: PreviewDeps, decl: EventTypeDecl, detection: Extract<Detection, { kind: 'batch' }>, config: StoredConfig, watched: ReadonlySet<string>, from: number, to: number, deadline: number,
): Promise<Scan> {
  const families = (config.venue ?? decl.venues).filter((v) => !whollyBeforeCoverage(detection.reads, v, to));
  const addresses = [...(config.addresses ?? watched)];
  const rows: NormalizedRecord[] = [];
  for (const family of families) {
    if (deps.clock.now() > deadline) throw scanTimeout();
    const window = await windowSource(deps.archive, { dataset: detection.reads, family, from, to: to - 1 });
    if (!window) continue;
    const where: string[] = [];
    const params = { ...window.params, p_limit: SCAN_ROW_CAP + 1 } as Record<string, unknown>;
    if (config.symbols) {
      where.push('list_contains($p_symbols, symbol)');
      params.p_symbols = config.symbols;
    }
    if (detection.addressColumn) {
      where.push(`list_contains($p_addresses, "${detection.addressColumn}")`);
      params.p_addresses = addresses;
    }
    const found = await deps.archive.sql.query({
      sql: `SELECT * FROM (${window.sql}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts DESC LIMIT $p_limit`,
      params: params as never,
    });
    for (const row of found) rows.push({ ...row, dataset: detection.reads, family } as unknown as NormalizedRecord);
  }
  rows.sort((a, b) => b.ts - a.ts);
  let truncated = false;
  let start = from;
  if (rows.length > SCAN_ROW_CAP) {
    // Keep whole instants only: the cut instant may be split between what was read and what was not.
    const cut = rows[SCAN_ROW_CAP]!.ts;
    rows.splice(rows.findIndex((r) => r.ts <= cut));
    start = cut + 1;
    truncated = true;
  }
  if (deps.clock.now() > deadline) throw scanTimeout();
  const candidates = await withReferences(detection.detect(rows, new Set(addresses)), deps.references);
  return { candidates, from: start, truncated };
}

/** Minute-class types replay their detector over the window with the configuration's own params. */
async function minuteScan(deps: PreviewDeps, detection: Extract<Detection, { kind: 'minute' }>, config: StoredConfig, from: number, to: number, deadline: number): Promise<Scan> {
  const params = Object.fromEntries(detection.params.map((k) => [k, config.params[k]]));
  const candidates = await detection.detect(minuteContext(deps, from, to), [params]);
  if (deps.clock.now() > deadline) throw scanTimeout();
  return { candidates: await withReferences(candidates, deps.references), from, truncated: false };
}

const scanTimeout = () => new AppError('scan_timeout', 'The scan ran out of time; retry with a shorter lookback_s.');

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
  const result = await scan(deps, decl, detection, config, watched, to - lookbackS * 1000, to, now + SCAN_BUDGET_MS);
  // Addresses are matched as watched now, including time before they were added (the scan covers it).
  const hits = result.candidates.filter((c) => matches(decl, config, c, watched)).sort((a, b) => b.occurredAt - a.occurredAt);
  return {
    event_type: decl.type,
    window: { from: new Date(result.from).toISOString(), to: new Date(to).toISOString() },
    matched: hits.length,
    truncated: result.truncated || hits.length > limit,
    occurrences: hits.slice(0, limit).map(occurrenceOf),
  };
}

const DAY_MS = 86_400_000;

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

/** POST /v1/webhooks/subscriptions/estimate */
export async function estimate(deps: PreviewDeps, caller: Caller, body: Record<string, unknown>) {
  checkKeys(body, BODY_KEYS.estimate);
  const lookbackDays = integerIn(body, 'lookback_days', { min: 1, max: 30, default: 7 });
  const { decl, detection, estimation, config, watched } = await prepare(deps, caller, body, ESTIMATE_TYPES, 'Estimate');
  if (detection.kind === 'announced' || !estimation) throw new Error(`Estimate of ${decl.type} needs a detector over the archive and a ladder metric`);
  await takeBudget(deps, caller);
  const now = deps.clock.now();
  // Whole UTC days, oldest first, ending with today so far.
  const firstDay = Math.floor(now / DAY_MS) * DAY_MS - (lookbackDays - 1) * DAY_MS;
  const result = detection.kind === 'minute'
    ? await minuteScan(deps, detection, config, firstDay, now, now + SCAN_BUDGET_MS)
    : await scan(deps, decl, detection, config, watched, firstDay, now, now + SCAN_BUDGET_MS);
  const hits = result.candidates.filter((c) => matches(decl, config, c, watched));
  const perDay = Array.from({ length: lookbackDays }, () => 0);
  for (const hit of hits) perDay[Math.floor((hit.occurredAt - firstDay) / DAY_MS)]! += 1;
  const sortedDays = [...perDay].sort((a, b) => a - b);

  // The ladder: how often the rule would fire at other thresholds of its own metric, all else
  // equal. Param-gated types are replayed once more at their lowest threshold to see below it.
  const metric = estimation.metric;
  const gate = estimation.gate;
  let pool = result.candidates;
  if (gate && detection.kind === 'minute') {
    const lowest = { ...config, params: { ...config.params, [gate.param]: gate.lowest, ...gate.fixed } };
    // Judged against the rule's other filters, not its threshold: the gate takes the rule's params.
    pool = (await minuteScan(deps, detection, lowest, firstDay, now, now + SCAN_BUDGET_MS)).candidates
      .map((c) => ({ ...c, params: c.params && { ...c.params, ...config.params } }));
  }
  const others = { ...config, conditions: config.conditions.filter((c) => c.metric !== metric), min_notional_usd: undefined };
  const values = pool.filter((c) => matches(decl, others, c, watched))
    .map((c) => c.metrics[metric]).filter((v): v is number => typeof v === 'number').map((v) => (estimation.absolute ? Math.abs(v) : v)).sort((a, b) => a - b);
  const days = Math.max(1, (now - Math.max(firstDay, result.from)) / DAY_MS);
  const configured = gate ? (config.params[gate.param] as number) : (config.min_notional_usd ?? decl.costFloor?.min);
  const base = configured ?? percentile(values, 50) ?? 0;
  const rungs = LADDER_STEPS.map((step) => Number((base * step).toPrecision(4)));
  const notes = [
    ...(result.truncated ? ['The scan reached its row cap; the window starts later than asked.'] : []),
    ...(config.conditions.some((c) => c.metric.startsWith('notional_pct_'))
      ? ['Percent thresholds were evaluated against the reference values at each occurrence (volume and open interest from the archive).'] : []),
  ];
  return {
    event_type: decl.type,
    window: { from: new Date(Math.max(firstDay, result.from)).toISOString(), to: new Date(now).toISOString() },
    days: lookbackDays,
    total: hits.length,
    per_day: perDay.map((count, i) => ({ date: new Date(firstDay + i * DAY_MS).toISOString().slice(0, 10), count })),
    per_day_p50: percentile(sortedDays, 50) ?? 0,
    per_day_max: sortedDays.at(-1) ?? 0,
    primary_metric: metric,
    ladder: rungs.map((value) => ({ value, per_day: Number((values.filter((v) => v >= value).length / days).toFixed(2)) })),
    distribution: values.length === 0 ? null : {
      n: values.length, p50: percentile(values, 50)!, p90: percentile(values, 90)!, p99: percentile(values, 99)!, max: values.at(-1)!,
    },
    sample: hits.slice(0, ESTIMATE_SAMPLE).map(occurrenceOf),
    // Every occurrence of the window was replayed through the detectors (none sampled or modelled).
    basis: { mode: 'replayed' as const, note: notes.length ? notes.join(' ') : null },
  };
}
