/**
 * hip4 outcomes by slug over the real archive: an outcome's own slug and either side's slug
 * (`<outcome slug>-<side name>`) find the same outcome, read as the detail route reads it (with the
 * open interest of both sides); a slug no outcome has is 404.
 */
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { outcome, outcomeBySlug } from '#core/market/registry-views.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';

const deps = scratchArchive();
const T0 = Date.parse('2026-09-04T00:00:00Z');
const NOW = T0 + 3_600_000;
const ingest = (records: readonly object[]) => ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));

const side = (outcomeId: number, s: 0 | 1, slug: string) => ({
  dataset: 'instruments',
  family: 'hip4',
  symbol: `#${outcomeId * 10 + s}`,
  ts: T0 - 86_400_000,
  market_type: 'outcome',
  sz_decimals: 0,
  outcome: {
    outcome_id: outcomeId,
    side: s,
    asset_id: 100_000_000 + outcomeId * 10 + s,
    name: `Outcome ${outcomeId}`,
    side_name: s === 0 ? 'Yes' : 'No',
    description: 'class:priceBinary|underlying:BTC|expiry:20261201-0800|targetPrice:70000|period:1d',
    display_title: `Outcome ${outcomeId}`,
    slug,
  },
});

describe('outcomes by slug', () => {
  it("finds an outcome by its slug or a side's, as the detail route reads it, and 404 otherwise", async () => {
    // Prepare
    await ingest([
      side(71, 0, 'btc-above-70000'),
      side(71, 1, 'btc-above-70000'),
      side(72, 0, 'eth-above-4000'),
      side(72, 1, 'eth-above-4000'),
      { dataset: 'open_interest', family: 'hip4', symbol: '#710', ts: T0 + 1_000, open_interest: '30', mark_price: '0.6' },
      { dataset: 'open_interest', family: 'hip4', symbol: '#711', ts: T0 + 2_000, open_interest: '20', mark_price: '0.4' },
    ]);
    // Act
    const byOwn = await outcomeBySlug(deps(), 'btc-above-70000', NOW);
    const bySide = await outcomeBySlug(deps(), 'btc-above-70000-no', NOW);
    const other = await outcomeBySlug(deps(), 'eth-above-4000-yes', NOW);
    // Assess
    expect(byOwn).toEqual(await outcome(deps(), 71, NOW));
    expect(bySide).toEqual(byOwn);
    expect(byOwn.aggregated_oi).toMatchObject({ side0_open_interest_contracts: 30, side1_open_interest_contracts: 20 });
    expect(other.outcome_id).toBe(72);
    await expect(outcomeBySlug(deps(), 'btc-above-70000-maybe', NOW)).rejects.toMatchObject({ code: 'not_found' });
  });
});
