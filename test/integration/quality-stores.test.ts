/**
 * The quality table's stores on the DynamoDB adapter, against dynalite: incidents opened and
 * resolved idempotently (a rerun of the detection run, a resolution seen without its opening) and
 * listed newest first; latency minutes of several containers read back by window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScratchEmulators, type ScratchEmulators } from '../../functions/local/scratch-emulators.ts';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { archiveManifest, dynamoDocumentClient, incidentStore, latencyStore } from '../../functions/shared/deps.ts';
import { config } from '../../functions/shared/config.ts';
import { TABLES } from '../../functions/resources.ts';
import type { ArchiveFile } from '../../functions/ports/archive.ts';
import { cadenceOf } from '../../functions/core/archive/cadence.ts';
import type { StoredIncident } from '../../functions/ports/quality.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 18, 10);

let env: ScratchEmulators;
beforeAll(async () => { env = await startScratchEmulators(); });
afterAll(async () => { await env?.stop(); });

const gap = (id: string, startedAt: number): Omit<StoredIncident, 'resolvedAt'> => ({
  id, kind: 'archive_gap', exchange: 'altx', dataTypes: ['trades'], symbols: [], startedAt, detectedAt: startedAt + 5 * MINUTE,
});

describe('incident store', () => {
  it('keeps the first opening, resolves it once, and lists newest first from `since`', async () => {
    // Act
    await incidentStore().open(gap('a1', T0));
    await incidentStore().open({ ...gap('a1', T0), detectedAt: T0 + 9 * MINUTE });
    await incidentStore().resolve({ ...gap('a1', T0), detectedAt: T0 + 20 * MINUTE, resolvedAt: T0 + 6 * MINUTE });
    await incidentStore().resolve({ ...gap('a1', T0), detectedAt: T0 + 20 * MINUTE, resolvedAt: T0 + 6 * MINUTE });
    await incidentStore().open(gap('a2', T0 + 60 * MINUTE));

    // Assess
    expect(await incidentStore().get('a1')).toEqual({ ...gap('a1', T0), resolvedAt: T0 + 6 * MINUTE });
    expect((await incidentStore().list(T0)).map((i) => i.id)).toEqual(['a2', 'a1']);
    expect((await incidentStore().list(T0 + 1)).map((i) => i.id)).toEqual(['a2']);
    expect(await incidentStore().get('missing')).toBeUndefined();
  });

  it('creates an incident whole from a resolution whose opening it never saw', async () => {
    await incidentStore().resolve({ ...gap('b1', T0 - 60 * MINUTE), symbols: ['BTC'], resolvedAt: T0 - 40 * MINUTE });
    expect(await incidentStore().get('b1')).toEqual({ ...gap('b1', T0 - 60 * MINUTE), symbols: ['BTC'], resolvedAt: T0 - 40 * MINUTE });
  });
});

describe('latency store', () => {
  it('reads back every container\'s minutes of a window across hours', async () => {
    // Prepare
    const minute = (m: number, scope: string, count: number) => ({ minute: T0 + m * MINUTE, scope, count, sumMs: count * 10, hist: { '53': count } });

    // Act
    await latencyStore().put('c1', minute(58, 'perpx', 3));
    await latencyStore().put('c2', minute(58, 'perpx', 4));
    await latencyStore().put('c1', minute(61, 'hip3', 5));
    await latencyStore().put('c1', minute(90, 'perpx', 6));

    // Assess
    const read = await latencyStore().range(T0 + 58 * MINUTE, T0 + 62 * MINUTE);
    expect(read.map((m) => [m.minute, m.scope, m.count]).sort()).toEqual([
      [T0 + 58 * MINUTE, 'perpx', 3], [T0 + 58 * MINUTE, 'perpx', 4], [T0 + 61 * MINUTE, 'hip3', 5],
    ].sort());
    expect(read[0]!.hist).toEqual({ '53': read[0]!.count });
  });
});

describe('manifest statistics', () => {
  it('are kept beside the file, left out of the queries every read makes, read by key and deleted with it', async () => {
    // Prepare
    const rows = [{ symbol: 'BTC', ts: T0 }, { symbol: 'BTC', ts: T0 + 1_000 }, { symbol: 'ETH', ts: T0 + 400_000 }];
    const file: ArchiveFile = {
      fileId: 'f1', key: 'archive/v1/trades/f1.parquet', dataset: 'trades', family: 'perpx', day: '2026-11-18', kind: 'delta', symbols: ['BTC', 'ETH'],
      rows: 3, bytes: 100, etag: 'e', minTs: T0, maxTs: T0 + 400_000, replaces: [], createdAt: T0, cadence: cadenceOf(rows),
    };

    // Act
    await archiveManifest().putFile(file);
    const [listed] = await archiveManifest().deltaFiles('trades', 'perpx', '2026-11-18', '2026-11-18');
    const stats = await archiveManifest().cadenceOf([listed!]);
    const fileItems = await dynamoDocumentClient().send(new QueryCommand({
      TableName: String(config()[TABLES.manifest.envVar]), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'D#trades#perpx' },
    }));
    await archiveManifest().deleteFile(file);

    // Assess: the item every read queries carries no statistics; the statistics item has them.
    expect(fileItems.Items).toHaveLength(1);
    expect(fileItems.Items![0]).not.toHaveProperty('cadence');
    expect(listed).not.toHaveProperty('cadence');
    expect(stats.get('f1')).toEqual(cadenceOf(rows));
    expect((await archiveManifest().cadenceOf([listed!])).size).toBe(0);
  });
  it('hold a delta of a thousand thinly traded symbols over three hours, far past 400 KB as JSON', async () => {
    // Prepare: a row every 6 to 10 minutes per symbol: every interval is a gap candidate.
    const rows = Array.from({ length: 1_000 }, (_, s) => Array.from({ length: 22 }, (_, i) => ({ symbol: `S${s}`, ts: T0 + s * 997 + i * (6 + ((i * 7 + s) % 5)) * MINUTE }))).flat();
    const cadence = cadenceOf(rows);
    const file: ArchiveFile = {
      fileId: 'wide', key: 'archive/v1/liquidations/wide.parquet', dataset: 'liquidations', family: 'perpx', day: '2026-11-18', kind: 'delta',
      symbols: Object.keys(cadence).sort(), rows: rows.length, bytes: 100, etag: 'e', minTs: T0, maxTs: T0 + 3 * 60 * MINUTE, replaces: [], createdAt: T0, cadence,
    };
    expect(JSON.stringify(cadence).length).toBeGreaterThan(400 * 1024);
    // Act
    await archiveManifest().putFile(file);
    const [listed] = await archiveManifest().deltaFiles('liquidations', 'perpx', '2026-11-18', '2026-11-18');
    // Assess
    expect((await archiveManifest().cadenceOf([listed!])).get('wide')).toEqual(cadence);
    await archiveManifest().deleteFile(file);
  });

  it('written before they were gzipped (a JSON string) are read as before', async () => {
    // Prepare
    const rows = [{ symbol: 'SOL', ts: T0 }, { symbol: 'SOL', ts: T0 + 600_000 }];
    const file: ArchiveFile = {
      fileId: 'old', key: 'archive/v1/trades/old.parquet', dataset: 'trades', family: 'hip3', day: '2026-11-18', kind: 'delta', symbols: ['SOL'],
      rows: 2, bytes: 10, etag: 'e', minTs: T0, maxTs: T0 + 600_000, replaces: [], createdAt: T0,
    };
    await archiveManifest().putFile(file);
    await dynamoDocumentClient().send(new PutCommand({
      TableName: String(config()[TABLES.manifest.envVar]), Item: { pk: 'S#D#trades#hip3', sk: '2026-11-18#old', cadence: JSON.stringify(cadenceOf(rows)) },
    }));
    // Act
    const [listed] = await archiveManifest().deltaFiles('trades', 'hip3', '2026-11-18', '2026-11-18');
    // Assess
    expect((await archiveManifest().cadenceOf([listed!])).get('old')).toEqual(cadenceOf(rows));
    await archiveManifest().deleteFile(file);
  });
});

describe('the manifest day index', () => {
  it('lists the days that hold compacted files of a dataset and family, in one query, deltas aside', async () => {
    // Prepare: compacted files on two days (two files on one), a delta on a third, another family's file.
    const file = (fileId: string, day: string, kind: ArchiveFile['kind'], family: ArchiveFile['family'] = 'hip3'): ArchiveFile => ({
      fileId, key: `archive/v1/funding/${fileId}.parquet`, dataset: 'funding', family, day, kind, symbols: ['xyz:TSLA'], symbol: kind === 'delta' ? undefined : 'xyz:TSLA',
      rows: 1, bytes: 10, etag: 'e', minTs: T0, maxTs: T0, replaces: [], createdAt: T0,
    });
    for (const f of [file('a', '2026-10-30', 'compacted'), file('b', '2026-11-02', 'compacted'), file('c', '2026-11-02', 'compacted'), file('d', '2026-11-03', 'delta'), file('e', '2026-11-01', 'compacted', 'perpx')]) {
      await archiveManifest().putFile(f);
    }
    // Act
    const days = await archiveManifest().compactedDays('funding', 'hip3', '2026-10-31', '2026-11-05');
    // Assess
    expect(days).toEqual(['2026-11-02']);
    expect(await archiveManifest().compactedDays('funding', 'hip3', '2026-10-01', '2026-12-01')).toEqual(['2026-10-30', '2026-11-02']);
  });
});

