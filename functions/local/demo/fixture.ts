/**
 * The seeded run behind `test/fixtures/node_fills_by_block/`: ten minutes of perpx and hip3 trades
 * around the run's first liquidation, as `write-fixture.ts` renders them and the unit tests re-derive them.
 */
import type { TradeRecord } from '#schemas/datasets.ts';
import { createDemoMarket } from './market.ts';

const FIXTURE_OPTIONS = { seed: 7, startMs: Date.UTC(2026, 2, 10), intensity: 0.3 } as const;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** The fixture's window: from five minutes before the liquidation's minute, ten minutes long. */
const LEAD_MS = 5 * MINUTE_MS;
const WINDOW_MS = 10 * MINUTE_MS;

export function fixtureTrades(): TradeRecord[] {
  const market = createDemoMarket(FIXTURE_OPTIONS);
  const trades: TradeRecord[] = [];
  for (let hour = 1; ; hour++) {
    for (const record of market.advance(FIXTURE_OPTIONS.startMs + hour * HOUR_MS)) {
      if (record.dataset === 'trades' && (record.family === 'perpx' || record.family === 'hip3')) trades.push(record);
    }
    const liquidation = trades.find((trade) => trade.is_liquidation);
    if (liquidation) {
      const from = Math.floor(liquidation.ts / MINUTE_MS) * MINUTE_MS - LEAD_MS;
      return trades.filter((trade) => trade.ts >= from && trade.ts < from + WINDOW_MS);
    }
  }
}
