/**
 * The data-quality reports built from what the service measures: the manifest (coverage, cadence,
 * ingest lag), the incidents the minute detectors record, and the REST latency minutes the HTTP
 * shell records. Nothing here is a constant but the SLA targets.
 */
import type { ArchiveManifest } from '#ports/archive.ts';
import type { IncidentStore, LatencyStore, StoredIncident } from '#ports/quality.ts';
import { AppError } from '../errors.ts';
import { FAMILIES, type Family } from '../venues.ts';
import { DAY_MS } from '../archive/layout.ts';
import { familyCoverage, incidentRecords, ingestLag, percent, qualityDatasetsOf, type DataTypeCoverage } from './coverage.ts';
import type { SymbolEntry } from './catalogue.ts';
import { incidentView, type IncidentWithRecords } from './incidents.ts';
import { summarize } from './latency.ts';

type SystemStatus = 'operational' | 'degraded' | 'outage' | 'maintenance';
const HOUR = 3_600_000;
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const round = (n: number, digits: number) => Number(n.toFixed(digits));
/** The mean of percentages, to the precision they are sent with. */
const meanPercent = (percents: readonly number[]) => round(percents.reduce((a, b) => a + b, 0) / percents.length, 4);

/** A family whose newest trade or book is older than this is in outage. */
export const OUTAGE_AFTER_MS = 15 * MINUTE;

export interface QualityDeps {
  manifest: ArchiveManifest;
  incidents: IncidentStore;
  latency: LatencyStore;
}

const worst = (statuses: readonly SystemStatus[]): SystemStatus =>
  statuses.includes('outage') ? 'outage' : statuses.includes('degraded') ? 'degraded' : 'operational';

/** Overall and per family status, per data type completeness over 24 hours, open incidents. */
export async function qualityStatus(deps: QualityDeps, now: number) {
  const [open, coverage, lags] = await Promise.all([
    deps.incidents.list(now - 30 * DAY_MS).then((all) => all.filter((i) => i.resolvedAt === undefined)),
    Promise.all(FAMILIES.map(async (family) => [family, await familyCoverage(deps.manifest, family, now - DAY_MS, now)] as const)),
    Promise.all(
      FAMILIES.map(
        async (family) => [family, await Promise.all((['trades', 'l2_snapshots'] as const).map((d) => ingestLag(deps.manifest, d, family, now)))] as const,
      ),
    ),
  ]);
  const exchanges: Record<string, { status: SystemStatus; last_data_at?: string; latency_ms?: number }> = {};
  for (const [family, measured] of lags) {
    const present = measured.filter((m) => m !== undefined);
    const lastDataAt = present.length ? Math.max(...present.map((m) => m.lastDataAt)) : undefined;
    const status: SystemStatus =
      lastDataAt === undefined || now - lastDataAt > OUTAGE_AFTER_MS ? 'outage' : open.some((i) => i.exchange === family) ? 'degraded' : 'operational';
    exchanges[family] = {
      status,
      ...(lastDataAt !== undefined && { last_data_at: iso(lastDataAt) }),
      ...(present.length && { latency_ms: Math.round(present.reduce((s, m) => s + m.meanLagMs, 0) / present.length) }),
    };
  }
  const byType = new Map<string, number[]>();
  for (const [, datasets] of coverage) {
    for (const [dataset, c] of Object.entries(datasets)) byType.set(dataset, [...(byType.get(dataset) ?? []), c.completeness]);
  }
  const dataTypes: Record<string, { status: SystemStatus; completeness_24h: number }> = {};
  for (const [dataset, percents] of byType) {
    dataTypes[dataset] = {
      status: open.some((i) => i.dataTypes.includes(dataset)) ? 'degraded' : 'operational',
      completeness_24h: meanPercent(percents),
    };
  }
  return {
    status: worst(Object.values(exchanges).map((e) => e.status)),
    updated_at: iso(now),
    exchanges,
    data_types: dataTypes,
    active_incidents: open.length,
  };
}

/** Every family's coverage over the last 30 days (the costly report: the caller caches it). */
export async function allCoverage(manifest: ArchiveManifest, now: number) {
  return {
    exchanges: await Promise.all(
      FAMILIES.map(async (exchange) => ({ exchange, data_types: await familyCoverage(manifest, exchange, now - 30 * DAY_MS, now) })),
    ),
  };
}

export async function exchangeCoverage(
  manifest: ArchiveManifest,
  exchange: Family,
  now: number,
): Promise<{ exchange: Family; data_types: Record<string, DataTypeCoverage> }> {
  return { exchange, data_types: await familyCoverage(manifest, exchange, now - 30 * DAY_MS, now) };
}

export interface IncidentFilter {
  status?: string;
  exchange?: Family;
  since?: number;
  limit: number;
  offset: number;
}

/** The incident with the records its silence cost and those archived inside it since (from the manifest). */
async function withRecords(manifest: ArchiveManifest, incident: StoredIncident, now: number): Promise<IncidentWithRecords> {
  const view = incidentView(incident, now);
  const dataset = incident.kind === 'archive_gap' ? 'trades' : 'l2_snapshots';
  const { affected, recovered } = await incidentRecords(manifest, incident.exchange, dataset, incident.symbols, incident.startedAt, incident.resolvedAt ?? now);
  return { ...view, records_affected: affected, records_recovered: recovered };
}

/** Incidents newest first, filtered, with the total before paging. Without `since`, the last 90 days. */
export async function listIncidents(
  deps: Pick<QualityDeps, 'incidents' | 'manifest'>,
  filter: IncidentFilter,
  now: number,
): Promise<{ incidents: IncidentWithRecords[]; pagination: { total: number; limit: number; offset: number } }> {
  const all = (await deps.incidents.list(filter.since ?? now - 90 * DAY_MS)).filter(
    (i) => (filter.status === undefined || incidentView(i, now).status === filter.status) && (filter.exchange === undefined || i.exchange === filter.exchange),
  );
  const page = await Promise.all(all.slice(filter.offset, filter.offset + filter.limit).map((i) => withRecords(deps.manifest, i, now)));
  return { incidents: page, pagination: { total: all.length, limit: filter.limit, offset: filter.offset } };
}

export async function getIncident(deps: Pick<QualityDeps, 'incidents' | 'manifest'>, id: string, now: number): Promise<IncidentWithRecords> {
  const incident = await deps.incidents.get(id);
  if (!incident) throw new AppError('not_found', `No incident ${id}.`, { param: 'id' });
  return withRecords(deps.manifest, incident, now);
}

type Freshness = 'orderbook_lag_ms' | 'fills_lag_ms' | 'funding_lag_ms' | 'oi_lag_ms';
interface ExchangeLatency {
  rest_api?: { current_ms: number; avg_1h_ms?: number; avg_24h_ms?: number };
  data_freshness: Partial<Record<Freshness, number>>;
  ingest_lag_ms: Record<string, number>;
}

/** Ingest lag per family and dataset, and REST latency over the last hour and day, per family. */
export async function latencyReport(deps: QualityDeps, now: number) {
  const [minutes, lags] = await Promise.all([
    deps.latency.range(now - DAY_MS, now),
    Promise.all(
      FAMILIES.map(
        async (family) =>
          [
            family,
            Object.fromEntries(
              (await Promise.all(qualityDatasetsOf(family).map(async (d) => [d, await ingestLag(deps.manifest, d, family, now)] as const))).filter(
                ([, lag]) => lag !== undefined,
              ),
            ),
          ] as const,
      ),
    ),
  ]);
  const exchanges: Record<string, ExchangeLatency> = {};
  for (const [family, byDataset] of lags) {
    const mine = minutes.filter((m) => m.scope === family);
    const lastMinute = mine.reduce((latest, m) => Math.max(latest, m.minute), -Infinity);
    const current = summarize(mine.filter((m) => m.minute === lastMinute));
    const hour = summarize(mine.filter((m) => m.minute >= now - HOUR));
    const day = summarize(mine);
    const lagOf = (dataset: string) => byDataset[dataset]?.meanLagMs;
    const freshness: Record<Freshness, number | undefined> = {
      orderbook_lag_ms: lagOf('l2_snapshots'),
      fills_lag_ms: lagOf('trades'),
      funding_lag_ms: lagOf('funding'),
      oi_lag_ms: lagOf('open_interest'),
    };
    exchanges[family] = {
      ...(current && {
        rest_api: { current_ms: round(current.meanMs, 1), ...(hour && { avg_1h_ms: round(hour.meanMs, 1) }), ...(day && { avg_24h_ms: round(day.meanMs, 1) }) },
      }),
      data_freshness: Object.fromEntries(Object.entries(freshness).filter(([, value]) => value !== undefined)) as Partial<Record<Freshness, number>>,
      ingest_lag_ms: Object.fromEntries(Object.entries(byDataset).map(([d, lag]) => [d, lag!.meanLagMs])),
    };
  }
  return { measured_at: iso(now), exchanges };
}

/** The targets the SLA is judged against (the reference service's published figures), in percent and ms. */
export const SLA_TARGETS = { uptime: 99.9, data_completeness: 99.5, api_latency_p99_ms: 500 } as const;

/** Minutes inside at least one incident, within [from, to). */
function downtime(incidents: readonly StoredIncident[], from: number, to: number): number {
  const spans = incidents
    .map((i) => [Math.max(from, i.startedAt), Math.min(to, i.resolvedAt ?? to)] as const)
    .filter(([a, b]) => b > a)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = -Infinity;
  for (const [a, b] of spans) {
    if (b <= reach) continue;
    total += b - Math.max(a, reach);
    reach = b;
  }
  return total;
}

/**
 * A month's SLA, in percent: uptime is the share of its elapsed time outside every incident;
 * completeness the mean of the families' measured completeness of books, fills and funding over the
 * month; p99 from the recorded REST latency minutes. A month that has not begun is refused.
 */
export async function slaReport(deps: QualityDeps, year: number, month: number, now: number) {
  const from = Date.UTC(year, month - 1, 1);
  const to = Math.min(Date.UTC(year, month, 1), now);
  if (from > now)
    throw new AppError('invalid_parameter', `${year}-${String(month).padStart(2, '0')} has not begun.`, {
      param: from > Date.UTC(new Date(now).getUTCFullYear(), 11, 31) ? 'year' : 'month',
    });
  const [incidents, minutes, coverage] = await Promise.all([
    deps.incidents.list(from - 30 * DAY_MS).then((all) => all.filter((i) => i.startedAt < to && (i.resolvedAt ?? now) > from)),
    deps.latency.range(from, to),
    Promise.all(FAMILIES.map((family) => familyCoverage(deps.manifest, family, from, to))),
  ]);
  const down = downtime(incidents, from, to);
  const uptime = to > from ? percent(1 - down / (to - from)) : 100;
  const mean = (dataset: string) => {
    const percents = coverage.map((c) => c[dataset]?.completeness).filter((s): s is number => s !== undefined);
    return percents.length ? meanPercent(percents) : undefined;
  };
  const orderbook = mean('l2_snapshots') ?? 0;
  const fills = mean('trades');
  const funding = mean('funding') ?? 0;
  const parts = [orderbook, funding, ...(fills === undefined ? [] : [fills])];
  const overall = meanPercent(parts);
  const latency = summarize(minutes);
  return {
    period: `${year}-${String(month).padStart(2, '0')}`,
    sla_targets: { ...SLA_TARGETS },
    actual: {
      uptime,
      uptime_status: uptime >= SLA_TARGETS.uptime ? ('met' as const) : ('missed' as const),
      data_completeness: { orderbook, ...(fills !== undefined && { fills }), funding, overall },
      completeness_status: overall >= SLA_TARGETS.data_completeness ? ('met' as const) : ('missed' as const),
      ...(latency && { api_latency_p99_ms: round(latency.p99Ms, 1) }),
      latency_status: latency === undefined ? ('no_data' as const) : latency.p99Ms <= SLA_TARGETS.api_latency_p99_ms ? ('met' as const) : ('missed' as const),
    },
    incidents_this_period: incidents.filter((i) => i.startedAt >= from).length,
    total_downtime_minutes: Math.round(down / MINUTE),
  };
}

/**
 * `/v1/stats`: what the archive holds, from the symbol catalogue (the manifest's last 24 hours) and
 * the open incidents. Records are the catalogue's files' rows, so counted from the manifest as well.
 */
export async function archiveStats(deps: Pick<QualityDeps, 'incidents' | 'manifest'>, symbols: readonly SymbolEntry[], now: number) {
  const open = (await deps.incidents.list(now - 30 * DAY_MS)).filter((i) => i.resolvedAt === undefined);
  const families = new Set(symbols.map((s) => s.exchange));
  const dataTypes = new Set(symbols.flatMap((s) => s.data_types));
  const coverage = await Promise.all([...families].map((family) => familyCoverage(deps.manifest, family, now - DAY_MS, now)));
  return {
    families: families.size,
    symbols: symbols.length,
    data_types: dataTypes.size,
    records_24h: coverage.reduce((sum, c) => sum + Object.values(c).reduce((s, d) => s + d.total_records, 0), 0),
    bytes_24h: symbols.reduce((sum, s) => sum + Object.values(s.size_per_day).reduce((a, b) => a + b, 0), 0),
    active_incidents: open.length,
    updated_at: iso(now),
  };
}
