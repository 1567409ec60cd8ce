/**
 * Derivatives-route figures: server-side latency (the derivatives handler invoked in-process,
 * manifest in dynalite, files in the warm local cache) of a 1000-row open-interest page, a 30-day
 * 1h liquidation-volume series, a /summary read and an /openinterest/current read, each next to
 * DuckDB running the same queries on the same local files (the floor). Data: 30 days of synthetic
 * BTC open interest (one sample a minute), hourly funding, liquidations and one day of trades,
 * through the real ingest and compaction.
 */
import { DuckDBInstance, listValue, LIST, VARCHAR, BIGINT } from '@duckdb/node-api';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { LIQUIDATION_VOLUME_PROJECTION, openInterestProjection } from '../functions/core/market/shape.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import type { Dataset } from '../schemas/datasets.ts';
import { compareToFloor, routeInvoker } from './stats.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;
const ADDRESS = (i: number) => `0x${(i % 997).toString(16).padStart(40, '0')}`;

/** One day of BTC records: a sample a minute, funding each hour, a liquidation every ~7 minutes, and trades when asked. */
function syntheticDay(day: number, index: number, trades: boolean): string {
  const lines: string[] = [];
  let price = 97_000;
  for (let ts = day, i = 0; ts < day + DAY; ts += MINUTE, i++) {
    price *= 1 + (((i * 104729 + index) % 2001) - 1000) / 2_000_000;
    const mark = price.toFixed(1);
    lines.push(
      JSON.stringify({
        dataset: 'open_interest',
        family: 'perpx',
        symbol: 'BTC',
        ts,
        open_interest: (20_000 + (i % 500)).toFixed(2),
        mark_price: mark,
        oracle_price: (price * 0.9999).toFixed(1),
        mid_price: mark,
      }),
    );
    if (i % 60 === 0)
      lines.push(
        JSON.stringify({ dataset: 'funding', family: 'perpx', symbol: 'BTC', ts, funding_rate: (((i * 31) % 200) / 10_000_000).toFixed(7), premium: '0.0001' }),
      );
    if (i % 7 === 3) {
      lines.push(
        JSON.stringify({
          dataset: 'liquidations',
          family: 'perpx',
          symbol: 'BTC',
          ts: ts + 17,
          trade_id: index * 1_000_000 + i,
          liquidated_user: ADDRESS(i),
          liquidator_user: ADDRESS(i + 1),
          price: mark,
          size: (0.01 + (i % 50) / 100).toFixed(3),
          side: i % 2 ? 'A' : 'B',
        }),
      );
    }
    if (trades) {
      for (let k = 0; k < 10; k++) {
        lines.push(
          JSON.stringify({
            dataset: 'trades',
            family: 'perpx',
            symbol: 'BTC',
            ts: ts + k * 6_000,
            trade_id: index * 1_000_000 + i * 10 + k,
            side: k % 2 ? 'B' : 'A',
            price: mark,
            size: '0.01',
          }),
        );
      }
    }
  }
  return lines.join('\n');
}

export async function benchDerivatives(): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const now = Date.now();
    const today = Math.floor(now / DAY) * DAY;
    const start = today - 30 * DAY;
    // Thirty whole days and today up to now, trades only on the last day (what /summary's 24 hours read).
    for (let d = 0; d <= 30; d++) {
      const day = start + d * DAY;
      const lines = syntheticDay(day, d + 1, d >= 29)
        .split('\n')
        .filter((line) => (JSON.parse(line) as { ts: number }).ts <= now);
      await ingestBatch(deps, 'normalized', lines.join('\n'));
    }
    await compactArchive(deps);
    const { handler } = await import('../functions/http/derivatives.ts');
    const route = routeInvoker(handler, 'derivatives');
    const btc = { symbol: 'BTC' };

    const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    const connection = await instance.connect();
    const filesOf = async (dataset: Dataset, fromDay = '2000-01-01') =>
      listValue(
        await deps.files.paths(await deps.manifest.compactedFiles(dataset, 'perpx', dataset === 'candles_1m' ? undefined : 'BTC', fromDay, '2999-12-31')),
      );
    const dayOf = (ts: number) => new Date(ts).toISOString().slice(0, 10);
    const [oiFiles, liqFiles, recentOi, recentFunding, recentCandles, recentLiq] = await Promise.all([
      filesOf('open_interest'),
      filesOf('liquidations'),
      filesOf('open_interest', dayOf(now - DAY)),
      filesOf('funding', dayOf(now - DAY)),
      filesOf('candles_1m', dayOf(now - DAY)),
      filesOf('liquidations', dayOf(now - DAY)),
    ]);
    const types = { files: LIST(VARCHAR), from: BIGINT, to: BIGINT };
    const notional = 'CAST(price AS DOUBLE) * CAST(size AS DOUBLE)';
    const summaryFloor = async () => {
      const window = { from: BigInt(now - DAY), to: BigInt(now) };
      await Promise.all([
        connection.runAndReadAll(
          `SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts <= $to ORDER BY ts DESC LIMIT 1`,
          { files: recentOi, to: BigInt(now) },
          { files: LIST(VARCHAR), to: BIGINT },
        ),
        connection.runAndReadAll(
          `SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts <= $to ORDER BY ts DESC LIMIT 1`,
          { files: recentFunding, to: BigInt(now) },
          { files: LIST(VARCHAR), to: BIGINT },
        ),
        connection.runAndReadAll(
          `SELECT printf('%.2f', sum(quote_volume)) FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to`,
          { files: recentCandles, ...window },
          types,
        ),
        connection.runAndReadAll(
          `SELECT sum(${notional}), sum(${notional}) FILTER (WHERE side = 'A'), sum(${notional}) FILTER (WHERE side = 'B')
          FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to`,
          { files: recentLiq, ...window },
          types,
        ),
      ]);
    };

    console.log('\nDerivatives routes (server side: handler in-process, warm cache; 30 days of BTC)');
    await compareToFloor(
      'open-interest page, 1000 rows',
      () => route('/v1/perpx/openinterest/{symbol}', '/v1/perpx/openinterest/BTC', btc, { start: String(start + 10 * DAY), end: String(today), limit: '1000' }),
      () =>
        connection.runAndReadAll(
          `SELECT string_agg(to_json(${openInterestProjection('perpx')}), ',' ORDER BY ts) FROM (
           SELECT * FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to ORDER BY ts LIMIT 1000)`,
          { files: oiFiles, from: BigInt(start + 10 * DAY), to: BigInt(today) },
          types,
        ),
    );
    await compareToFloor(
      '30-day 1h liquidation volume (720 buckets)',
      () =>
        route('/v1/perpx/liquidations/{symbol}/volume', '/v1/perpx/liquidations/BTC/volume', btc, {
          interval: '1h',
          start: String(start),
          end: String(today - 1),
          limit: '1000',
        }),
      () =>
        connection.runAndReadAll(
          `SELECT string_agg(to_json(${LIQUIDATION_VOLUME_PROJECTION}), ',' ORDER BY bucket) FROM (
           SELECT ts // 3600000 * 3600000 AS bucket, any_value(symbol) AS symbol, sum(${notional}) AS total_usd,
                  coalesce(sum(${notional}) FILTER (WHERE side = 'A'), 0) AS long_usd, coalesce(sum(${notional}) FILTER (WHERE side = 'B'), 0) AS short_usd,
                  count(*) AS count, count(*) FILTER (WHERE side = 'A') AS long_count, count(*) FILTER (WHERE side = 'B') AS short_count
           FROM read_parquet($files) WHERE symbol = 'BTC' AND ts BETWEEN $from AND $to GROUP BY 1)`,
          { files: liqFiles, from: BigInt(start), to: BigInt(today - 1) },
          types,
        ),
    );
    await compareToFloor(
      '/summary (newest OI and funding, 24 h volumes)',
      () => route('/v1/perpx/summary/{symbol}', '/v1/perpx/summary/BTC', btc),
      summaryFloor,
    );
    await compareToFloor(
      '/openinterest/current',
      () => route('/v1/perpx/openinterest/{symbol}/current', '/v1/perpx/openinterest/BTC/current', btc),
      () =>
        connection.runAndReadAll(
          `SELECT to_json(${openInterestProjection('perpx')}) FROM read_parquet($files) WHERE symbol = 'BTC' AND ts <= $to ORDER BY ts DESC LIMIT 1`,
          { files: recentOi, to: BigInt(now) },
          { files: LIST(VARCHAR), to: BIGINT },
        ),
    );
    connection.closeSync();
  } finally {
    await env.stop();
  }
}
