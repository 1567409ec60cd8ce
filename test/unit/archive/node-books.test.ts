import { describe, expect, it } from 'vitest';
import { parseBatch } from '#core/archive/parse.ts';
import { createDemoMarket } from '#local/demo/market.ts';
import type { RecordOf } from '#schemas/datasets.ts';

const START = Date.UTC(2026, 2, 10, 6);
const USER = '0x1111111111111111111111111111111111111111';
const coinOf = (r: { family: string; symbol: string }) => (r.family === 'spot' ? r.symbol.replace('-', '/') : r.symbol);
const blockTime = (ts: number) => new Date(ts).toISOString().replace('Z', '');

/** Records as a node writes them: one line per block, events in (block, seq) order, the block's time on every event. */
function byBlock<R extends { block_number: number; seq: number; ts: number }>(records: readonly R[], event: (r: R) => unknown): string {
  const blocks = new Map<number, R[]>();
  for (const r of [...records].sort((a, b) => a.block_number - b.block_number || a.seq - b.seq))
    blocks.set(r.block_number, [...(blocks.get(r.block_number) ?? []), r]);
  return [...blocks.values()]
    .map((rs) =>
      JSON.stringify({
        local_time: blockTime(rs[0]!.ts + 50),
        block_time: blockTime(rs[0]!.ts),
        block_number: rs[0]!.block_number,
        events: rs.map(event),
      }),
    )
    .join('\n');
}

describe('node order-level formats', () => {
  const records = createDemoMarket({ startMs: START }).advance(START + 120_000);

  it('reads node_raw_book_diffs_by_block into the L4 diffs it was rendered from (one family, block times)', () => {
    // Prepare: a family's diffs share (block, seq) numbering; the node stamps every event with its block's time.
    const perpx = records.filter((r): r is RecordOf<'l4_diffs'> => r.dataset === 'l4_diffs' && r.family === 'perpx');
    const text = byBlock(perpx, (d) => ({
      user: d.user_address,
      oid: d.oid,
      coin: coinOf(d),
      side: d.side,
      px: d.price,
      raw_book_diff: d.diff_type === 'remove' ? 'remove' : d.diff_type === 'new' ? { new: { sz: d.new_size } } : { update: { origSz: '1', newSz: d.new_size } },
    }));
    // Act
    const result = parseBatch('node_raw_book_diffs_by_block', text);
    // Assess
    expect(result.ok).toBe(true);
    const blockTs = new Map<number, number>();
    for (const d of perpx) if (!blockTs.has(d.block_number)) blockTs.set(d.block_number, d.ts);
    const expected = [...perpx].sort((a, b) => a.block_number - b.block_number || a.seq - b.seq).map((d) => ({ ...d, ts: blockTs.get(d.block_number)! }));
    expect(result.ok && result.records).toEqual(expected);
  });

  it('reads node_order_statuses_by_block into order events, engine cancels and rejects as forced, spot statuses under spot', () => {
    const order = (coin: string, over: Record<string, unknown> = {}) => ({
      coin,
      side: 'B',
      limitPx: '97000',
      sz: '0.5',
      origSz: '1',
      oid: 42,
      timestamp: START,
      orderType: 'Limit',
      tif: 'Gtc',
      reduceOnly: false,
      isTrigger: false,
      triggerCondition: 'N/A',
      triggerPx: '0.0',
      isPositionTpsl: false,
      cloid: null,
      ...over,
    });
    const text = JSON.stringify({
      local_time: blockTime(START + 80),
      block_time: blockTime(START),
      block_number: 9_000,
      events: [
        { user: USER, status: 'open', order: order('BTC') },
        { user: USER, status: 'perpMarginRejected', order: order('xyz:TSLA', { oid: 43 }) },
        {
          user: USER,
          status: 'triggered',
          order: order('BTC', {
            oid: 44,
            isTrigger: true,
            triggerCondition: 'Price below 96000',
            triggerPx: '96000',
            orderType: 'Stop Market',
            reduceOnly: true,
          }),
        },
        { user: USER, status: 'canceled', order: order('PURR/USDC', { oid: 45 }) },
      ],
    });
    const result = parseBatch('node_order_statuses_by_block', text);
    expect(result.ok && result.records.map((r) => r.dataset === 'order_events' && [r.family, r.event, r.status, r.seq])).toEqual([
      ['perpx', 'placed', 'open', 0],
      ['hip3', 'force_canceled', 'perpMarginRejected', 1],
      ['perpx', 'triggered', 'triggered', 2],
      ['spot', 'canceled', 'canceled', 3],
    ]);
    expect(result.ok && result.records[3]).toMatchObject({ family: 'spot', symbol: 'PURR-USDC', oid: 45 });
    expect(result.ok && result.records[2]).toMatchObject({ trigger_condition: 'Price below 96000', trigger_price: '96000', ts: START, block_number: 9_000 });
    expect(result.ok && result.records[0]).not.toHaveProperty('trigger_price');
  });

  it('refuses a whole batch naming the line and field of a bad event', () => {
    const line = (diff: unknown) =>
      JSON.stringify({
        local_time: blockTime(START),
        block_time: blockTime(START),
        block_number: 1,
        events: [{ user: USER, oid: 1, coin: 'BTC', side: 'B', px: '1', raw_book_diff: diff }],
      });
    const result = parseBatch('node_raw_book_diffs_by_block', [line('remove'), line({ replace: { sz: '1' } })].join('\n'));
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/line 2: events\.0\.raw_book_diff/) });
  });
});
