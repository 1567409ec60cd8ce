/**
 * Wallet classification over the real archive: one UTC day's position legs (fills), order events
 * and trades of a family make each wallet's metrics and class; another day, another family and the
 * filters are kept apart; pages follow offset against total.
 */
import { describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { classifyWallets, type ClassifyRequest } from '#core/positions/wallet-classes.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';

const deps = scratchArchive();
const DAY0 = Date.parse('2026-09-04T00:00:00Z');
const NOW = DAY0 + 36 * 3_600_000;
const MAKER = `0x${'a'.repeat(40)}`;
const SWING = `0x${'b'.repeat(40)}`;
const QUIET = `0x${'c'.repeat(40)}`;
const ingest = (records: readonly object[]) => ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
const base: ClassifyRequest = { family: 'perpx', min_orders: 0, min_volume_usd: 0, sort: 'total_fills', order: 'desc', limit: 100, offset: 0 };

let tradeId = 0;
/** A wallet's fill as the positions job logs it: one leg (a maker's too, which a trade row names only as maker_address). */
const fill = (user: string, ts: number, crossed: boolean, extra: object = {}) => ({
  dataset: 'position_changes',
  family: 'perpx',
  symbol: 'BTC',
  ts,
  account: user,
  trade_id: ++tradeId,
  side: tradeId % 2 ? 'B' : 'A',
  price: '100',
  size: '2',
  start_position: '0',
  end_position: '2',
  event_type: 'open',
  cause: 'trade',
  continuity: 'ok',
  crossed,
  fee: '0.1',
  fee_token: 'USDC',
  closed_pnl: '1',
  ...extra,
});
const trade = (user: string, ts: number, extra: object) => ({
  dataset: 'trades',
  family: 'perpx',
  symbol: 'BTC',
  ts,
  trade_id: ++tradeId,
  side: 'B',
  price: '100',
  size: '1',
  crossed: true,
  user_address: user,
  ...extra,
});
const order = (user: string, ts: number, oid: number, event: string, extra: object = {}) => ({
  dataset: 'order_events',
  family: 'perpx',
  symbol: 'BTC',
  ts,
  event,
  block_number: ts,
  seq: oid,
  oid,
  user_address: user,
  side: 'B',
  status: event === 'placed' ? 'open' : event,
  limit_price: '100',
  size: '1',
  orig_size: '1',
  order_type: 'Limit',
  reduce_only: false,
  is_trigger: false,
  is_position_tpsl: false,
  ...extra,
});
const close = (user: string, ts: number, openedAt: number) => ({
  dataset: 'position_changes',
  family: 'perpx',
  symbol: 'BTC',
  ts,
  account: user,
  trade_id: ++tradeId,
  side: 'A',
  price: '100',
  size: '1',
  start_position: '1',
  end_position: '0',
  event_type: 'close',
  cause: 'trade',
  continuity: 'ok',
  opened_at: openedAt,
});

describe('wallet classification', () => {
  it('classifies a day of wallets by the rule from their fills, orders and positions', async () => {
    // Prepare: MAKER fills 120 times, 100 as maker; SWING closes a position held 6 hours, with one TWAP fill;
    // QUIET places two orders and cancels one a second later. A fill on the next day and on hip3 count for neither day's perpx.
    const day = DAY0 + 3_600_000;
    await ingest([
      ...Array.from({ length: 120 }, (_, i) => fill(MAKER, day + i * 1_000, i >= 100)),
      trade(SWING, day + 500_000, { twap_id: 9 }),
      close(SWING, day + 500_000, day + 500_000 - 6 * 3_600_000),
      order(QUIET, day, 1, 'placed', { tif: 'Alo' }),
      order(QUIET, day + 1_000, 1, 'canceled'),
      order(QUIET, day + 2_000, 2, 'placed', { cloid: '0x1' }),
      fill(QUIET, DAY0 + 86_400_000 + 5, true),
      { ...fill(QUIET, day, true), family: 'hip3', symbol: 'xyz:ABC' },
      trade(QUIET, day, { priority_gas: '0.01', family: 'hip3', symbol: 'xyz:ABC' }),
    ]);
    // Act
    const { data: all, meta } = await classifyWallets(deps(), { ...base, date: '2026-09-04' }, NOW);
    const { data: yesterday } = await classifyWallets(deps(), base, NOW);
    const { data: twap } = await classifyWallets(deps(), { ...base, uses_twap: true }, NOW);
    const { data: canceling } = await classifyWallets(deps(), { ...base, min_cancel_rate: 0.5 }, NOW);
    const { data: second } = await classifyWallets(deps(), { ...base, limit: 1, offset: 1 }, NOW);
    // Assess
    expect(yesterday).toEqual(all);
    // No positions snapshot was built: the legs ingested here are counted, and the answer says the day is not built.
    expect(meta.notice).toMatch(/not built yet/);
    expect(all.date).toBe('2026-09-04');
    expect(all.total).toBe(3);
    // By total_fills, descending: 120, 1, 0.
    expect(all.wallets.map((w) => [w.address, w.class])).toEqual([
      [MAKER, 'market_maker'],
      [SWING, 'position_trader'],
      [QUIET, 'retail'],
    ]);
    const [maker, quiet, swing] = [MAKER, QUIET, SWING].map((a) => all.wallets.find((w) => w.address === a)!.metrics);
    expect(maker).toMatchObject({
      total_fills: 120,
      maker_ratio: 100 / 120,
      total_volume_usd: 24_000,
      total_fees_usd: expect.closeTo(12, 9),
      active_hours: 1,
      total_orders: 0,
    });
    expect(maker).not.toHaveProperty('cancel_rate');
    expect(swing).toMatchObject({ total_fills: 1, avg_holding_ms: 6 * 3_600_000, uses_twap: true, twap_fills: 1 });
    expect(quiet).toMatchObject({ total_orders: 2, cancel_rate: 0.5, post_only_ratio: 0.5, cloid_ratio: 0.5, median_cancel_speed_ms: 1_000, total_fills: 0 });
    expect(twap.wallets.map((w) => w.address)).toEqual([SWING]);
    expect(canceling.wallets.map((w) => w.address)).toEqual([QUIET]);
    expect(second).toMatchObject({ total: 3, wallets: [all.wallets[1]] });
    expect((await classifyWallets(deps(), base, NOW + 86_400_000)).data.total).toBe(1);
    const { data: hip3 } = await classifyWallets(deps(), { ...base, family: 'hip3' }, NOW);
    expect(hip3.wallets.map((w) => [w.address, w.metrics.total_fills, w.metrics.uses_priority_gas])).toEqual([[QUIET, 1, true]]);
  });
});
