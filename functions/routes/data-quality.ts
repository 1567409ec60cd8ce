/** Data quality: status, coverage, incidents, latency, SLA. */
import {
  CoverageSchema,
  ExchangeCoverageSchema,
  IncidentSchema,
  IncidentsQuery,
  IncidentsSchema,
  LatencySchema,
  SlaQuery,
  SlaSchema,
  StatusSchema,
  SymbolCoverageQuery,
  SymbolCoverageSchema,
  exchangePath,
  exchangeSymbolPath,
  incidentPath,
} from '#schemas/quality.ts';
import { operationGroup, page } from './operation.ts';

export const quality = (path: string) => ({ method: 'GET' as const, path: `/v1/data-quality${path}`, tags: ['Data quality'] });

/**
 * Data quality from what the service measures: the manifest's cadence statistics (coverage, gaps,
 * completeness, ingest lag), the incidents the minute detectors open and resolve, and the REST
 * latency the HTTP shell records. `/v1/data-quality/positions` is the positions group's.
 */
export const DATA_QUALITY_OPERATIONS = operationGroup('data-quality', {
  getDataQualityStatus: {
    ...quality('/status'),
    summary: 'Overall and per-venue status, per data type completeness over 24 hours, open incidents',
    response: page(StatusSchema, 'The status'),
  },
  getDataQualityCoverage: {
    ...quality('/coverage'),
    summary: 'Per venue and data type over the last 30 days: first and last record, records, symbols, resolution, lag, completeness (cached 5 minutes)',
    response: page(CoverageSchema, 'Coverage of every venue; meta.cached_at says when it was measured'),
  },
  getExchangeCoverage: {
    ...quality('/coverage/{exchange}'),
    summary: "One venue's coverage per data type over the last 30 days (cached 5 minutes)",
    pathParams: exchangePath,
    response: page(ExchangeCoverageSchema, "The venue's coverage"),
  },
  getSymbolCoverage: {
    ...quality('/coverage/{exchange}/{symbol}'),
    summary: "One market's coverage per data type: gaps against its expected cadence, observed cadence, completeness (cached 1 minute)",
    pathParams: exchangeSymbolPath,
    query: SymbolCoverageQuery,
    response: page(SymbolCoverageSchema, "The market's coverage; data types without rows in the window are absent"),
  },
  listIncidents: {
    ...quality('/incidents'),
    summary: 'Incidents opened and resolved by the gap and stall detectors, newest first',
    query: IncidentsQuery,
    response: page(IncidentsSchema, 'A page of incidents with the total'),
  },
  getIncident: { ...quality('/incidents/{id}'), summary: 'One incident', pathParams: incidentPath, response: page(IncidentSchema, 'The incident') },
  getLatency: {
    ...quality('/latency'),
    summary: 'Ingest lag per venue and data type (event time to readable) and REST latency over the last hour and day',
    response: page(LatencySchema, 'Latency per venue'),
  },
  getSla: {
    ...quality('/sla'),
    summary: "A month's SLA: targets, measured uptime, completeness and p99 latency, met or missed",
    query: SlaQuery,
    response: page(SlaSchema, "The month's SLA"),
  },
});
