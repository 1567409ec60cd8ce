/**
 * Market-route figures: server-side latency (the market handler invoked in-process, the emulators
 * in their own process as AWS's services are to a function, manifest in dynalite, files in the
 * warm local cache) of a 1000-row trades page, a 30-day 1h candle rollup and
 * a 10,000-row 1m candle page, each next to DuckDB answering the same question from the same local
 * files the handler opens (the floor). Data: synthetic trades of BTC and other markets through the
 * real ingest and compaction, and a live tail: today's trades up to now, the last minutes of them
 * not yet compacted, so candle reads add candles derived from the open hour's trade deltas.
 */
import { loadavg } from 'node:os';
import { DuckDBInstance, listValue, LIST, VARCHAR, BIGINT } from '@duckdb/node-api';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { minuteCandleSource } from '../functions/core/archive/read-candles.ts';
import { readWindowJson } from '../functions/core/archive/read-pages.ts';
import { CANDLE_PROJECTION, tradeProjection } from '../functions/core/market/shape.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import { compareToFloor, figure, routeInvoker } from './stats.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;

/** A symbol's trades from `from` (a day, unless `to` says), about one every 9.5 s times `sparseness`; ids from `firstId`. */
function syntheticDay(from: number, firstId: number, symbol = 'BTC', sparseness = 1, to = from + DAY): string {
  const lines: string[] = [];
  let price = 97_000;
  for (let i = 0, ts = from; ts < to; i++, ts += (5_000 + ((i * 7919) % 9_000)) * sparseness) {
    price *= 1 + (((i * 104729) % 2001) - 1000) / 2_000_000;
    lines.push(
      JSON.stringify({
        dataset: 'trades',
        family: 'perpx',
        symbol,
        ts,
        trade_id: firstId + i,
        side: i % 3 ? 'B' : 'A',
        price: price.toFixed(1),
        size: (0.001 + ((i * 31) % 500) / 1000).toFixed(5),
        crossed: true,
        fee: '0.1',
        fee_token: 'USDC',
      }),
    );
  }
  return lines.join('\n');
}

/**
 * `days` of history; BTC plus `symbols - 1` other markets trading a tenth as often (they share the
 * family-wide candle files, so the candle figures show how reads grow with the number of markets).
 */
export async function benchMarket(options: { days: number; symbols: number } = { days: 30, symbols: 1 }): Promise<void> {
  // Out of this process (issue 43's decision): the ratios are the handler's work beside DuckDB's, not the emulators' too.
  const env = await startScratchEmulators({ ownProcess: true });
  try {
    const deps = archiveDeps();
    const { days, symbols } = options;
    const today = Math.floor(Date.now() / DAY) * DAY;
    const start = today - days * DAY;
    for (let d = 0; d < days; d++) {
      const others = Array.from({ length: symbols - 1 }, (_, s) => syntheticDay(start + d * DAY, (s + 1) * 100_000_000 + d * 1_000_000, `M${s}`, 10));
      await ingestBatch(deps, 'normalized', [syntheticDay(start + d * DAY, (d + 1) * 1_000_000), ...others].join('\n'));
    }
    await compactArchive(deps);
    // The live tail: today up to now, compacted as the schedule would (closed hours into hour files,
    // the open hour into delta compactions), then the last three minutes ingested and not compacted.
    const now = Date.now();
    const tailFrom = now - 3 * MINUTE;
    const todaysTrades = (from: number, to: number, id: number) =>
      [syntheticDay(from, id, 'BTC', 1, to), ...Array.from({ length: symbols - 1 }, (_, s) => syntheticDay(from, (s + 1) * 100_000_000 + id, `M${s}`, 10, to))]
        .filter((t) => t !== '')
        .join('\n');
    await ingestBatch(deps, 'normalized', todaysTrades(today, tailFrom, (days + 1) * 1_000_000));
    await compactArchive(deps);
    await ingestBatch(deps, 'normalized', todaysTrades(tailFrom, now, (days + 1) * 1_000_000 + 500_000));
    const { handler } = await import('../functions/http/market.ts');
    const route = routeInvoker(handler, 'market');
    const invoke = (resource: string, path: string, query: Record<string, string>) => route(resource, path, { symbol: 'BTC' }, query);

    const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    const connection = await instance.connect();
    // The floor reads the files the handler reads: the day files from the window's start on (a 1000-row page needs the first).
    const pageStart = start + Math.floor(days / 3) * DAY;
    const minutePageStart = start + Math.floor(days / 6) * DAY;
    const tradesRequest = {
      dataset: 'trades' as const,
      family: 'perpx' as const,
      symbol: 'BTC',
      from: pageStart,
      to: now,
      limit: 1000,
      projection: tradeProjection('perpx'),
    };
    const { filesRead: tradeFilesRead } = await readWindowJson(deps, tradesRequest);
    const tradeDayFiles = (await deps.manifest.compactedFiles('trades', 'perpx', 'BTC', '2000-01-01', '2999-12-31'))
      .filter((f) => f.maxTs >= pageStart)
      .sort((a, b) => a.minTs - b.minTs);
    const tradeFiles = await deps.files.paths(tradeDayFiles.slice(0, tradeFilesRead));
    const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT };

    /**
     * The candle floor: DuckDB alone over the very files the handler opens (the symbol's candle files
     * and the uncovered trade deltas, as minuteCandleSource lists them), written by hand: the stored
     * minutes beside minutes computed from the tail's trades, merged and rolled up in one pass.
     */
    const candleFloor = async (from: number, to: number) => {
      const source = await minuteCandleSource(deps, { family: 'perpx', symbol: 'BTC', from, to });
      const candles = (source?.params.m_candles ?? []) as string[];
      const tail = (source?.params.m_tail ?? []) as string[];
      const minutes = [
        ...(candles.length > 0
          ? [`SELECT ts, open, high, low, close, volume, quote_volume, trade_count, open_ts, close_ts FROM read_parquet($candles) WHERE symbol = 'BTC'`]
          : []),
        ...(tail.length > 0
          ? [
              `SELECT ts // 60000 * 60000 AS ts, arg_min(CAST(price AS DOUBLE), ts) AS open, max(CAST(price AS DOUBLE)) AS high, min(CAST(price AS DOUBLE)) AS low,
               arg_max(CAST(price AS DOUBLE), ts) AS close, sum(CAST(size AS DOUBLE)) AS volume, sum(CAST(price AS DOUBLE) * CAST(size AS DOUBLE)) AS quote_volume,
               count(*) AS trade_count, min(ts) AS open_ts, max(ts) AS close_ts
             FROM (SELECT DISTINCT ON (trade_id) * FROM read_parquet($tail, union_by_name = true) WHERE symbol = 'BTC') GROUP BY 1`,
            ]
          : []),
      ].join(' UNION ALL ');
      return {
        filesRead: source?.filesRead ?? 0,
        run: (bucketSql: string, limit: number) =>
          connection.runAndReadAll(
            `SELECT string_agg(to_json(${CANDLE_PROJECTION}), ',' ORDER BY bucket) FROM (
             SELECT ${bucketSql} AS bucket, arg_min(open, open_ts) AS open, max(high) AS high, min(low) AS low,
                    arg_max(close, close_ts) AS close, sum(volume) AS volume, sum(quote_volume) AS quote_volume, CAST(sum(trade_count) AS BIGINT) AS trade_count
             FROM (${minutes}) WHERE ts BETWEEN $from AND $to GROUP BY 1 ORDER BY 1 LIMIT ${limit})`,
            {
              ...(candles.length > 0 && { candles: listValue(candles) }),
              ...(tail.length > 0 && { tail: listValue(tail) }),
              from: BigInt(from),
              to: BigInt(to),
            },
            { ...(candles.length > 0 && { candles: LIST(VARCHAR) }), ...(tail.length > 0 && { tail: LIST(VARCHAR) }), from: BIGINT, to: BIGINT },
          ),
      };
    };
    const hourFloor = await candleFloor(start, Math.floor(now / 3_600_000) * 3_600_000 + 3_600_000 - 1);
    // A page of 10,000 minutes (and the one after) spans its own days, not the whole window.
    const minuteFloor = await candleFloor(minutePageStart, Math.min(now, minutePageStart + 10_001 * MINUTE - 1));
    const candleDays = Math.ceil((now - start) / DAY);

    const cases = [
      {
        label: 'trades page, 1000 rows',
        server: () => invoke('/v1/perpx/trades/{symbol}', '/v1/perpx/trades/BTC', { start: String(pageStart), end: String(now), limit: '1000' }),
        floor: () =>
          connection.runAndReadAll(
            `SELECT string_agg(to_json(${tradeProjection('perpx')}), ',' ORDER BY ts, trade_id) FROM (
             SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY ts, trade_id LIMIT 1000)`,
            { files: listValue(tradeFiles), from: BigInt(pageStart), to: BigInt(now) },
            types,
          ),
        files: tradeFilesRead,
      },
      {
        label: `${days}-day 1h candle rollup with a live tail (${candleDays * 24} candles)`,
        server: () => invoke('/v1/perpx/candles/{symbol}', '/v1/perpx/candles/BTC', { interval: '1h', start: String(start), end: String(now), limit: '1000' }),
        floor: () => hourFloor.run('ts // 3600000 * 3600000', 1001),
        files: hourFloor.filesRead,
      },
      {
        label: '1m candle page with a live tail, up to 10000 rows',
        server: () =>
          invoke('/v1/perpx/candles/{symbol}', '/v1/perpx/candles/BTC', { interval: '1m', start: String(minutePageStart), end: String(now), limit: '10000' }),
        floor: () => minuteFloor.run('ts', 10001),
        files: minuteFloor.filesRead,
      },
    ];
    console.log(
      `\nMarket routes (server side: handler in-process, emulators in their own process, warm cache; ${days} days, ${symbols} market${symbols > 1 ? 's' : ''}; 1-minute load average ${loadavg()[0]!.toFixed(1)})`,
    );
    for (const c of cases) {
      await compareToFloor(`${c.label} [${days} d, ${symbols} markets]`, c.server, c.floor);
      figure({ name: `  files opened per request [${days} d, ${symbols} markets]`, value: c.files, unit: 'files' });
    }
    connection.closeSync();
  } finally {
    await env.stop();
  }
}
