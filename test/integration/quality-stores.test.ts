/**
 * How the DynamoDB manifest keeps a file's cadence statistics, against dynalite: in an item of
 * their own (gzipped, past 400 KB as JSON), and read as before when written as a JSON string. The
 * incident and latency stores' behaviour, and the manifest's day index, are port contracts
 * (test/contracts/quality.ts, archive.ts, run by port-contracts.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { archiveManifest, dynamoDocumentClient } from '#shared/deps.ts';
import { config } from '#shared/config.ts';
import { TABLES } from '#functions/resources.ts';
import type { ArchiveFile } from '#ports/archive.ts';
import { cadenceOf } from '#core/archive/cadence.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 18, 10);

let env: ScratchEmulators;
beforeAll(async () => {
  env = await startScratchEmulators();
});
afterAll(async () => {
  await env?.stop();
});

describe('manifest statistics', () => {
  it('are kept beside the file, left out of the queries every read makes, read by key and deleted with it', async () => {
    // Prepare
    const rows = [
      { symbol: 'BTC', ts: T0 },
      { symbol: 'BTC', ts: T0 + 1_000 },
      { symbol: 'ETH', ts: T0 + 400_000 },
    ];
    const file: ArchiveFile = {
      fileId: 'f1',
      key: 'archive/v1/trades/f1.parquet',
      dataset: 'trades',
      family: 'perpx',
      day: '2026-11-18',
      kind: 'delta',
      symbols: ['BTC', 'ETH'],
      rows: 3,
      bytes: 100,
      etag: 'e',
      minTs: T0,
      maxTs: T0 + 400_000,
      replaces: [],
      createdAt: T0,
      cadence: cadenceOf(rows),
    };

    // Act
    await archiveManifest().putFile(file);
    const [listed] = await archiveManifest().deltaFiles('trades', 'perpx', '2026-11-18', '2026-11-18');
    const stats = await archiveManifest().cadenceOf([listed!]);
    const fileItems = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: String(config()[TABLES.manifest.envVar]),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'D#trades#perpx' },
      }),
    );
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
    const rows = Array.from({ length: 1_000 }, (_, s) =>
      Array.from({ length: 22 }, (_, i) => ({ symbol: `S${s}`, ts: T0 + s * 997 + i * (6 + ((i * 7 + s) % 5)) * MINUTE })),
    ).flat();
    const cadence = cadenceOf(rows);
    const file: ArchiveFile = {
      fileId: 'wide',
      key: 'archive/v1/liquidations/wide.parquet',
      dataset: 'liquidations',
      family: 'perpx',
      day: '2026-11-18',
      kind: 'delta',
      symbols: Object.keys(cadence).sort(),
      rows: rows.length,
      bytes: 100,
      etag: 'e',
      minTs: T0,
      maxTs: T0 + 3 * 60 * MINUTE,
      replaces: [],
      createdAt: T0,
      cadence,
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
    const rows = [
      { symbol: 'SOL', ts: T0 },
      { symbol: 'SOL', ts: T0 + 600_000 },
    ];
    const file: ArchiveFile = {
      fileId: 'old',
      key: 'archive/v1/trades/old.parquet',
      dataset: 'trades',
      family: 'hip3',
      day: '2026-11-18',
      kind: 'delta',
      symbols: ['SOL'],
      rows: 2,
      bytes: 10,
      etag: 'e',
      minTs: T0,
      maxTs: T0 + 600_000,
      replaces: [],
      createdAt: T0,
    };
    await archiveManifest().putFile(file);
    await dynamoDocumentClient().send(
      new PutCommand({
        TableName: String(config()[TABLES.manifest.envVar]),
        Item: { pk: 'S#D#trades#hip3', sk: '2026-11-18#old', cadence: JSON.stringify(cadenceOf(rows)) },
      }),
    );
    // Act
    const [listed] = await archiveManifest().deltaFiles('trades', 'hip3', '2026-11-18', '2026-11-18');
    // Assess
    expect((await archiveManifest().cadenceOf([listed!])).get('old')).toEqual(cadenceOf(rows));
    await archiveManifest().deleteFile(file);
  });
});
