/**
 * Breadth figures: compute time of one minute over 300 instruments (the pure classification), and
 * the lag from a minute's close to its snapshot being readable: the minute job (registry, session
 * candles from the archive, classification, write) for both families on demo data, then a read.
 */
import { computeBreadth, type SessionStats } from '../functions/core/breadth/compute.ts';
import { snapshotMinute, snapshotRange } from '../functions/core/breadth/session.ts';
import { ingestBatch } from '../functions/core/archive/ingest.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { breadthStore } from '../functions/shared/deps.ts';
import { createDemoMarket } from '../functions/local/demo/market.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import { figure, ms, percentile, timeRuns } from './stats.ts';

export async function benchBreadth(): Promise<void> {
  const cutoff = Math.floor(Date.now() / 60_000) * 60_000;
  const candidates = Array.from({ length: 300 }, (_, i) => `dex${i % 4}:C${i}`);
  const stats = new Map<string, SessionStats>(
    candidates.map((s, i) => [s, { quoteVolume: 1e6 + i, baseVolume: 10, lastClose: 1e5 + (i % 3) * 1e3 - 1e3, lastCandleTs: cutoff - 120_000 }]),
  );
  const pure = await timeRuns(200, async () => computeBreadth('hip3', cutoff, candidates, stats));

  const env = await startScratchEmulators();
  try {
    const deps = { ...archiveDeps(), breadth: breadthStore() };
    const start = Math.floor((Date.now() - 3 * 3_600_000) / 3_600_000) * 3_600_000;
    const market = createDemoMarket({ seed: 9, startMs: start, intensity: 0.5 });
    await ingestBatch(
      deps,
      'normalized',
      market
        .advance(cutoff)
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const lag = await timeRuns(20, async () => {
      await snapshotMinute(deps, 'perpx', cutoff);
      await snapshotMinute(deps, 'hip3', cutoff);
      await deps.breadth.latest('hip3');
    });
    // The backfill over the seeded hours beside the minute job over the same cutoffs (20 of them, scaled).
    const from = start + 60_000;
    const backfillStarted = performance.now();
    const backfilled = await snapshotRange(deps, 'perpx', from, cutoff);
    const backfillMs = performance.now() - backfillStarted;
    const minuteRuns = await timeRuns(20, async () => {
      await snapshotMinute(deps, 'perpx', cutoff - Math.floor(Math.random() * backfilled) * 60_000);
    });
    const perMinute = percentile(minuteRuns, 50);
    console.log('\nBreadth');
    figure(
      { name: 'breadth: compute one minute, 300 instruments (pure), p50', value: percentile(pure, 50), unit: 'ms', samples: pure.length },
      `p50 ${ms(percentile(pure, 50))}  p99 ${ms(percentile(pure, 99))}`,
    );
    figure(
      { name: 'breadth: minute close -> snapshots readable, p50', value: percentile(lag, 50), unit: 'ms', samples: lag.length },
      `p50 ${ms(percentile(lag, 50))}  p99 ${ms(percentile(lag, 99))}`,
    );
    figure(
      { name: 'breadth: backfill, core minutes a second', value: backfilled / (backfillMs / 1000), unit: 'minutes/s', samples: backfilled },
      `${backfilled} minutes in ${ms(backfillMs)} (a UTC day per query); the minute job one at a time: ${ms(perMinute)} a minute, ${(backfillMs / backfilled / perMinute).toFixed(3)} of its time`,
    );
  } finally {
    await env.stop();
  }
}
