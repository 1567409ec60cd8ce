/**
 * Data-quality incidents are the detectors' own: the minute run hands every archive-gap and
 * per-market ingest-stall occurrence of its window here, whether or not a webhook rule listens, and
 * each opens or resolves the incident of its `incident_id`. Reruns find the same occurrences, and
 * opening is idempotent, so an incident is recorded once however often its minutes are run.
 */
import type { Candidate } from '../events/kit/candidate.ts';
import type { IncidentSource } from '../events/declare.ts';
import type { Family } from '../venues.ts';
import type { IncidentSeverity, IncidentStatus, IncidentStore, StoredIncident } from '#ports/quality.ts';

const MINUTE = 60_000;

/** The data types (as the coverage routes name datasets) each detector watches. */
const WATCHED = { archive_gap: ['trades'], ingest_stall: ['l2_snapshots'] } as const;

/**
 * Opens or resolves (as `source` says) the incidents of one type's occurrences in the run
 * (storm-collapsed stall events are summaries, not incidents).
 */
export async function recordIncidents(store: IncidentStore, source: IncidentSource, candidates: readonly Candidate[]): Promise<number> {
  let recorded = 0;
  const { kind } = source;
  const gap = kind === 'archive_gap';
  for (const c of candidates) {
    if (c.scope === 'collapsed') continue;
    const data = c.data as Record<string, unknown>;
    const incident: Omit<StoredIncident, 'resolvedAt'> = {
      id: String(data.incident_id),
      kind,
      exchange: c.venue as Family,
      dataTypes: [...WATCHED[kind]],
      symbols: c.symbol ? [c.symbol] : [],
      startedAt: Date.parse(String(gap ? data.last_data_at : data.last_update_at)),
      // A resolution seen without its opening (the silence began before the first run) is first noticed as it resolves.
      detectedAt: c.occurredAt,
    };
    if (source.opens) await store.open(incident);
    else await store.resolve({ ...incident, resolvedAt: c.occurredAt });
    recorded += 1;
  }
  return recorded;
}

export interface Incident {
  id: string;
  status: IncidentStatus;
  severity: IncidentSeverity;
  exchange: Family;
  data_types: string[];
  symbols_affected: string[];
  started_at: string;
  resolved_at?: string;
  duration_minutes: number;
  title: string;
  description: string;
  root_cause: string;
  resolution?: string;
}

/** The incident with what its silence cost and what was archived inside it since (core/quality/coverage.ts `incidentRecords`). */
export interface IncidentWithRecords extends Incident {
  records_affected: number;
  records_recovered: number;
}

/** Severity by how long data was missing: under 15 minutes minor, under an hour major, then critical. */
export function severityOf(durationMs: number): IncidentSeverity {
  if (durationMs < 15 * MINUTE) return 'minor';
  if (durationMs < 60 * MINUTE) return 'major';
  return 'critical';
}

/** The incident as the API shows it at `now` (an open incident's duration runs until now). */
export function incidentView(incident: StoredIncident, now: number): Incident {
  const end = incident.resolvedAt ?? now;
  const duration = Math.max(0, end - incident.startedAt);
  const iso = (ms: number) => new Date(ms).toISOString();
  const what =
    incident.kind === 'archive_gap'
      ? {
          title: `${incident.exchange} trade stream gap`,
          description: `No ${incident.exchange} trade was archived from ${iso(incident.startedAt)}${incident.resolvedAt ? ` to ${iso(incident.resolvedAt)}` : ''}.`,
          cause: "The venue's trade stream was silent for more than 5 minutes (archive.gap_detected).",
        }
      : {
          title: `${incident.exchange} ${incident.symbols.join(', ')} order book stall`,
          description: `No L2 snapshot of ${incident.symbols.join(', ')} was archived from ${iso(incident.startedAt)}${incident.resolvedAt ? ` to ${iso(incident.resolvedAt)}` : ''}.`,
          cause: "The market's L2 feed was silent for 10 minutes or more (ingest.stall).",
        };
  return {
    id: incident.id,
    status: incident.resolvedAt === undefined ? 'open' : 'resolved',
    severity: severityOf(duration),
    exchange: incident.exchange,
    data_types: incident.dataTypes,
    symbols_affected: incident.symbols,
    started_at: iso(incident.startedAt),
    ...(incident.resolvedAt !== undefined && { resolved_at: iso(incident.resolvedAt) }),
    duration_minutes: Math.round(duration / MINUTE),
    title: what.title,
    description: what.description,
    root_cause: what.cause,
    ...(incident.resolvedAt !== undefined && { resolution: `Data resumed at ${iso(incident.resolvedAt)}.` }),
  };
}
