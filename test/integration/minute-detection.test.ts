/**
 * The minute detectors that measure silences (archive gaps, ingest stalls) over a real archive:
 * DuckDB over Parquet written by the ingest path into s3rver. A silence is measured from the last
 * time before it however long ago that was, while an ordinary minute reads only recent files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { MINUTE_DETECTORS } from '#core/events/registry.ts';
import { holdersOf, minuteContext, pgaTokenPrice } from '#core/events/kit/reads.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import type { NormalizedRecord, SettlementRecord } from '#schemas/datasets.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { T0, jsonl, trade } from '../helpers/records.ts';

const MINUTE = 60_000;
const at = (hours: number, minutes: number, seconds = 0) => T0 + hours * 3_600_000 + minutes * MINUTE + seconds * 1000;

let env: ScratchEmulators;
let deps: ArchiveDeps;
/** The key of every file the reads since the last reset handed to DuckDB. */
let filesRead: string[] = [];
const batchKeys: Record<string, string[]> = {};

beforeAll(async () => {
  env = await startScratchEmulators();
  const real = archiveDeps();
  deps = {
    ...real,
    files: {
      paths: async (files) => {
        filesRead.push(...files.map((f) => f.key));
        return real.files.paths(files);
      },
    },
  };
});
afterAll(async () => {
  await env?.stop();
});

async function ingest(name: string, records: NormalizedRecord[]) {
  const before = new Set(await allFileKeys());
  expect(await ingestBatch(deps, 'normalized', jsonl(records))).toMatchObject({ status: 'ingested' });
  batchKeys[name] = (await allFileKeys()).filter((k) => !before.has(k));
}

async function allFileKeys(): Promise<string[]> {
  const keys: string[] = [];
  for (const dataset of ['trades', 'l2_snapshots'] as const) {
    for (const family of ['altx', 'hip3', 'perpx'] as const) {
      keys.push(...(await deps.manifest.deltaFiles(dataset, family, '2026-11-18', '2026-11-18')).map((f) => f.key));
    }
  }
  return keys;
}

const candidates = (type: string, from: number, sets: Record<string, unknown>[] = [{}]) =>
  MINUTE_DETECTORS.find((d) => d.type === type)!.detection.detect(
    minuteContext({ archive: deps, breadth: undefined as never, references: undefined as never }, from, from + MINUTE),
    sets,
  );

/** `symbol` trading on altx every 30 s in [from, to), with a time offset. */
const altxTrades = (symbol: string, from: number, to: number, offsetMs: number, firstId: number) =>
  Array.from({ length: Math.ceil((to - from) / 30_000) }, (_, i) => trade({ family: 'altx', symbol, ts: from + i * 30_000 + offsetMs, trade_id: firstId + i }));

const snapshots = (symbol: string, from: number, to: number) =>
  Array.from(
    { length: Math.ceil((to - from) / MINUTE) },
    (_, i) =>
      ({
        dataset: 'l2_snapshots',
        family: 'hip3',
        symbol,
        ts: from + i * MINUTE,
        bids: [['100', '1', 1]],
        asks: [['101', '1', 1]],
      }) as NormalizedRecord,
  );

describe('archive gaps over the archive', () => {
  beforeAll(async () => {
    // altx trades until 01:20 (ETH last, at 01:19:45), silent for 40 minutes, then BTC alone resumes at 02:00.
    await ingest('early', [...altxTrades('BTC', at(0, 0), at(0, 30), 0, 1), ...altxTrades('ETH', at(0, 0), at(0, 30), 15_000, 10_000)]);
    await ingest('late', [...altxTrades('BTC', at(0, 30), at(1, 19), 0, 100), ...altxTrades('ETH', at(0, 30), at(1, 20), 15_000, 10_100)]);
    await ingest('resumed', altxTrades('BTC', at(2, 0), at(2, 10), 0, 1_000));
  });

  it("detects the gap five minutes into the venue's silence, from the last trade of any market", async () => {
    const [detected, ...rest] = await candidates('archive.gap_detected', at(1, 24));
    expect(rest).toEqual([]);
    expect(detected!.data).toMatchObject({ venue: 'altx', state: 'detected', last_data_at: new Date(at(1, 19, 45)).toISOString() });
  });

  it('resolves it when trading resumes 40 minutes later, under the same incident id, measured from the same last trade', async () => {
    const [detected] = await candidates('archive.gap_detected', at(1, 24));
    const [resolved, ...rest] = await candidates('archive.gap_resolved', at(2, 0));
    expect(rest).toEqual([]);
    expect(resolved!.data).toMatchObject({
      venue: 'altx',
      state: 'resolved',
      incident_id: detected!.data.incident_id,
      gap_s: 40 * 60 + 15,
      last_data_at: new Date(at(1, 19, 45)).toISOString(),
      resumed_at: new Date(at(2, 0)).toISOString(),
    });
  });

  it('reads only the recent files in a minute of ordinary trading', async () => {
    filesRead = [];
    expect(await candidates('archive.gap_detected', at(1, 10))).toEqual([]);
    expect(filesRead.length).toBeGreaterThan(0);
    expect(batchKeys.early).toHaveLength(1);
    expect(filesRead.filter((key) => batchKeys.early!.includes(key))).toEqual([]);
  });
});

describe('ingest stalls over the archive', () => {
  beforeAll(async () => {
    // xyz:TSLA's book every minute until 01:00, then silent until 01:40; xyz:NVDA's every minute throughout.
    await ingest('books', [
      ...snapshots('xyz:TSLA', at(0, 0), at(1, 1)),
      ...snapshots('xyz:TSLA', at(1, 40), at(1, 50)),
      ...snapshots('xyz:NVDA', at(0, 0), at(1, 50)),
    ]);
  });

  it('reports the recovery of the one market that resumed, with its whole silence, and nothing for the other', async () => {
    const recovered = (await candidates('ingest.recovered', at(1, 40), [{ threshold_s: 600 }])).filter((c) => c.scope === 'per_market');
    expect(recovered.map((c) => [c.symbol, c.data.age_s, c.data.last_update_at])).toEqual([['xyz:TSLA', 40 * 60, new Date(at(1, 0)).toISOString()]]);
  });

  it('reports the stall when the threshold passes, under the incident id the recovery carries', async () => {
    const [stall] = (await candidates('ingest.stall', at(1, 10), [{ threshold_s: 600 }])).filter((c) => c.scope === 'per_market');
    const [recovery] = (await candidates('ingest.recovered', at(1, 40), [{ threshold_s: 600 }])).filter((c) => c.scope === 'per_market');
    expect(stall!.symbol).toBe('xyz:TSLA');
    expect(stall!.data.incident_id).toBe(recovery!.data.incident_id);
  });
});

describe('priority gas payments over the archive', () => {
  beforeAll(async () => {
    // 49 payments of 2 HYPE between 00:00 and 00:49 on perpx ETH, two more at 05:00:10 and 05:00:20, HYPE trading at 25.
    const paid = (ts: number, id: number, gas: string) => trade({ family: 'perpx', symbol: 'ETH', ts, trade_id: id, priority_gas: gas });
    await ingest(
      'morning payments',
      Array.from({ length: 49 }, (_, i) => paid(at(0, i), 50_000 + i, '2')),
    );
    await ingest('later payments', [
      paid(at(4, 59, 50), 50_100, '1.4'), // under the floor: neither reported nor counted
      trade({ family: 'perpx', symbol: 'HYPE', ts: at(4, 59), trade_id: 50_200, price: '25' }),
      paid(at(5, 0, 10), 50_101, '3'),
      paid(at(5, 0, 20), 50_102, '2.5'),
    ]);
  });

  it("counts the day's earlier payments towards the 50, and values the payment at the token price", async () => {
    const out = await candidates('market.pga_payment', at(5, 0));
    expect(out.map((c) => [c.data.payment_of_day, c.data.amount, c.data.notional_usd, c.data.market])).toEqual([[50, 3, 75, 'ETH']]);
  });

  it('reports nothing, and reads no earlier file, in a minute without a payment', async () => {
    filesRead = [];
    expect(await candidates('market.pga_payment', at(4, 0))).toEqual([]);
    expect(batchKeys['morning payments']).toHaveLength(1);
    expect(filesRead.filter((key) => batchKeys['morning payments']!.includes(key))).toEqual([]);
  });
});

describe('last fills and prices over the archive', () => {
  it("takes the fills of one instant in trade-id order: a holder's position after a sweep, the token's last price", async () => {
    // Prepare: a wallet swept three times in one instant (2, then 3, then 1 more), and HYPE trading
    // three times in one instant; the ingested rows are not in trade-id order.
    const wallet = '0x00000000000000000000000000000000000000cc';
    const sweep = at(20, 0);
    const fills = [
      ['2', '0', 70],
      ['1', '5', 72],
      ['3', '2', 71],
    ].map(([size, start, id]) =>
      trade({
        family: 'hip4',
        symbol: '#90',
        ts: sweep,
        trade_id: Number(id),
        side: 'B',
        size: String(size),
        start_position: String(start),
        user_address: wallet,
        price: '0.5',
      }),
    );
    const hype = [
      ['41.5', 82],
      ['41.7', 83],
      ['41.6', 81],
    ].map(([price, id]) => trade({ symbol: 'HYPE', ts: sweep, trade_id: Number(id), price: String(price) }));
    await ingest('sweep', [...fills, ...hype]);
    const settled = [
      {
        dataset: 'settlements',
        family: 'hip4',
        symbol: '#90',
        ts: sweep + MINUTE,
        resolution: 'yes',
        settle_price: '1',
        open_interest: '10',
      } as SettlementRecord,
    ];
    // Act
    const holders = await holdersOf(deps, settled, new Set([wallet]), sweep + MINUTE);
    const price = await pgaTokenPrice(deps, sweep + MINUTE);
    // Assess: after trade 72 (5 + 1), not after trade 70 (0 + 2); HYPE's trade 83.
    expect(holders).toEqual([{ symbol: '#90', address: wallet, position: 6 }]);
    expect(price).toBe(41.7);
  });
});
