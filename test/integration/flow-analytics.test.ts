/**
 * Routes derived from the trade tape and order events, over the real archive (dynalite manifest,
 * s3rver objects, DuckDB): CVD buckets equal a model summed in JavaScript from the same trades, a
 * cursor walk serves every bucket once, and each page's running total is the sum of its deltas;
 * order history serves exactly the events its filters select, each once, in block order.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { cvdPage } from '#core/market/cvd.ts';
import { orderHistoryPage } from '#core/market/order-history.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { tapeTrade, type TapeTrade } from '../helpers/arbitraries.ts';
import { routePaging, walkJsonRows } from '../helpers/api.ts';
import {
  CVD_INTERVALS,
  ORDER_HISTORY_STATUSES,
  ORDER_HISTORY_TYPES,
  type CvdBucket,
  type CvdInterval,
  type OrderHistoryEvent,
} from '#schemas/flow-analytics.ts';
import { ORDER_EVENT_KINDS } from '#schemas/datasets.ts';

const deps = scratchArchive();

const T0 = Date.parse('2026-09-01T00:00:00Z');
const SPAN = 6 * 3_600_000;
const NOW = T0 + 2 * 86_400_000;

const trade = tapeTrade(SPAN);
let run = 0;

async function ingestTrades(trades: readonly TapeTrade[]) {
  const symbol = `CVD${run}`;
  const firstId = run++ * 1_000;
  const records = trades.map((t, i) => ({
    dataset: 'trades',
    family: 'perpx',
    symbol,
    ts: T0 + t.offset,
    trade_id: firstId + i,
    side: t.side,
    price: (t.cents / 100).toFixed(2),
    size: (t.lots / 1000).toFixed(3),
  }));
  await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
  return { symbol, records };
}

async function walk(next: (cursor?: string) => ReturnType<typeof cvdPage>): Promise<CvdBucket[][]> {
  const pages: CvdBucket[][] = [];
  let cursor: string | undefined;
  do {
    const page = await next(cursor);
    pages.push(page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('CVD', () => {
  it('sums taker buy and sell notional per bucket; a walk serves each bucket once, each page running its own total', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(trade, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom<CvdInterval>('1m', '15m', '1h', '4h'),
        async (trades, limit, interval) => {
          // Prepare
          const { symbol, records } = await ingestTrades(trades);
          const width = CVD_INTERVALS[interval];
          const model = new Map<number, { buy: number; sell: number }>();
          for (const r of records) {
            const bucket = Math.floor(r.ts / width) * width;
            const m = model.get(bucket) ?? { buy: 0, sell: 0 };
            const usd = Number(r.price) * Number(r.size);
            model.set(bucket, r.side === 'B' ? { ...m, buy: m.buy + usd } : { ...m, sell: m.sell + usd });
          }
          // Act
          const pages = await walk((cursor) =>
            cvdPage(deps(), { ...routePaging('getPerpxCvd'), family: 'perpx', symbol, start: T0, end: T0 + SPAN, interval, limit, cursor }, NOW),
          );
          // Assess
          const buckets = pages.flat();
          expect(buckets.map((b) => b.timestamp_ms)).toEqual([...model.keys()].sort((a, b) => a - b));
          for (const b of buckets) {
            const m = model.get(b.timestamp_ms)!;
            expect(Math.abs(b.buy_volume - m.buy)).toBeLessThan(1e-3);
            expect(Math.abs(b.sell_volume - m.sell)).toBeLessThan(1e-3);
          }
          for (const page of pages) {
            expect(page.length).toBeLessThanOrEqual(limit);
            let running = 0;
            for (const b of page) expect(Math.abs(b.cumulative_delta - (running += b.delta))).toBeLessThan(1e-3);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('without start or cursor, serves the newest limit buckets of the day before end, oldest first, with no cursor', async () => {
    // Prepare: one trade a minute for the last ten minutes of the window, buys and sells alternating.
    const trades: TapeTrade[] = Array.from({ length: 10 }, (_, i) => ({
      offset: SPAN - 600_000 + i * 60_000,
      cents: 100,
      lots: 1000,
      side: i % 2 ? 'A' : 'B',
    }));
    const { symbol } = await ingestTrades(trades);
    // Act
    const page = await cvdPage(deps(), { ...routePaging('getPerpxCvd'), family: 'perpx', symbol, end: T0 + SPAN, interval: '1m', limit: 4 }, NOW);
    // Assess
    expect(page.nextCursor).toBeNull();
    expect(page.data.map((b) => b.timestamp_ms)).toEqual([6, 7, 8, 9].map((i) => T0 + SPAN - 600_000 + i * 60_000));
    expect(page.data.map((b) => b.delta)).toEqual([1, -1, 1, -1]);
    expect(page.data.map((b) => b.cumulative_delta)).toEqual([1, 0, 1, 0]);
  });
});

const WALLETS = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2'];
const orderEvent = fc.record({
  offset: fc.integer({ min: 0, max: SPAN - 1 }),
  event: fc.constantFrom(...ORDER_EVENT_KINDS),
  wallet: fc.integer({ min: 0, max: 1 }),
  kind: fc.constantFrom('limit', 'trigger', 'tpsl'),
  cloid: fc.boolean(),
});

describe('order history', () => {
  it('serves exactly the events its filters select, once each, in block order, at any page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderEvent, { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.constantFrom(...ORDER_HISTORY_STATUSES), { nil: undefined }),
        fc.option(fc.constantFrom(...ORDER_HISTORY_TYPES), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
        async (events, limit, status, orderType, wallet) => {
          // Prepare: block numbers follow time, one event per block, so (block, seq) order is time order.
          const symbol = `OH${run++}`;
          const sorted = [...events].sort((a, b) => a.offset - b.offset);
          const records = sorted.map((e, i) => ({
            dataset: 'order_events',
            family: 'perpx',
            symbol,
            ts: T0 + e.offset,
            event: e.event,
            block_number: run * 100_000 + i,
            seq: 0,
            oid: i,
            user_address: WALLETS[e.wallet],
            side: i % 2 ? 'A' : 'B',
            status: e.event === 'placed' ? 'open' : e.event,
            limit_price: '100.5',
            size: '1',
            orig_size: '2',
            order_type: e.kind === 'limit' ? 'Limit' : 'Stop Market',
            reduce_only: e.kind === 'tpsl',
            is_trigger: e.kind !== 'limit',
            is_position_tpsl: e.kind === 'tpsl',
            ...(e.kind !== 'limit' && { trigger_condition: 'Price below 99', trigger_price: '99' }),
            ...(e.cloid && { cloid: '0xabc' }),
          }));
          await ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
          const user = wallet === undefined ? undefined : WALLETS[wallet]!.toUpperCase().replace('0X', '0x');
          // Act
          const rows = await walkJsonRows<OrderHistoryEvent>((cursor) =>
            orderHistoryPage(
              deps(),
              {
                ...routePaging('getPerpxOrderHistory'),
                family: 'perpx',
                symbol,
                start: T0,
                end: T0 + SPAN,
                limit,
                cursor,
                status,
                order_type: orderType,
                user,
              },
              NOW,
            ),
          );
          // Assess
          const expected = sorted.filter(
            (e, i) =>
              (status === undefined || records[i]!.event === (status === 'open' ? 'placed' : status))
              && (orderType === undefined || e.kind === orderType)
              && (wallet === undefined || e.wallet === wallet),
          );
          expect(rows.map((r) => r.event)).toEqual(expected.map((e) => e.event));
          expect(rows.map((r) => r.oid)).toEqual(records.filter((_, i) => expected.includes(sorted[i]!)).map((r) => r.oid));
          for (const r of rows) {
            expect(Object.values(r)).not.toContain(null);
            expect(r.limit_price).toBe(100.5);
            expect('trigger_price' in r).toBe(r.is_trigger);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuses a status that contradicts triggered, naming the parameter', async () => {
    await expect(
      orderHistoryPage(deps(), { ...routePaging('getPerpxOrderHistory'), family: 'perpx', symbol: 'BTC', limit: 10, status: 'filled', triggered: true }, NOW),
    ).rejects.toMatchObject({ code: 'invalid_parameter', param: 'triggered' });
  });
});
