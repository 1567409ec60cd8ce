import type { Family } from '../core/venues.ts';
import type { IncidentKind } from '#schemas/quality.ts';

export type IncidentStatus = 'open' | 'investigating' | 'identified' | 'monitoring' | 'resolved';
export type IncidentSeverity = 'minor' | 'major' | 'critical';

/** An incident as stored: opened and resolved by the detector that emits its events, under its incident_id. */
export interface StoredIncident {
  id: string;
  /** The detector that owns it: an archive gap (a venue's trade stream) or an ingest stall (one market's book). */
  kind: IncidentKind;
  exchange: Family;
  dataTypes: string[];
  symbols: string[];
  /** The last data time before the silence. */
  startedAt: number;
  /** When the detector noticed it. */
  detectedAt: number;
  /** When data resumed (the detector's resolution). */
  resolvedAt?: number;
}

export interface IncidentStore {
  /** Records the incident as opened; an incident already stored keeps what it has (a rerun finds it again). */
  open(incident: Omit<StoredIncident, 'resolvedAt'>): Promise<void>;
  /** Marks it resolved at `resolvedAt`, creating it whole if its opening was never seen (a silence that began before the first run). */
  resolve(incident: StoredIncident & { resolvedAt: number }): Promise<void>;
  get(id: string): Promise<StoredIncident | undefined>;
  /** Every incident that started at or after `since`, newest first. */
  list(since: number): Promise<StoredIncident[]>;
}

/** REST latency of one minute of one container: a histogram of milliseconds in quarter-octave buckets. */
export interface LatencyMinute {
  minute: number;
  /** The venue family of the routes measured, or `other` for routes without one. */
  scope: string;
  count: number;
  sumMs: number;
  hist: Record<string, number>;
}

export interface LatencyStore {
  /** Adds one container's minute (the key includes the container, so minutes of several containers add up). */
  put(container: string, minute: LatencyMinute): Promise<void>;
  /** Every container's minutes in [from, to), in no order. */
  range(from: number, to: number): Promise<LatencyMinute[]>;
}
