/**
 * Previews of a rule before it costs deliveries (SPEC, estimate and dry-run): the archive window is
 * replayed through the same detectors, reference values and matcher that live delivery uses, so a
 * dry-run shows exactly what a subscription with that configuration would have been sent (minus
 * `max_age_s`, which only concerns outages). Neither creates a subscription or a delivery. The two
 * share a budget of 6 calls a minute per account; a scan that runs out of time is a 504.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { DRY_RUN_TYPES, ESTIMATE_TYPES, EVENT_DEFINITION_BY_TYPE } from '../events/registry.ts';
import type { Detection, EventDefinition } from '../events/declare.ts';
import { normalizeConfig } from '../webhooks/filters.ts';
import type { Caller } from '../accounts.ts';
import { DAY_MS, type PreviewDeps, SCAN_BUDGET_MS, keeper, scan, shown, withinScanTime } from './scan.ts';
import { type EstimateInput, lowerBoundOnly, occurrenceOf } from './estimate-shape.ts';
import { estimateFromCrossings, estimateFromRollup } from './estimate-summaries.ts';
import { estimateByReplay } from './estimate.ts';

export const PREVIEW_BUDGET = { calls: 6, windowMs: 60_000 } as const;

async function takeBudget(deps: PreviewDeps, caller: Caller): Promise<void> {
  const now = deps.clock.now();
  const minute = Math.floor(now / PREVIEW_BUDGET.windowMs);
  // Keyed per call: the take sent again after its answer was lost takes no second token.
  if (!(await deps.store.allowances.takeToken(caller.id, `PREVIEW#${minute}`, PREVIEW_BUDGET.calls, Math.floor(now / 1000) + 3_600, randomUUID()))) {
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
  if (body.filters !== undefined && body.config !== undefined)
    throw new AppError('invalid_parameter', 'Send config or its alias filters, not both.', { param: 'config' });
  return body.config ?? body.filters;
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
    if (!allowed.includes(key))
      throw new AppError('invalid_parameter', `Unknown member ${key}; the body takes: ${allowed.join(', ')}.`, { param: key, validValues: allowed });
  }
}

async function prepare(deps: PreviewDeps, caller: Caller, body: Record<string, unknown>, supported: readonly string[], what: string) {
  const definition = previewDefinition(body.event_type, supported, what);
  const decl = definition.declaration;
  const watched = new Set((await deps.store.rules.listAddresses(caller.id)).map((a) => a.address));
  const config = normalizeConfig(decl, configOf(body), watched);
  if (decl.scope === 'addresses' && watched.size === 0) {
    throw new AppError(
      'invalid_parameter',
      `${decl.type} fires for watched addresses only, and this account watches none; add one with POST /v1/webhooks/addresses.`,
      { param: 'event_type' },
    );
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
