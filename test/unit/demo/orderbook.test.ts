import { beforeAll, describe, expect, it } from 'vitest';
import { createDemoMarket } from '#local/demo/market.ts';
import { L4Book, type BookDiff } from '#core/book/l4-book.ts';
import { groupBy } from '#core/group.ts';
import type { NormalizedRecord, RecordOf } from '#schemas/datasets.ts';

const START = Date.UTC(2026, 2, 10, 6);
const MINUTE = 60_000;
const key = (r: { family: string; symbol: string }) => `${r.family} ${r.symbol}`;
let records: NormalizedRecord[];
const only = <D extends NormalizedRecord['dataset']>(dataset: D) =>
  records.filter((r): r is Extract<NormalizedRecord, { dataset: D }> => r.dataset === dataset);

beforeAll(() => {
  records = createDemoMarket({ startMs: START, l4CheckpointMs: 5 * MINUTE }).advance(START + 20 * MINUTE);
});

/** The book from a checkpoint, moved forward by the market's diffs after it up to `until` (inclusive). */
function rebuilt(checkpoint: RecordOf<'l4_checkpoints'>, diffs: RecordOf<'l4_diffs'>[], until: number): L4Book {
  const book = L4Book.fromCheckpoint(checkpoint.bids, checkpoint.asks);
  for (const d of diffs) {
    const after = d.block_number > checkpoint.block_number || (d.block_number === checkpoint.block_number && d.seq > checkpoint.seq);
    if (after && d.ts <= until) book.apply({ ...d, new_size: d.new_size ?? null, insert_before: d.insert_before ?? null } as BookDiff);
  }
  return book;
}

describe("the demo market's order books", () => {
  it('publishes order-level diffs and 5-minute checkpoints for every market, owners numbered on altx and altx-rh', () => {
    const markets = only('instruments');
    const withDiffs = new Set(only('l4_diffs').map(key));
    expect(markets.filter((m) => !withDiffs.has(key(m)))).toEqual([]);
    const checkpoints = only('l4_checkpoints');
    expect(new Set(checkpoints.map((c) => c.ts))).toEqual(new Set([1, 2, 3, 4].map((n) => START + n * 5 * MINUTE - 1)));
    expect(new Set(only('l4_diffs').map((d) => d.diff_type))).toEqual(new Set(['new', 'update', 'remove']));
    const altx = only('l4_diffs').filter((d) => d.family === 'altx' || d.family === 'altx-rh');
    expect(altx.length).toBeGreaterThan(0);
    expect(altx.every((d) => /^\d+$/.test(d.user_address))).toBe(true);
  });

  it('rebuilds, from a checkpoint and the diffs after it, exactly the book of the next checkpoint (queue order included)', () => {
    const diffs = groupBy(only('l4_diffs'), key);
    const checkpoints = groupBy(only('l4_checkpoints'), key);
    let compared = 0;
    for (const [market, series] of checkpoints) {
      for (let i = 1; i < series.length; i++) {
        const book = rebuilt(series[i - 1]!, diffs.get(market) ?? [], series[i]!.ts);
        const next = L4Book.fromCheckpoint(series[i]!.bids, series[i]!.asks);
        expect(book.side('B'), market).toEqual(next.side('B'));
        expect(book.side('A'), market).toEqual(next.side('A'));
        expect(book.anomalies).toBe(0);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('snapshots the native book as the top 20 levels of the order-level book (every level on altx and altx-rh), never crossed', () => {
    const diffs = groupBy(only('l4_diffs'), key);
    const first = new Map(
      only('l4_checkpoints')
        .filter((c) => c.ts === START + 5 * MINUTE - 1)
        .map((c) => [key(c), c]),
    );
    let compared = 0;
    for (const snapshot of only('l2_snapshots')) {
      const checkpoint = first.get(key(snapshot));
      if (!checkpoint || snapshot.ts < checkpoint.ts) continue;
      const book = rebuilt(checkpoint, diffs.get(key(snapshot)) ?? [], snapshot.ts);
      const depth = snapshot.family === 'altx' || snapshot.family === 'altx-rh' ? undefined : 20;
      const top = (side: 'B' | 'A') => book.levels(side, depth).map((l) => [l.price, l.size, l.count]);
      expect(snapshot.bids, key(snapshot)).toEqual(top('B'));
      expect(snapshot.asks, key(snapshot)).toEqual(top('A'));
      expect(book.isCrossed()).toBe(false);
      compared++;
    }
    expect(compared).toBeGreaterThan(1_000);
    // The altx books run deeper than 20 levels (makers keep up to 26 rungs), so the cap would show.
    expect(only('l2_snapshots').some((s) => s.family === 'altx' && s.asks.length > 20)).toBe(true);
  });

  it("fills resting orders consistently with the trade tape: each book fill is a trade at that order's price", () => {
    const trades = only('trades').filter((t) => ['perpx', 'spot', 'hip3', 'hip4'].includes(t.family));
    const byTs = groupBy(
      only('l4_diffs').filter((d) => d.diff_type !== 'new'),
      (d) => `${key(d)} ${d.ts} ${d.user_address} ${d.price}`,
    );
    // A taker's fill against a maker's order takes size off that order at the trade's price and time.
    const crossed = trades.filter((t) => t.crossed && t.is_liquidation !== true);
    const unmatched = crossed.filter((t) => !byTs.has(`${key(t)} ${t.ts} ${t.maker_address} ${t.price}`));
    expect(crossed.length).toBeGreaterThan(1_000);
    expect(unmatched).toEqual([]);
  });

  it("closes its books at the end of a span, so a book replayed across the seam is the next simulation's", () => {
    // A first start seeds the newest hour from one simulation and the days before it from another.
    const seam = START + 20 * MINUTE;
    const older = createDemoMarket({ startMs: START, l4CheckpointMs: 5 * MINUTE });
    const across = [
      ...older.advance(seam),
      ...older.closingDiffs(),
      ...createDemoMarket({ startMs: seam, l4CheckpointMs: 5 * MINUTE }).advance(seam + 10 * MINUTE),
    ];
    const diffs = across.filter((r): r is RecordOf<'l4_diffs'> => r.dataset === 'l4_diffs');
    const positions = diffs.map((d) => `${d.family} ${d.block_number} ${d.seq}`);
    expect(new Set(positions).size).toBe(positions.length);
    const byMarket = groupBy(diffs, key);
    const checkpoints = across.filter((r): r is RecordOf<'l4_checkpoints'> => r.dataset === 'l4_checkpoints');
    let compared = 0;
    for (const before of checkpoints.filter((c) => c.ts === seam - 1)) {
      const after = checkpoints.find((c) => key(c) === key(before) && c.ts === seam + 5 * MINUTE - 1)!;
      const book = rebuilt(before, byMarket.get(key(before)) ?? [], after.ts);
      const next = L4Book.fromCheckpoint(after.bids, after.asks);
      expect(book.side('B'), key(before)).toEqual(next.side('B'));
      expect(book.side('A'), key(before)).toEqual(next.side('A'));
      expect(book.anomalies).toBe(0);
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
    // The book at the seam's last instant is still the older simulation's: the closing diffs are stamped at the seam.
    expect(rebuilt(checkpoints.find((c) => c.ts === seam - 1)!, diffs, seam - 1).side('B').length).toBeGreaterThan(0);
  });
});
