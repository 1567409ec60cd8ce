/**
 * Market-route figures: server-side latency (the market handler invoked in-process, manifest in
 * dynalite, files in the warm local cache) of a 1000-row trades page, a 30-day 1h candle rollup and
 * a 10,000-row 1m candle page, each next to DuckDB running the same query on the same local files
 * (the floor). Data: 30 days of synthetic BTC trades through the real ingest and compaction.
 */
import { DuckDBInstance, listValue, LIST, VARCHAR, BIGINT } from '@duckdb/node-api';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { CANDLE_PROJECTION, tradeProjection } from '../functions/core/market/shape.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import { compareToFloor, routeInvoker } from './stats.ts';

const DAY = 86_400_000;

/** One day of a symbol's trades, about one every 9.5 s times `sparseness`; ids from `firstId`. */
function syntheticDay(day: number, firstId: number, symbol = 'BTC', sparseness = 1): string {
  const lines: string[] = [];
  let price = 97_000;
  for (let i = 0, ts = day; ts < day + DAY; i++, ts += (5_000 + ((i * 7919) % 9_000)) * sparseness) {
    price *= 1 + (((i * 104729) % 2001) - 1000) / 2_000_000;
    lines.push(JSON.stringify({
      dataset: 'trades', family: 'perpx', symbol, ts, trade_id: firstId + i, side: i % 3 ? 'B' : 'A',
      price: price.toFixed(1), size: (0.001 + ((i * 31) % 500) / 1000).toFixed(5), crossed: true, fee: '0.1', fee_token: 'USDC',
    }));
  }
  return lines.join('\n');
}

/**
 * `days` of history; BTC plus `symbols - 1` other markets trading a tenth as often (they share the
 * family-wide candle files, so the candle figures show how reads grow with the number of markets).
 */
export async function benchMarket(options: { days: number; symbols: number } = { days: 30, symbols: 1 }): Promise<void> {
  const env = await startScratchEmulators();
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
    const { handler } = await import('../functions/http/market.ts');
    const route = routeInvoker(handler, 'market');
    const invoke = (resource: string, path: string, query: Record<string, string>) => route(resource, path, { symbol: 'BTC' }, query);

    const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    const connection = await instance.connect();
    // The floor reads the files the handler reads: the day files from the window's start on (a 1000-row page needs the first).
    const pageStart = start + Math.floor(days / 3) * DAY;
    const minutePageStart = start + Math.floor(days / 6) * DAY;
    const tradeDayFiles = (await deps.manifest.compactedFiles('trades', 'perpx', 'BTC', '2000-01-01', '2999-12-31')).filter((f) => f.maxTs >= pageStart).sort((a, b) => a.minTs - b.minTs);
    const tradeFiles = await deps.files.paths(tradeDayFiles.slice(0, 1));
    const candleFiles = await deps.files.paths(await deps.manifest.compactedFiles('candles_1m', 'perpx', undefined, '2000-01-01', '2999-12-31'));
    const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT };

    const cases = [
      {
        label: 'trades page, 1000 rows',
        server: () => invoke('/v1/perpx/trades/{symbol}', '/v1/perpx/trades/BTC', { start: String(pageStart), end: String(today), limit: '1000' }),
        floor: () => connection.runAndReadAll(
          `SELECT string_agg(to_json(${tradeProjection('perpx')}), ',' ORDER BY ts, trade_id) FROM (
             SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY ts, trade_id LIMIT 1000)`,
          { files: listValue(tradeFiles), from: BigInt(pageStart), to: BigInt(today) }, types),
      },
      {
        label: `${days}-day 1h candle rollup (${days * 24} candles)`,
        server: () => invoke('/v1/perpx/candles/{symbol}', '/v1/perpx/candles/BTC', { interval: '1h', start: String(start), end: String(today), limit: '1000' }),
        floor: () => connection.runAndReadAll(
          `SELECT string_agg(to_json(${CANDLE_PROJECTION}), ',' ORDER BY bucket) FROM (
             SELECT ts // 3600000 * 3600000 AS bucket, first(open ORDER BY ts) AS open, max(high) AS high, min(low) AS low,
                    last(close ORDER BY ts) AS close, sum(volume) AS volume, sum(quote_volume) AS quote_volume, sum(trade_count) AS trade_count
             FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to GROUP BY 1)`,
          { files: listValue(candleFiles), from: BigInt(start), to: BigInt(today - 1) }, types),
      },
      {
        label: '1m candle page, up to 10000 rows',
        server: () => invoke('/v1/perpx/candles/{symbol}', '/v1/perpx/candles/BTC', { interval: '1m', start: String(minutePageStart), end: String(today), limit: '10000' }),
        floor: () => connection.runAndReadAll(
          `SELECT string_agg(to_json(${CANDLE_PROJECTION}), ',' ORDER BY bucket) FROM (
             SELECT ts AS bucket, open, high, low, close, volume, quote_volume, trade_count
             FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY ts LIMIT 10000)`,
          { files: listValue(candleFiles), from: BigInt(minutePageStart), to: BigInt(today) }, types),
      },
    ];
    console.log(`\nMarket routes (server side: handler in-process, warm cache; ${days} days, ${symbols} market${symbols > 1 ? 's' : ''})`);
    for (const c of cases) await compareToFloor(`${c.label} [${days} d, ${symbols} markets]`, c.server, c.floor);
    connection.closeSync();
  } finally {
    await env.stop();
  }
}
