/**
 * Data-quality figures: server-side latency (handlers in-process, manifest in dynalite) of a
 * 30-day symbol coverage (`/v1/data-quality/coverage/{exchange}/{symbol}`, each call a new window so
 * the per-container cache never answers it) beside its floor, the manifest reads alone that it
 * makes (queries, then the statistics of the files by key); and `/v1/symbols` from the container's cache, beside building it from the manifest. Data:
 * 30 days of BTC (trades, open interest, funding, L2 snapshots) plus 59 markets trading on the last
 * day, through the real ingest and compaction, so every file carries its cadence statistics.
 */
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import { dayOf } from '../functions/core/archive/layout.ts';
import { visibleFiles } from '../functions/core/archive/files.ts';
import { qualityDatasetsOf } from '../functions/core/quality/coverage.ts';
import { symbolCatalogue } from '../functions/core/quality/catalogue.ts';
import { DATASETS } from '../schemas/datasets.ts';
import { compareToFloor, figure, percentile, routeInvoker, timeRuns } from './stats.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;

/** One day of a market: trades every 6 s (with a 20-minute outage at 03:00), a book every 10 s, OI every minute, funding hourly. */
function syntheticDay(symbol: string, day: number, index: number, until: number, full: boolean): string {
  const lines: string[] = [];
  for (let ts = day, i = 0; ts < Math.min(day + DAY, until); ts += MINUTE, i++) {
    const mark = (97_000 + (i % 300)).toFixed(1);
    if (full) {
      lines.push(
        JSON.stringify({
          dataset: 'open_interest',
          family: 'perpx',
          symbol,
          ts,
          open_interest: '20000',
          mark_price: mark,
          oracle_price: mark,
          mid_price: mark,
        }),
      );
      if (i % 60 === 0) lines.push(JSON.stringify({ dataset: 'funding', family: 'perpx', symbol, ts, funding_rate: '0.0000125', premium: '0.0001' }));
      for (let k = 0; k < 6; k++) {
        lines.push(
          JSON.stringify({
            dataset: 'l2_snapshots',
            family: 'perpx',
            symbol,
            ts: ts + k * 10_000,
            bids: [[mark, '1', 1]],
            asks: [[(Number(mark) + 1).toFixed(1), '1', 1]],
          }),
        );
      }
    }
    if (ts % DAY >= 3 * 3_600_000 && ts % DAY < 3 * 3_600_000 + 20 * MINUTE) continue;
    for (let k = 0; k < 10; k++) {
      lines.push(
        JSON.stringify({
          dataset: 'trades',
          family: 'perpx',
          symbol,
          ts: ts + k * 6_000,
          trade_id: index * 10_000_000 + i * 10 + k,
          side: k % 2 ? 'B' : 'A',
          price: mark,
          size: '0.01',
        }),
      );
    }
  }
  return lines.join('\n');
}

export async function benchQuality(): Promise<void> {
  const env = await startScratchEmulators();
  try {
    const deps = archiveDeps();
    const now = Date.now();
    const today = Math.floor(now / DAY) * DAY;
    const start = today - 30 * DAY;
    for (let d = 0; d <= 30; d++) await ingestBatch(deps, 'normalized', syntheticDay('BTC', start + d * DAY, d + 1, now, true));
    for (let m = 1; m < 60; m++) await ingestBatch(deps, 'normalized', syntheticDay(`M${m}`, today - DAY, 100 + m, now, false));
    await compactArchive(deps);
    const { handler } = await import('../functions/http/data-quality.ts');
    const { handler: system } = await import('../functions/http/system.ts');
    const route = routeInvoker(handler, 'data-quality');
    const catalogue = routeInvoker(system, 'system');

    console.log('\nData quality (server side: handlers in-process, manifest in dynalite; 30 days of BTC, 60 markets)');
    let shift = 0;
    await compareToFloor(
      '30-day symbol coverage (uncached; 9 data types, 5 with rows)',
      () =>
        route(
          '/v1/data-quality/coverage/{exchange}/{symbol}',
          '/v1/data-quality/coverage/perpx/BTC',
          { exchange: 'perpx', symbol: 'BTC' },
          { from: String(now - 30 * DAY - ++shift), to: String(now - shift) },
        ),
      // The floor: the manifest reads the route makes (two queries per data type of the family, then the statistics of
      // the visible files by key, in parallel), nothing computed.
      () =>
        Promise.all(
          qualityDatasetsOf('perpx').map(async (dataset) => {
            const [compacted, deltas] = await Promise.all([
              deps.manifest.compactedFiles(dataset, 'perpx', DATASETS[dataset].perSymbol ? 'BTC' : undefined, dayOf(now - 30 * DAY), dayOf(now)),
              deps.manifest.deltaFiles(dataset, 'perpx', dayOf(now - 30 * DAY), dayOf(now)),
            ]);
            return deps.manifest.cadenceOf(visibleFiles(compacted, deltas, 'BTC'));
          }),
        ),
      { floorLabel: 'its manifest reads alone (floor)' },
    );
    const built = await timeRuns(20, () => symbolCatalogue(deps.manifest, now));
    figure({ name: '/v1/symbols built from the manifest (uncached), p50', value: percentile(built, 50), unit: 'ms', samples: built.length });
    await catalogue('/v1/symbols', '/v1/symbols', {});
    const cached = await timeRuns(200, () => catalogue('/v1/symbols', '/v1/symbols', {}));
    figure({ name: '/v1/symbols from the container cache, p50', value: percentile(cached, 50), unit: 'ms', samples: cached.length });
    figure({ name: '/v1/symbols from the container cache, p99', value: percentile(cached, 99), unit: 'ms', samples: cached.length });
  } finally {
    await env.stop();
  }
}
