/**
 * Data-quality routes (the reference service's §3 shapes, stand-in venue names): status, coverage
 * with gaps and cadence, incidents, latency and the monthly SLA; and the public catalogue's symbol
 * list and stats. Completeness, uptime and coverage are percentages from 0 to 100, as the reference
 * client reads them.
 */
import * as v from 'valibot';
import { FAMILIES } from './venues.ts';
import { enumParam, epochMsParam, integerParam, stringParam } from './params.ts';

const time = v.pipe(v.string(), v.description('RFC 3339 UTC'));
const percentage = v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.description('A percentage from 0 to 100'));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const ms = v.pipe(v.number(), v.minValue(0), v.description('Milliseconds'));

export const SYSTEM_STATUSES = ['operational', 'degraded', 'outage', 'maintenance'] as const;
export const INCIDENT_STATUSES = ['open', 'investigating', 'identified', 'monitoring', 'resolved'] as const;
/** The detectors that own incidents: an archive gap (a venue's trade stream) or an ingest stall (one market's book). */
export const INCIDENT_KINDS = ['archive_gap', 'ingest_stall'] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];
const systemStatus = v.picklist(SYSTEM_STATUSES);

export const exchangePath = {
  exchange: enumParam(FAMILIES, { description: 'Venue family', default: undefined }),
};
export const exchangeSymbolPath = {
  ...exchangePath,
  symbol: stringParam({
    description: 'Symbol in the family form, case-preserved and percent-encoded (hip4 `#N` as `%23N`, hip3 `km%3AUS500`)',
    maxLength: 64,
    required: true,
  }),
};

export const SymbolCoverageQuery = {
  from: epochMsParam('Start of the gap-detection window, epoch ms (default 30 days before `to`)'),
  to: epochMsParam('End of the window, epoch ms (default now)'),
};

export const IncidentsQuery = {
  status: enumParam(INCIDENT_STATUSES, { description: 'Only incidents in this status' }),
  exchange: enumParam(FAMILIES, { description: 'Only incidents of this venue family' }),
  since: epochMsParam('Only incidents that started at or after this instant, epoch ms'),
  limit: integerParam({ min: 1, max: 100, default: 20, description: 'Incidents per page' }),
  offset: integerParam({ min: 0, max: 100_000, default: 0, description: 'Incidents to skip' }),
};
export const incidentPath = {
  id: stringParam({ description: "Incident id (the detector's incident_id)", maxLength: 64, required: true, pattern: /^[A-Za-z0-9_-]+$/ }),
};

export const SlaQuery = {
  year: integerParam({ min: 2020, max: 2100, description: 'Year (default the current UTC year)' }),
  month: integerParam({ min: 1, max: 12, description: 'Month 1-12 (default the current UTC month)' }),
};

export const StatusSchema = v.strictObject({
  status: systemStatus,
  updated_at: time,
  exchanges: v.record(v.string(), v.strictObject({ status: systemStatus, last_data_at: v.optional(time), latency_ms: v.optional(ms) })),
  data_types: v.record(v.string(), v.strictObject({ status: systemStatus, completeness_24h: percentage })),
  active_incidents: count,
});

const DataTypeCoverageSchema = v.strictObject({
  earliest: time,
  latest: time,
  total_records: count,
  symbols: count,
  resolution: v.optional(v.string()),
  lag: v.optional(v.string()),
  completeness: percentage,
});
export const ExchangeCoverageSchema = v.strictObject({ exchange: v.picklist(FAMILIES), data_types: v.record(v.string(), DataTypeCoverageSchema) });
export const CoverageSchema = v.strictObject({ exchanges: v.array(ExchangeCoverageSchema) });

const CadenceSchema = v.strictObject({ median_interval_seconds: v.number(), p95_interval_seconds: v.number(), sample_count: count });
export const SymbolCoverageSchema = v.strictObject({
  exchange: v.picklist(FAMILIES),
  symbol: v.string(),
  data_types: v.record(
    v.string(),
    v.strictObject({
      earliest: time,
      latest: time,
      total_records: count,
      completeness: percentage,
      historical_coverage: percentage,
      gaps: v.array(v.strictObject({ start: time, end: time, duration_minutes: v.number() })),
      cadence: v.optional(CadenceSchema),
    }),
  ),
});

export const IncidentSchema = v.strictObject({
  id: v.string(),
  status: v.picklist(INCIDENT_STATUSES),
  severity: v.picklist(['minor', 'major', 'critical']),
  exchange: v.picklist(FAMILIES),
  data_types: v.array(v.string()),
  symbols_affected: v.array(v.string()),
  started_at: time,
  resolved_at: v.optional(time),
  duration_minutes: count,
  title: v.string(),
  description: v.string(),
  root_cause: v.string(),
  resolution: v.optional(v.string()),
  records_affected: v.pipe(count, v.description("Records the silence cost: its length over each affected market's usual interval")),
  records_recovered: v.pipe(count, v.description('Records archived inside the silence since (a late batch that filled it)')),
});
export const IncidentsSchema = v.strictObject({
  incidents: v.array(IncidentSchema),
  pagination: v.strictObject({ total: count, limit: count, offset: count }),
});

export const LatencySchema = v.strictObject({
  measured_at: time,
  exchanges: v.record(
    v.string(),
    v.strictObject({
      rest_api: v.optional(v.strictObject({ current_ms: ms, avg_1h_ms: v.optional(ms), avg_24h_ms: v.optional(ms) })),
      data_freshness: v.strictObject({
        orderbook_lag_ms: v.optional(ms),
        fills_lag_ms: v.optional(ms),
        funding_lag_ms: v.optional(ms),
        oi_lag_ms: v.optional(ms),
      }),
      /** Event time to readable per dataset over the last hour's ingest deltas (mean). */
      ingest_lag_ms: v.record(v.string(), ms),
    }),
  ),
});

export const SlaSchema = v.strictObject({
  period: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/)),
  sla_targets: v.strictObject({ uptime: percentage, data_completeness: percentage, api_latency_p99_ms: ms }),
  actual: v.strictObject({
    uptime: percentage,
    uptime_status: v.picklist(['met', 'missed']),
    data_completeness: v.strictObject({ orderbook: percentage, fills: v.optional(percentage), funding: percentage, overall: percentage }),
    completeness_status: v.picklist(['met', 'missed']),
    api_latency_p99_ms: v.optional(ms),
    latency_status: v.picklist(['met', 'missed', 'no_data']),
  }),
  incidents_this_period: count,
  total_downtime_minutes: count,
});

/** `/v1/symbols`: every symbol with data in the last 24 hours (SymbolEntry). */
export const SymbolEntrySchema = v.strictObject({
  symbol: v.string(),
  exchange: v.picklist(FAMILIES),
  coverage_from: v.optional(time),
  coverage_to: v.optional(time),
  data_types: v.array(v.string()),
  coverage_by_type: v.pipe(v.record(v.string(), time), v.description("Per data type: where the archive's coverage of it begins in the family")),
  size_per_day: v.pipe(v.record(v.string(), count), v.description('Per data type: Parquet bytes of the market over the last 24 hours')),
});

/** `/v1/stats`: what the archive holds now, from the manifest and the incident store. */
export const StatsSchema = v.strictObject({
  families: count,
  symbols: count,
  data_types: count,
  records_24h: count,
  bytes_24h: count,
  active_incidents: count,
  updated_at: time,
});
