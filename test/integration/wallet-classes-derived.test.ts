/**
 * Wallet classes over the per-wallet statistics compaction derives (wallet_*_stats): on generated
 * fills, orders and trades of a few wallets over two days, compacted as the schedule leaves them
 * mid-afternoon of day two (day one folded into day rows, day two's closed hours in hour rows,
 * the open hour in deltas), every page the route answers equals the rule applied in plain code to
 * the raw records. Day one is exact; on day two an order counts once per compacted hour it has
 * events in, plus once for the hours still in deltas (docs/newer-routes.md), which the reference
 * applies too. Late rows of the folded day, before compaction folds them, are read raw for the
 * whole day. Amounts are whole or quarter dollars, so sums are exact in any order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classOf, classifyWallets, matches, metricsOf, sortWallets, type ClassifyRequest } from '#core/positions/wallet-classes.ts';
import { groupBy } from '#core/group.ts';
import { rederiveDays } from '#core/archive/compact-derived.ts';
import { compactArchive } from '#core/archive/compact.ts';
import type { Row } from '#ports/sql.ts';
import { WALLET_SORTS, type WalletSort } from '#schemas/wallet-classes.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { DAY, NOW, T0, rollupArchive } from '../helpers/rollup-archive.ts';

const { archive, compact, ingestUncompacted } = rollupArchive();
const HOUR = 3_600_000;
const WALLETS = Array.from({ length: 3 }, (_, i) => `0x${String(i + 1).repeat(40)}`);
const BUILDERS = [`0x${'d'.repeat(40)}`, `0x${'e'.repeat(40)}`];
const SYMBOLS = ['WA', 'WB'];
/** Instants over both days up to NOW, on a 10-minute grid so fills and events share hours. */
const at = fc.integer({ min: 0, max: Math.floor((NOW - T0) / 600_000) - 1 }).map((i) => T0 + i * 600_000);
const wallet = fc.integer({ min: 0, max: WALLETS.length - 1 });
const symbol = fc.constantFrom(...SYMBOLS);
const quarters = fc.integer({ min: -40, max: 400 }).map((q) => q / 4);

const fillArb = fc.record({
  wallet,
  symbol,
  ts: at,
  side: fc.constantFrom('A', 'B'),
  price: fc.integer({ min: 1, max: 2_000 }),
  size: fc.integer({ min: 1, max: 600 }),
  crossed: fc.option(fc.boolean(), { nil: undefined }),
  fee: quarters,
  pnl: fc.integer({ min: -500, max: 500 }),
  cause: fc.constantFrom('trade', 'trade', 'liquidation'),
  close: fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
});
const orderArb = fc.record({
  wallet,
  symbol,
  ts: at,
  end: fc.option(fc.record({ after: fc.integer({ min: 0, max: 3 * HOUR }), event: fc.constantFrom('canceled', 'filled', 'force_canceled') }), {
    nil: undefined,
  }),
  tif: fc.option(fc.constantFrom('Alo', 'Ioc', 'Gtc'), { nil: undefined }),
  cloid: fc.boolean(),
  trigger: fc.boolean(),
  tpsl: fc.boolean(),
  price: fc.integer({ min: 1, max: 1_000 }),
  size: fc.integer({ min: 1, max: 50 }),
});
const tradeArb = fc.record({
  wallet,
  symbol,
  ts: at,
  twap: fc.boolean(),
  gas: fc.option(
    fc.integer({ min: 1, max: 80 }).map((e) => e / 8),
    { nil: undefined },
  ),
  builder: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
});
const requestArb = fc.record({
  sort: fc.constantFrom(...(Object.keys(WALLET_SORTS) as WalletSort[])),
  order: fc.constantFrom('asc', 'desc') as fc.Arbitrary<'asc' | 'desc'>,
  limit: fc.integer({ min: 1, max: 4 }),
  offset: fc.integer({ min: 0, max: 2 }),
  min_volume_usd: fc.constantFrom(0, 1_000),
  uses_twap: fc.option(fc.boolean(), { nil: undefined }),
  min_cancel_rate: fc.option(fc.constantFrom(0.2, 0.5), { nil: undefined }),
});
const caseArb = fc.record({
  fills: fc.array(fillArb, { minLength: 5, maxLength: 120 }),
  orders: fc.array(orderArb, { minLength: 5, maxLength: 60 }),
  trades: fc.array(tradeArb, { maxLength: 30 }),
  requests: fc.array(requestArb, { minLength: 3, maxLength: 3 }),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** The raw records of a case, its ids (trade ids, oids, block numbers) from `base` up. */
function recordsOf(c: Case, base: number): NormalizedRecord[] {
  let id = base;
  const fills = c.fills.map((f) => ({
    dataset: 'position_changes',
    family: 'perpx',
    symbol: f.symbol,
    ts: f.ts,
    account: WALLETS[f.wallet],
    trade_id: ++id,
    side: f.side,
    price: String(f.price),
    size: String(f.size),
    start_position: '0',
    end_position: '1',
    event_type: f.close ? 'close' : 'open',
    cause: f.cause,
    continuity: 'ok',
    fee: String(f.fee),
    closed_pnl: String(f.pnl),
    ...(f.crossed !== undefined && { crossed: f.crossed }),
    ...(f.close && { opened_at: f.ts - f.close * 60_000 }),
  }));
  const orders = c.orders.flatMap((o, i) => {
    const oid = base + i;
    const order = {
      dataset: 'order_events',
      family: 'perpx',
      symbol: o.symbol,
      oid,
      user_address: WALLETS[o.wallet],
      side: 'B',
      limit_price: String(o.price),
      size: String(o.size),
      orig_size: String(o.size),
      order_type: 'Limit',
      reduce_only: false,
      is_trigger: o.trigger,
      is_position_tpsl: o.tpsl,
      ...(o.tif && { tif: o.tif }),
      ...(o.cloid && { cloid: `0x${oid}` }),
    };
    const events = [{ ...order, ts: o.ts, event: 'placed', status: 'open', block_number: ++id, seq: 0 }];
    if (o.end && o.ts + o.end.after < NOW)
      events.push({ ...order, ts: o.ts + o.end.after, event: o.end.event, status: o.end.event, block_number: ++id, seq: 0 });
    return events;
  });
  const trades = c.trades.map((t) => ({
    dataset: 'trades',
    family: 'perpx',
    symbol: t.symbol,
    ts: t.ts,
    trade_id: ++id,
    side: 'B',
    price: '10',
    size: '1',
    crossed: true,
    user_address: WALLETS[t.wallet],
    ...(t.twap && { twap_id: id }),
    ...(t.gas !== undefined && { priority_gas: String(t.gas) }),
    ...(t.builder !== undefined && { builder_address: BUILDERS[t.builder], builder_fee: '0.25' }),
  }));
  return [...fills, ...orders, ...trades] as NormalizedRecord[];
}

/** A raw record as the reference reads it: any of its dataset's members. */
type Raw = Record<string, any>;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : undefined);
const byWallet = <T extends { wallet: string }>(xs: T[]) => groupBy(xs, (x) => x.wallet);

/**
 * The rule applied to the raw records of one day, as wallet-classes.ts states it; `pieceOf` says
 * which piece an order event falls in (the whole day once folded; on the open day each compacted hour, and the rest).
 */
function expectedRows(records: NormalizedRecord[], from: number, pieceOf: (ts: number) => number): Map<string, [Row?, Row?, Row?]> {
  const ofDay: Raw[] = records.filter((r) => r.ts >= from && r.ts < from + DAY);
  const out = new Map<string, [Row?, Row?, Row?]>();
  const put = (wallet: string, i: 0 | 1 | 2, row: Row) => {
    const rows = out.get(wallet) ?? [];
    rows[i] = row;
    out.set(wallet, rows);
  };
  const legs = ofDay
    .filter((r) => r.dataset === 'position_changes')
    .map((r): Raw & { wallet: string } => ({ ...r, wallet: r.account as string, notional: Number(r.price) * Number(r.size) }));
  for (const [w, fs] of byWallet(legs)) {
    const holds = fs.filter((f) => f.event_type === 'close' && f.opened_at != null).map((f) => f.ts - Number(f.opened_at));
    put(w, 0, {
      fills: fs.length,
      buy_volume: sum(fs.filter((f) => f.side === 'B').map((f) => f.notional)),
      sell_volume: sum(fs.filter((f) => f.side === 'A').map((f) => f.notional)),
      maker_fills: fs.filter((f) => f.crossed === false).length,
      known_side_fills: fs.filter((f) => f.crossed !== undefined).length,
      max_fill: max(fs.map((f) => f.notional)),
      fees: sum(fs.map((f) => Number(f.fee))),
      pnl: sum(fs.map((f) => Number(f.closed_pnl))),
      hours: new Set(fs.map((f) => Math.floor(f.ts / HOUR))).size,
      symbols: [...new Set(fs.map((f) => f.symbol))].join(' '),
      liquidations: fs.filter((f) => f.cause === 'liquidation').length,
      avg_hold: holds.length ? sum(holds) / holds.length : undefined,
    });
  }
  const events = ofDay.filter((r) => r.dataset === 'order_events').map((r): Raw & { wallet: string } => ({ ...r, wallet: r.user_address as string }));
  for (const [w, es] of byWallet(events)) {
    const units = [...groupBy(es, (e) => `${e.oid}#${pieceOf(e.ts)}`).values()].map((u) => {
      const first = u.reduce((a, b) => (b.ts < a.ts ? b : a));
      const placed = u.find((e) => e.event === 'placed')?.ts;
      const canceled = u.find((e) => e.event === 'canceled')?.ts;
      return {
        symbol: first.symbol,
        notional: Number(first.limit_price) * Number(first.orig_size),
        canceled: u.some((e) => e.event === 'canceled' || e.event === 'force_canceled'),
        filled: u.some((e) => e.event === 'filled'),
        tif: first.tif,
        trigger: first.is_trigger,
        tpsl: first.is_position_tpsl,
        cloid: first.cloid !== undefined,
        speed: placed !== undefined && canceled !== undefined && canceled >= placed ? canceled - placed : undefined,
      };
    });
    const speeds = units.flatMap((u) => (u.speed === undefined ? [] : [u.speed])).sort((a, b) => a - b);
    put(w, 1, {
      orders: units.length,
      canceled: units.filter((u) => u.canceled).length,
      filled: units.filter((u) => u.filled).length,
      ioc: units.filter((u) => u.tif === 'Ioc').length,
      alo: units.filter((u) => u.tif === 'Alo').length,
      tpsl: units.filter((u) => u.tpsl).length,
      triggers: units.filter((u) => u.trigger).length,
      cloids: units.filter((u) => u.cloid).length,
      avg_order_usd: sum(units.map((u) => u.notional)) / units.length,
      max_order_usd: max(units.map((u) => u.notional)),
      cancel_speed: speeds.length ? (speeds[Math.floor((speeds.length - 1) / 2)]! + speeds[Math.floor(speeds.length / 2)]!) / 2 : undefined,
      symbols: [...new Set(units.map((u) => u.symbol))].join(' '),
    });
  }
  const taken = ofDay
    .filter((r) => r.dataset === 'trades' && (r.twap_id != null || r.priority_gas != null || r.builder_address != null))
    .map((r): Raw & { wallet: string } => ({ ...r, wallet: r.user_address as string }));
  for (const [w, ts] of byWallet(taken)) {
    const counts = [
      ...groupBy(
        ts.filter((t) => t.builder_address),
        (t) => t.builder_address as string,
      ),
    ].map(([b, xs]) => [b, xs.length] as const);
    const top = counts.sort(([a, n], [b, m]) => m - n || (a < b ? -1 : 1))[0]?.[0];
    put(w, 2, {
      twap_fills: ts.filter((t) => t.twap_id != null).length,
      priority_gas: sum(ts.map((t) => Number(t.priority_gas ?? 0))),
      builder_fees: sum(ts.map((t) => Number(t.builder_fee ?? 0))),
      top_builder: top,
    });
  }
  return out;
}

function expectedPage(rows: Map<string, [Row?, Row?, Row?]>, req: ClassifyRequest, date: string) {
  const wallets = [...rows]
    .map(([address, [f, o, t]]) => {
      const metrics = metricsOf(f, o, t);
      return { address, class: classOf(metrics), metrics, period: '24h' as const };
    })
    .filter((w) => matches(w, req));
  return { wallets: sortWallets(wallets, req.sort, req.order).slice(req.offset, req.offset + req.limit), total: wallets.length, date };
}

describe('wallet classes over the derived statistics', () => {
  it('answer, on a folded day and on the open day, what the rule gives over the raw records', async () => {
    const all: NormalizedRecord[] = [];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const records = recordsOf(c, ++run * 100_000);
        // Later runs add to the same family and days: the reference reads everything ingested so far.
        all.push(...records);
        await ingestUncompacted(records);
        if (run > 1) {
          // Late rows of the folded day, not compacted yet: the day is derived from its raw rows, whole and exact.
          const req: ClassifyRequest = { family: 'perpx', min_orders: 0, ...c.requests[0]!, date: '2026-09-01' };
          const { data, read } = await classifyWallets(archive(), req, NOW);
          expect(data).toEqual(
            expectedPage(
              expectedRows(all, T0, () => 0),
              req,
              '2026-09-01',
            ),
          );
          const lateOrders = records.some((r) => r.dataset === 'order_events' && r.ts < T0 + DAY);
          expect(read.orders.dayRows).toBe(!lateOrders);
        }
        for (const dataset of ['position_changes', 'order_events', 'trades'] as const) await compact(dataset, 'perpx');
        const days = [
          { date: '2026-09-01', from: T0, pieceOf: () => 0 },
          // The open day: each hour before 13:00 compacted, 13:xx still in deltas (one piece).
          { date: '2026-09-02', from: T0 + DAY, pieceOf: (ts: number) => Math.min(13, Math.floor((ts - T0 - DAY) / HOUR)) },
        ];
        for (const day of days) {
          const rows = expectedRows(all, day.from, day.pieceOf);
          for (const r of c.requests) {
            const req: ClassifyRequest = { family: 'perpx', min_orders: 0, ...r, date: day.date };
            const { data, meta, read } = await classifyWallets(archive(), req, NOW);
            expect(data, `${day.date} ${JSON.stringify(r)}`).toEqual(expectedPage(rows, req, day.date));
            if (day.date === '2026-09-01') expect(Object.values(read).every((x) => x.hourFiles === 0 && x.rawHours === 0)).toBe(true);
            else expect(read.orders.hourly).toBe(all.some((x) => x.dataset === 'order_events' && x.ts >= T0 + DAY && x.ts < T0 + DAY + 13 * HOUR));
            expect(/Orders are counted per compacted hour/.test(meta.notice ?? '')).toBe(read.orders.hourly);
          }
        }
      }),
      { numRuns: 3, endOnFailure: true },
    );
  });

  it("reads rows per wallet and market of the day, not the day's raw rows (logged)", async () => {
    // Prepare: a busy closed day on hip3, 3 wallets on 2 markets placing and canceling 4,000 orders each (48,000 order events), compacted.
    const symbols = ['xyz:B1', 'xyz:B2'];
    const events = WALLETS.flatMap((user, u) =>
      symbols.flatMap((sym, s) =>
        Array.from({ length: 4_000 }, (_, i) => {
          const oid = 1_000_000 + (u * 2 + s) * 10_000 + i;
          const ts = T0 + i * 20_000;
          const order = {
            dataset: 'order_events',
            family: 'hip3',
            symbol: sym,
            oid,
            user_address: user,
            side: 'B',
            limit_price: '10',
            size: '1',
            orig_size: '1',
            order_type: 'Limit',
            reduce_only: false,
            is_trigger: false,
            is_position_tpsl: false,
            tif: 'Alo',
          };
          return [
            { ...order, ts, event: 'placed', status: 'open', block_number: oid * 2, seq: 0 },
            { ...order, ts: ts + 1_000 + (i % 7) * 100, event: 'canceled', status: 'canceled', block_number: oid * 2 + 1, seq: 0 },
          ];
        }).flat(),
      ),
    );
    await ingestUncompacted(events as NormalizedRecord[]);
    await compact('order_events', 'hip3');
    // Act
    const req: ClassifyRequest = {
      family: 'hip3',
      min_orders: 0,
      min_volume_usd: 0,
      sort: 'total_orders',
      order: 'desc',
      limit: 10,
      offset: 0,
      date: '2026-09-01',
    };
    const { data, read } = await classifyWallets(archive(), req, NOW);
    // Assess: a row per wallet and market; the metrics as the rule gives them over the raw events.
    console.log(
      `wallet classes, a folded day of ${events.length.toLocaleString('en-US')} order events: statistics rows read ${read.orders.rowsRead} (${JSON.stringify(read.orders)})`,
    );
    expect(read.orders).toMatchObject({ dayRows: true, rawHours: 0, rowsRead: WALLETS.length * symbols.length });
    expect(data.wallets.map((w) => [w.address, w.metrics.total_orders, w.metrics.cancel_rate, w.metrics.median_cancel_speed_ms])).toEqual(
      [...WALLETS].sort().map((w) => [w, 8_000, 1, 1_300]),
    );
  });

  it('counts orders per hour, and says so, for a market whose day is too big to fold', async () => {
    // Prepare: on hip3's day two, market S1 has one order (placed and canceled in hour 1), market
    // S2 three events: an order placed 01:50 and canceled 02:10, one placed at 03:00. Compacted
    // into hour files at NOW, then, after midnight, the day folded at 2 rows a step: S1 folds, S2 keeps its hours.
    const [w, day] = [WALLETS[0]!, T0 + DAY];
    const event = (symbol: string, oid: number, ts: number, kind: string, block: number) => ({
      dataset: 'order_events',
      family: 'hip3',
      symbol,
      ts,
      event: kind,
      status: kind === 'placed' ? 'open' : kind,
      block_number: block,
      seq: 0,
      oid,
      user_address: w,
      side: 'B',
      limit_price: '10',
      size: '1',
      orig_size: '1',
      order_type: 'Limit',
      reduce_only: false,
      is_trigger: false,
      is_position_tpsl: false,
    });
    await ingestUncompacted([
      event('xyz:S1', 1, day + HOUR + 60_000, 'placed', 1),
      event('xyz:S1', 1, day + HOUR + 120_000, 'canceled', 2),
      event('xyz:S2', 2, day + HOUR + 50 * 60_000, 'placed', 3),
      event('xyz:S2', 2, day + 2 * HOUR + 10 * 60_000, 'canceled', 4),
      event('xyz:S2', 3, day + 3 * HOUR, 'placed', 5),
    ] as NormalizedRecord[]);
    await compact('order_events', 'hip3');
    const later = { ...archive(), clock: { now: () => T0 + 2 * DAY + 10 * 60_000 } };
    await compactArchive(later, { datasets: ['order_events'], families: ['hip3'], dayFoldStepRows: 2 });
    // Act
    const req: ClassifyRequest = {
      family: 'hip3',
      min_orders: 0,
      min_volume_usd: 0,
      sort: 'total_orders',
      order: 'desc',
      limit: 10,
      offset: 0,
      date: '2026-09-02',
    };
    const { data, meta, read } = await classifyWallets(later, req, later.clock.now());
    // Assess: the day's rows (S1's day, S2's hours); S2's first order counts in hours 1 and 2, and has no cancel speed.
    expect(read.orders).toMatchObject({ dayRows: true, hourly: true, rawHours: 0 });
    expect(data.wallets.map((x) => [x.address, x.metrics.total_orders, x.metrics.median_cancel_speed_ms])).toEqual([[w, 4, 60_000]]);
    expect(meta.notice).toMatch(/Orders are counted per compacted hour/);
  });

  it('derives a closed day again (npm run derive:backfill) to the same answer', async () => {
    const req: ClassifyRequest = {
      family: 'perpx',
      min_orders: 0,
      min_volume_usd: 0,
      sort: 'total_fills',
      order: 'desc',
      limit: 10,
      offset: 0,
      date: '2026-09-01',
    };
    const before = await classifyWallets(archive(), req, NOW);
    const report = await rederiveDays(archive(), {
      datasets: ['wallet_fill_stats', 'wallet_order_stats', 'wallet_trade_stats'],
      families: ['perpx'],
      from: '2026-09-01',
      to: '2026-09-01',
    });
    const after = await classifyWallets(archive(), req, NOW);
    expect(report.partitions).toBe(3);
    expect(after.data).toEqual(before.data);
    expect(after.read.orders.dayRows).toBe(true);
  });
});
