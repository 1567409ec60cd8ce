/**
 * Trigger and liquidation levels over the real archive (dynalite manifest, s3rver objects, DuckDB):
 * a walk of the history serves each snapshot instant once, oldest first, with the trigger orders a
 * model says rest at it (newest event a placement) and the positions of the snapshot, each bucket
 * holding what the rule puts in it; the current maps answer the newest state and 404 without a mark.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { levelGrid, bucketIndex } from '#core/market/levels.ts';
import { triggerLevels, triggerLevelsHistory, TRIGGER_SNAPSHOT_EVERY } from '#core/market/trigger-levels.ts';
import { liquidationLevels, liquidationLevelsHistory, liquidationPrice } from '#core/market/liquidation-levels.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { routePaging } from '../helpers/api.ts';
import type { TriggerLevelsItem } from '#schemas/levels.ts';

const deps = scratchArchive();
const T0 = Date.parse('2026-09-01T00:00:00Z');
const SPAN = 2 * 3_600_000;
const NOW = T0 + 2 * 86_400_000;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
let run = 0;

const ingest = (records: readonly object[]) => ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
/** A mark every 10 minutes of the span at `mark`. */
const marks = (family: string, symbol: string, mark: number) =>
  Array.from({ length: SPAN / 600_000 + 1 }, (_, i) => ({
    dataset: 'open_interest',
    family,
    symbol,
    ts: T0 + i * 600_000,
    open_interest: '100',
    mark_price: String(mark),
  }));

const triggerEvent = fc.record({
  offset: fc.integer({ min: 0, max: SPAN }),
  oid: fc.integer({ min: 1, max: 15 }),
  event: fc.constantFrom('placed', 'placed', 'triggered', 'canceled'),
  side: fc.constantFrom<'A' | 'B'>('A', 'B'),
  lots: fc.integer({ min: 1, max: 50 }),
  price: fc.integer({ min: 92, max: 108 }),
});

describe('trigger levels', () => {
  it('walks the quarter hours once each, with the resting orders of a model in their buckets', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(triggerEvent, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (events, limit) => {
        // Prepare
        const symbol = `LVL${run++}`;
        const records = events.map((e, seq) => ({
          dataset: 'order_events',
          family: 'perpx',
          symbol,
          ts: T0 + e.offset,
          event: e.event,
          block_number: 1_000 + e.offset,
          seq,
          oid: e.oid,
          user_address: addr(e.oid),
          side: e.side,
          status: e.event === 'placed' ? 'open' : e.event,
          size: String(e.lots),
          orig_size: String(e.lots),
          order_type: 'Stop Market',
          reduce_only: true,
          is_trigger: true,
          is_position_tpsl: false,
          trigger_price: String(e.price),
          trigger_condition: 'Price below',
        }));
        await ingest([...records, ...marks('perpx', symbol, 100)]);
        const params = { range_pct: 10, buckets: 20 };
        // Act
        const pages: TriggerLevelsItem[][] = [];
        let cursor: string | undefined;
        do {
          const page = await triggerLevelsHistory(
            deps(),
            { ...routePaging('getPerpxTriggerLevelsHistory'), family: 'perpx', symbol, start: T0, end: T0 + SPAN, limit, cursor, ...params },
            NOW,
          );
          pages.push(page.data);
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        // Assess
        const items = pages.flat();
        expect(items.map((i) => i.snapshot_ts_ms)).toEqual(
          Array.from({ length: SPAN / TRIGGER_SNAPSHOT_EVERY + 1 }, (_, i) => T0 + i * TRIGGER_SNAPSHOT_EVERY),
        );
        const grid = levelGrid(100, 10, 20);
        for (const item of items) {
          const newest = new Map<number, (typeof records)[number]>();
          for (const r of [...records].sort((a, b) => a.ts - b.ts || a.seq - b.seq)) if (r.ts <= item.snapshot_ts_ms) newest.set(r.oid, r);
          const expected = Array.from({ length: 20 }, () => ({ bid_count: 0, bid_size: 0, ask_count: 0, ask_size: 0 }));
          for (const r of newest.values()) {
            if (r.event !== 'placed') continue;
            const b = expected[bucketIndex(grid, Number(r.trigger_price))!]!;
            if (r.side === 'B') {
              b.bid_count++;
              b.bid_size += Number(r.size);
            } else {
              b.ask_count++;
              b.ask_size += Number(r.size);
            }
          }
          expect(item.mid_price).toBe(100);
          expect(item.levels!.map(({ price_bucket: _, ...sums }) => sums)).toEqual(expected);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('serves the state now, and 404 for a market without a recent mark', async () => {
    // Prepare
    const symbol = `LVLNOW${run++}`;
    const now = T0 + SPAN;
    const base = {
      dataset: 'order_events',
      family: 'hip3',
      symbol,
      user_address: addr(1),
      order_type: 'Stop Market',
      reduce_only: true,
      is_trigger: true,
      is_position_tpsl: false,
    };
    await ingest(
      [
        { ...base, ts: T0 + 1, event: 'placed', block_number: 1, seq: 0, oid: 1, side: 'A', status: 'open', size: '2', trigger_price: '95' },
        { ...base, ts: T0 + 2, event: 'placed', block_number: 2, seq: 0, oid: 2, side: 'B', status: 'open', size: '3', trigger_price: '105' },
        { ...base, ts: T0 + 3, event: 'canceled', block_number: 3, seq: 0, oid: 2, side: 'B', status: 'canceled', size: '3', trigger_price: '105' },
        ...marks('hip3', symbol, 100),
      ].map((r) => ({ ...r, symbol: `xyz:${symbol}` })),
    );
    // Act
    const map = await triggerLevels(deps(), { family: 'hip3', symbol: `xyz:${symbol}`, range_pct: 10, buckets: 10 }, now);
    const none = triggerLevels(deps(), { family: 'hip3', symbol: 'xyz:NOMARK', range_pct: 10, buckets: 10 }, now);
    // Assess
    expect(map).toMatchObject({ mid_price: 100, as_of: new Date(now).toISOString(), total_bid_size: 0, total_ask_size: 2 });
    expect(map.levels.filter((l) => l.ask_count > 0)).toEqual([{ price_bucket: 95, bid_count: 0, bid_size: 0, ask_count: 1, ask_size: 2 }]);
    await expect(none).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('liquidation levels', () => {
  it("buckets each snapshot's positions by the rule, at the snapshot asked for and along a history walk", async () => {
    // Prepare
    const symbol = `LIQ${run++}`;
    const instants = [T0 + 3_600_000, T0 + 3_900_000, T0 + 4_200_000];
    const positions = [
      { account: addr(1), size: '2', entry_price: '100', max_leverage: 20 },
      { account: addr(2), size: '-1', entry_price: '101', max_leverage: 10 },
      { account: addr(3), size: '5', entry_price: null, max_leverage: 20 },
    ];
    const rows = instants.flatMap((ts, i) => [
      { dataset: 'position_snapshots', family: 'perpx', symbol: '', ts, account: '', size: '0', quality: 'complete' },
      ...positions.slice(0, i + 1).map((p) => ({ dataset: 'position_snapshots', family: 'perpx', symbol, ts, ...p, quality: 'complete' })),
    ]);
    await ingest([...rows, ...marks('perpx', symbol, 100)]);
    // Act
    const at = await liquidationLevels(deps(), { family: 'perpx', symbol, range_pct: 10, buckets: 50, at: instants[1]! + 1 }, NOW);
    const history = await liquidationLevelsHistory(
      deps(),
      { ...routePaging('getPerpxLiquidationLevelsHistory'), family: 'perpx', symbol, start: T0, end: T0 + SPAN, limit: 2, range_pct: 10, buckets: 50 },
      NOW,
    );
    const rest = await liquidationLevelsHistory(
      deps(),
      {
        ...routePaging('getPerpxLiquidationLevelsHistory'),
        family: 'perpx',
        symbol,
        start: T0,
        end: T0 + SPAN,
        limit: 2,
        range_pct: 10,
        buckets: 50,
        summary: true,
        cursor: history.nextCursor!,
      },
      NOW,
    );
    // Assess
    const longLiq = liquidationPrice(2, 100, 20)!;
    const shortLiq = liquidationPrice(-1, 101, 10)!;
    expect(at).toMatchObject({ snapshot_ts_ms: instants[1], mid_price: 100, total_long: 200, total_short: 100, flagged_notional: 0, source: 'raw' });
    const grid = levelGrid(100, 10, 50);
    expect(at.levels[bucketIndex(grid, longLiq)!]).toMatchObject({ long_count: 1, long_notional: 200 });
    expect(at.levels[bucketIndex(grid, shortLiq)!]).toMatchObject({ short_count: 1, short_notional: 100 });
    expect(history.data.map((d) => d.snapshot_ts_ms)).toEqual(instants.slice(0, 2));
    expect(rest.data).toEqual([expect.objectContaining({ snapshot_ts_ms: instants[2], flagged_notional: 500, total_long: 200 })]);
    expect(rest.data[0]).not.toHaveProperty('levels');
    expect(rest.nextCursor).toBeNull();
    await expect(liquidationLevels(deps(), { family: 'perpx', symbol, range_pct: 10, buckets: 50, at: T0 }, NOW)).rejects.toMatchObject({ code: 'not_found' });
  });
});
