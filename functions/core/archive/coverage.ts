/**
 * Coverage starts per dataset and family (SPEC "Datasets and their coverage starts"; exact instants
 * from the real service where the spec gives only a month). A window wholly before the start is
 * answered with an empty page without touching storage: the dataset does not cover it.
 */
import type { Dataset } from '../../../schemas/datasets.ts';
import type { Family } from '../venues.ts';

const at = (iso: string) => Date.parse(iso);

export const COVERAGE_STARTS: Readonly<Record<Dataset, Partial<Record<Family, number>>>> = {
  trades: {
    perpx: at('2023-04-15T03:31:00Z'), spot: at('2025-03-22T10:50:22Z'), hip3: at('2026-02-01T00:00:00Z'),
    hip4: at('2026-05-01T00:00:00Z'), altx: at('2025-08-01T00:00:00Z'), 'altx-rh': at('2026-06-26T20:10:26Z'),
  },
  candles_1m: {
    perpx: at('2025-03-22T12:00:00Z'), spot: at('2025-03-22T10:50:00Z'), hip3: at('2026-02-01T00:00:00Z'),
    hip4: at('2026-05-01T00:00:00Z'), altx: at('2025-08-01T00:00:00Z'), 'altx-rh': at('2026-06-26T20:10:00Z'),
  },
  open_interest: {
    perpx: at('2023-05-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z'), hip4: at('2026-05-01T00:00:00Z'),
    altx: at('2025-08-01T00:00:00Z'), 'altx-rh': at('2026-08-22T18:43:00Z'),
  },
  funding: {
    perpx: at('2023-05-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z'), altx: at('2025-08-01T00:00:00Z'),
    'altx-rh': at('2026-08-22T18:43:00Z'),
  },
  liquidations: { perpx: at('2025-12-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z') },
  // The ledger feeds account.transfer; it has no public route of its own.
  transfers: { perpx: at('2025-12-01T00:00:00Z'), spot: at('2025-12-01T00:00:00Z') },
  // Upstream event streams behind webhook events, without public routes of their own.
  settlements: { hip4: at('2026-05-01T00:00:00Z') },
  chain_events: { perpx: at('2025-12-01T00:00:00Z') },
  twaps: { perpx: at('2026-03-10T00:00:00Z'), hip3: at('2026-03-10T00:00:00Z'), spot: at('2026-03-10T00:00:00Z') },
  l2_snapshots: {
    perpx: at('2023-04-15T00:00:00Z'), spot: at('2026-05-05T19:56:00Z'), hip3: at('2026-02-16T16:57:00Z'),
    hip4: at('2026-05-01T00:00:00Z'), altx: at('2026-01-29T00:00:00Z'), 'altx-rh': at('2026-08-22T18:43:00Z'),
  },
  order_events: { perpx: at('2026-03-10T00:00:00Z'), hip3: at('2026-03-10T00:00:00Z'), hip4: at('2026-05-02T00:00:00Z') },
  instruments: { perpx: 0, spot: 0, hip3: 0, hip4: 0, altx: 0, 'altx-rh': 0 },
};

/** The first covered instant, or undefined when the family has no such dataset at all. */
export function coverageStart(dataset: Dataset, family: Family): number | undefined {
  return COVERAGE_STARTS[dataset][family];
}

/** True when [from, to] ends before coverage starts (or the family lacks the dataset). */
export function whollyBeforeCoverage(dataset: Dataset, family: Family, to: number): boolean {
  const start = coverageStart(dataset, family);
  return start === undefined || to < start;
}
