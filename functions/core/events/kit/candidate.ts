/** What detectors produce. */
import type { Family } from '#core/venues.ts';

export type MetricValue = number | string | boolean | null;

/** An occurrence as detectors produce it, before it meets any rule. */
export interface Candidate<T extends string = string> {
  type: T;
  /** Names the real-world fact; with the rule's trigger it gives the event id. */
  key: string;
  /** When it happened, epoch ms. */
  occurredAt: number;
  venue: Family;
  /** Venue-native symbol, or the token for transfers and payments. */
  symbol: string | null;
  /** The watched address an `account.*` event is about. */
  address: string | null;
  /** Declared metrics; a relative metric is null when its denominator is under 10,000 USD. */
  metrics: Record<string, MetricValue>;
  /** What the delivery carries in `data` (api_url included). */
  data: Record<string, unknown>;
  /**
   * For events that exist only for given params (a burst over 5 minutes above 1M USD is not one over
   * an hour): the params a rule must have to receive it.
   */
  params?: Record<string, unknown>;
  /** For `user` events (credits, exports): the only account whose rules may receive it. */
  accountId?: string;
  /**
   * Storm collapsing: a `per_market` event goes only to rules that name `symbols`, a `collapsed`
   * one (all markets of a venue at once) only to rules that do not.
   */
  scope?: 'per_market' | 'collapsed';
}

/** The candidates of one type, typed as such (detectors finding paired types together hand each type its own). */
export const ofType = <T extends string>(candidates: readonly Candidate[], type: T): Candidate<T>[] =>
  candidates.filter((c): c is Candidate<T> => c.type === type);
