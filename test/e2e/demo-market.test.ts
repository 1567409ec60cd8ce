import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud } from '../helpers/local-cloud.ts';
import { eventually } from '../helpers/api.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { FAMILIES } from '#core/venues.ts';

let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
beforeAll(async () => {
  cloud = await startDemoCloud({ key: 'demo-test-key', live: true });
});
afterAll(async () => {
  await cloud?.stop();
});

const window = { from: Date.now() - 3 * 3_600_000, to: Date.now() + 60_000, limit: 5 };

describe('the demo market in the local cloud', () => {
  it('seeds trades for every family through the ingest path', async () => {
    const symbols = cloud.demo!.market.symbols();
    for (const family of FAMILIES) {
      const symbol = family === 'perpx' ? 'BTC' : symbols[family][0]!;
      const { rows } = await readWindow(archiveDeps(), { dataset: 'trades', family, symbol, ...window });
      expect(rows.length, `${family} ${symbol}`).toBeGreaterThan(0);
    }
  });

  it('seeds order events, L2 snapshots, funding, open interest and the instrument registry for the core family', async () => {
    for (const dataset of ['order_events', 'l2_snapshots', 'funding', 'open_interest'] as const) {
      const { rows } = await readWindow(archiveDeps(), { dataset, family: 'perpx', symbol: 'BTC', ...window });
      expect(rows.length, dataset).toBeGreaterThan(0);
    }
    const registry = await readWindow(archiveDeps(), { dataset: 'instruments', family: 'perpx', from: 0, to: Date.now(), limit: 1000 });
    expect(registry.rows.map((r) => r.symbol)).toEqual(expect.arrayContaining(['BTC', 'ETH', 'SOL', 'HYPE']));
  });

  it('keeps writing live batches', async () => {
    // The newest trade the manifest knows of, delta or compacted (compaction may fold deltas away).
    const latest = async () => {
      const { manifest } = archiveDeps();
      const today = new Date().toISOString().slice(0, 10);
      const files = [
        ...(await manifest.deltaFiles('trades', 'perpx', '2000-01-01', '2999-12-31')),
        ...(await manifest.compactedFilesOfDay('trades', 'perpx', today)),
      ];
      return Math.max(...files.map((f) => f.maxTs));
    };
    const before = await latest();
    // A batch a second; on a busy machine ingest may run behind, so wait for one rather than for a fixed time.
    await eventually(latest, (newest) => newest > before);
  });
});
