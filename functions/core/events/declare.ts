/**
 * How an event type is defined. Each type has one module in this folder (named after the type)
 * exporting a definition: its catalogue declaration (SPEC "Events", "Webhook configuration",
 * params table and floors), how it is detected and what it reads, and which previews it supports.
 * `registry.ts` collects them in one map keyed by type, and every list of types (the catalogue,
 * the batch and minute detectors, estimate and dry-run support, relative metrics) is derived from
 * it. How to add a type: docs/adding-an-event-type.md.
 */
import type { ReducedSource, RollupSource } from './kit/preview-sources.ts';
import type { IngestedDataset, NormalizedRecord, RecordOf } from '#schemas/datasets.ts';
import type { Candidate } from './kit/candidate.ts';
import type { UserEventMessage } from '#schemas/messages.ts';
import type { Family } from '../venues.ts';
import type { MinuteContext } from './kit/reads.ts';

/** Webhook filters name venues with the family words. */
export type Venue = Family;
export type MetricType = 'number' | 'integer' | 'text' | 'enum' | 'boolean' | 'timestamp';

export interface MetricDecl {
  type: MetricType;
  unit?: string;
  values?: readonly string[];
  description?: string;
}
export type ParamDecl =
  | { type: 'integer' | 'number'; default: number; min?: number; max?: number; menu?: readonly number[]; unit?: string; description: string }
  | { type: 'enum'; default: string; menu: readonly string[]; description: string }
  | { type: 'array_of_number'; default: readonly number[]; min: number; max: number; unit?: string; description: string };

export interface EventTypeDecl {
  type: string;
  live: boolean;
  description: string;
  scope: 'public' | 'addresses' | 'user';
  venues: readonly Venue[];
  /** Scope keys accepted in `filters` besides `conditions`, `params` and declared params. */
  scopeKeys: readonly ('venue' | 'symbols' | 'addresses')[];
  params: Readonly<Record<string, ParamDecl>>;
  metrics: Readonly<Record<string, MetricDecl>>;
  /** The notional metric `min_notional_usd` stands for, when the type has one. */
  notionalMetric?: string;
  costFloor: { metric: string; min: number; note?: string } | null;
  /** The least notional a rule that sets no `min_notional_usd` receives, when above the cost floor. */
  defaultMinNotionalUsd?: number;
  /** A rule receives an occurrence only when its param `param` lists the occurrence's `metric` value. */
  listedBy?: { param: string; metric: string };
  /** Other names a filters member may use for a param (a bare `threshold` for `threshold_usd`). */
  paramAliases?: Readonly<Record<string, string>>;
  latencyClass: 'seconds' | 'minutes';
}

export const OPERATORS = {
  number: ['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'equal', 'not_equal', 'between', 'not_between', 'in', 'not_in'],
  text: ['equal', 'not_equal', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with'],
  boolean: ['equal', 'not_equal'],
  timestamp: ['before', 'after', 'equal'],
  any: ['is_empty', 'is_not_empty'],
} as const;

/** Params, metric declarations and venue sets several types share. */
export const MARKET_VENUES: readonly Venue[] = ['perpx', 'hip3', 'spot', 'altx'];
export const maxAge = (fallback = 3600): Record<string, ParamDecl> => ({
  max_age_s: {
    type: 'integer',
    default: fallback,
    min: 60,
    max: 86_400,
    unit: 's',
    description: 'Oldest occurrence still delivered after a service-side outage',
  },
});
export const usd = (description: string): MetricDecl => ({ type: 'number', unit: 'USD', description });
export const pct = (description: string): MetricDecl => ({ type: 'number', unit: '%', description });
/** Relative metrics: null (never firing) when the denominator is under 10,000 USD. Declaring them is what makes detection add them. */
export const relative = (withWallet = false): Record<string, MetricDecl> => ({
  notional_pct_volume_1h: pct("Notional as a share of the market's last-hour volume"),
  notional_pct_volume_24h: pct("Notional as a share of the market's last-day volume"),
  notional_pct_oi: pct('Notional as a share of open interest (perps only)'),
  ...(withWallet && { notional_pct_wallet_volume_30d: pct("Notional as a share of the wallet's 30-day volume") }),
});
export const common = (venues: readonly Venue[]): Record<string, MetricDecl> => ({
  venue: { type: 'enum', values: venues },
  symbol: { type: 'text' },
  timestamp: { type: 'timestamp' },
});

/**
 * How occurrences of a type come about:
 * - `batch`: found in each ingested batch, before it is marked done (and by dry-run and estimate
 *   over the archive) from the rows of one dataset; `addressColumn` names the account a row is
 *   about, which previews filter on.
 * - `minute`: found by the minute run over the minutes settled since its cursor (and by estimate),
 *   once per distinct set of the listed params among the rules.
 * - `announced`: produced by whoever knows of it (`by`), e.g. the credit ledger or an export job,
 *   and queued for the owning account's rules; `of` reads its occurrence from the announcing message.
 */
export type Detection<T extends string = string> =
  | {
      kind: 'batch';
      reads: IngestedDataset;
      addressColumn?: string;
      /** The columns the detector reads: a preview's scan decodes only these (every column when absent). */
      columns?: readonly string[];
      detect(rows: readonly NormalizedRecord[], watched: ReadonlySet<string>): Candidate<T>[];
    }
  | { kind: 'minute'; params: readonly string[]; detect(ctx: MinuteContext, paramSets: readonly Record<string, unknown>[]): Promise<Candidate<T>[]> }
  | {
      kind: 'announced';
      by: string;
      /** This type's occurrence in an account event message, if the message announces one (else undefined). */
      of?(message: UserEventMessage): Candidate<T> | undefined;
    };

/**
 * The previews a type supports. The estimate's ladder is drawn on `metric` (absolute values for
 * signed moves); a param-gated type (`gate`) is replayed once more at the param's lowest value, with
 * `fixed` params, to see below the rule's threshold.
 */
export interface Preview {
  dryRun?: boolean;
  estimate?: {
    metric: string;
    absolute?: boolean;
    gate?: { param: string; lowest: number; fixed?: Record<string, string | number> };
    /**
     * Where compaction keeps this type's occurrences counted per hour and `metric` bucket (see
     * core/detect/rollups.ts): an estimate whose conditions are lower bounds on `metric` reads it
     * instead of replaying the whole window.
     */
    rollup?: RollupSource;
    /**
     * Where a param-free minute type's detector input is kept reduced (see core/detect/rollups.ts
     * ReducedSource): the estimate runs the detector once over the whole lookback from it, exact.
     */
    reduced?: ReducedSource;
    /**
     * Where compaction keeps a threshold-crossing type's crossings as histograms per window (see
     * core/archive/sql.ts oiCrossingsSql): an estimate with no conditions reads those instead of
     * replaying the window, for its threshold and every rung of the ladder.
     */
    crossings?: 'oi_crossings';
  };
}

/**
 * A minute type whose occurrences open (`opens`) or resolve data-quality incidents of `kind`: the
 * minute run detects it with `params` every minute whether or not a rule listens, and
 * core/quality/incidents.ts records them.
 */
export interface IncidentSource {
  kind: 'archive_gap' | 'ingest_stall';
  opens: boolean;
  params: Record<string, unknown>;
}

/** A live type must say how it is detected; a type not yet live has no detector and refuses subscriptions. */
export type EventDefinition<T extends string = string> =
  | { declaration: EventTypeDecl & { type: T; live: true }; detection: Detection<T>; preview?: Preview; incident?: IncidentSource }
  | { declaration: EventTypeDecl & { type: T; live: false }; detection?: undefined; preview?: undefined; incident?: undefined };

type DeclarationInput<T extends string, L extends boolean> = Omit<EventTypeDecl, 'type' | 'live' | 'scopeKeys' | 'latencyClass' | 'costFloor'> &
  Partial<Pick<EventTypeDecl, 'scopeKeys' | 'latencyClass' | 'costFloor'>> & { type: T; live: L };

/** A catalogue declaration with the common defaults: no scope keys, the minutes class, no floor. */
export function declaration<const T extends string, const L extends boolean>(d: DeclarationInput<T, L>): EventTypeDecl & { type: T; live: L } {
  return { scopeKeys: [], latencyClass: 'minutes', costFloor: null, ...d };
}

/** Batch detection over one dataset's rows, typed by the dataset. */
export function batch<D extends IngestedDataset, T extends string>(d: {
  reads: D;
  addressColumn?: keyof RecordOf<D> & string;
  columns?: readonly (keyof RecordOf<D> & string)[];
  detect(rows: readonly RecordOf<D>[], watched: ReadonlySet<string>): Candidate<T>[];
}): Detection<T> {
  return {
    kind: 'batch',
    reads: d.reads,
    addressColumn: d.addressColumn,
    ...(d.columns && { columns: d.columns }),
    detect: (rows, watched) => d.detect(rows as readonly RecordOf<D>[], watched),
  };
}

/** Minute detection, typed by the params its occurrences depend on. */
export function minute<P extends Record<string, unknown> = Record<never, never>, T extends string = string>(d: {
  params: readonly (keyof P & string)[];
  detect(ctx: MinuteContext, paramSets: readonly P[]): Promise<Candidate<T>[]>;
}): Detection<T> {
  return { kind: 'minute', params: d.params, detect: (ctx, sets) => d.detect(ctx, sets as readonly P[]) };
}
