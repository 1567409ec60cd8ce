/**
 * Reads ahead of the manifest (core/archive/read.ts, `readAhead`): a window or candle read starts
 * on the file list the container remembers while the manifest is asked, and keeps that early
 * result only when the answer shows the same files. Here the remembered list goes stale in each
 * way the archive changes (a late delta beside a day file, a day file replaced by compaction, a
 * delta past a page read to its end, a new delta in a candle window, and a late delta past the
 * groups a page that stopped early read): every read still serves the rows the manifest's answer
 * holds, and the page queries counted show when the early read was kept and when it was read again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { fileListMemo } from '#core/archive/files.ts';
import { readMinuteCandles } from '#core/archive/read-candles.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { jsonl, T0, trade, trades } from '../helpers/records.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Days of their own, so no other file of this process's archive meets them. */
const D = T0 + 20 * DAY;

let env: ScratchEmulators;
let deps: ArchiveDeps;
let now = 0;
let queries = 0;
/** While set, the manifest's delta lookups wait for the first query (or give up after 10 s): a read that answers has read ahead. */
let gate: { opened: Promise<boolean>; open: () => void } | undefined;
beforeAll(async () => {
  env = await startScratchEmulators();
  const base = archiveDeps();
  deps = {
    ...base,
    clock: { now: () => now },
    fileLists: fileListMemo(),
    manifest: {
      ...base.manifest,
      deltaFiles: async (...args) => {
        await gate?.opened;
        return base.manifest.deltaFiles(...args);
      },
    },
    sql: {
      ...base.sql,
      query: (q) => {
        queries += 1;
        gate?.open();
        return base.sql.query(q);
      },
    },
  };
});
afterAll(async () => {
  await env?.stop();
});

/** Compaction runs until every fold of the closed days is done. */
async function compactClosedDays(day: number): Promise<void> {
  now = day + 2 * DAY;
  while ((await compactArchive(deps)).foldsDeferred > 0) now += MINUTE;
}

/**
 * One read, the queries it made (an early read kept is one, one read again two), and whether it
 * read ahead: with `gated`, the manifest answers only once a query has started.
 */
async function counted<T>(read: () => Promise<T>, gated = false): Promise<{ result: T; queries: number; ahead: boolean }> {
  queries = 0;
  let open = () => {};
  const opened = new Promise<boolean>((resolve) => {
    open = () => resolve(true);
    setTimeout(() => resolve(false), 10_000).unref();
  });
  gate = gated ? { opened, open } : undefined;
  try {
    const result = await read();
    return { result, queries, ahead: gated && (await opened) };
  } finally {
    gate = undefined;
  }
}

const tradeIds = (day: number, gated = false) =>
  counted(
    async () =>
      (await readWindow(deps, { dataset: 'trades', family: 'perpx', symbol: 'BTC', from: day, to: day + DAY - 1, limit: 100_000 })).rows.map((r) =>
        Number(r.trade_id),
      ),
    gated,
  );

describe('reading ahead of the manifest', () => {
  it('keeps a window page read on the remembered files only while the manifest lists the same files', async () => {
    // Prepare: a closed day compacted into its day file.
    await ingestBatch(deps, 'normalized', jsonl(trades(600, D + HOUR, 1)));
    await compactClosedDays(D);
    const first = await tradeIds(D);

    // Act and assess: the same files again, read ahead and kept.
    const again = await tradeIds(D, true);
    expect(again.result).toEqual(first.result);
    expect(again).toMatchObject({ ahead: true, queries: 1 });

    // A late delta beside the day file: the early page misses its rows and is read again.
    const late = [trade({ ts: D + HOUR + 500, trade_id: 900_001 }), trade({ ts: D + 3 * HOUR, trade_id: 900_002 })];
    await ingestBatch(deps, 'normalized', jsonl(late));
    const withLate = await tradeIds(D, true);
    expect(withLate.result).toEqual(expect.arrayContaining([...first.result, 900_001, 900_002]));
    expect(withLate.result).toHaveLength(602);
    expect(withLate).toMatchObject({ ahead: true, queries: 2 });

    // The day file replaced by compaction (the old one still in the file cache): read again from the new one.
    await compactClosedDays(D);
    const remembered = await tradeIds(D);
    expect(remembered.result).toEqual(withLate.result);
    await ingestBatch(deps, 'normalized', jsonl([trade({ ts: D + 2 * HOUR, trade_id: 900_003 })]));
    await compactClosedDays(D);
    const replaced = await tradeIds(D, true);
    expect(replaced.result).toHaveLength(603);
    expect(replaced.result).toContain(900_003);
    expect(replaced).toMatchObject({ ahead: true, queries: 2 });

    // A late delta past every file of a page read to its end: read again, a group more (three queries).
    await ingestBatch(deps, 'normalized', jsonl([trade({ ts: D + 20 * HOUR, trade_id: 900_004 })]));
    const beyond = await tradeIds(D, true);
    expect(beyond.result).toHaveLength(604);
    expect(beyond.result.at(-1)).toBe(900_004);
    expect(beyond).toMatchObject({ ahead: true, queries: 3 });
  });

  it('keeps a page that stopped early when only files past its groups changed', async () => {
    // Prepare: two closed days; a page of the first day's rows reads only its day file.
    const day = D + 3 * DAY;
    await ingestBatch(deps, 'normalized', jsonl([...trades(300, day + HOUR, 2_000_000), ...trades(300, day + DAY + HOUR, 2_100_000)]));
    await compactClosedDays(day + DAY);
    const page = (gated = false) =>
      counted(() => readWindow(deps, { dataset: 'trades', family: 'perpx', symbol: 'BTC', from: day, to: day + 2 * DAY - 1, limit: 100 }), gated);
    const before = await page();

    // Act: a late delta on the second day, past the groups the page reads.
    await ingestBatch(deps, 'normalized', jsonl([trade({ ts: day + DAY + 2 * HOUR, trade_id: 2_900_000 })]));
    const after = await page(true);

    // Assess
    expect(after.result).toEqual(before.result);
    expect(after).toMatchObject({ ahead: true, queries: 1 });
  });

  it('reads candles ahead once their files stop changing, and again when a new delta lands', async () => {
    // Prepare: a closed day, read until two lookups agree.
    const day = D + 6 * DAY;
    await ingestBatch(deps, 'normalized', jsonl(trades(120, day + HOUR, 3_000_000)));
    await compactClosedDays(day);
    const candles = (gated = false) => counted(() => readMinuteCandles(deps, { family: 'perpx', symbol: 'BTC', from: day, to: day + DAY - 1 }), gated);
    const first = await candles();
    expect(first.result).toHaveLength(2);
    await candles();
    const ahead = await candles(true);
    expect(ahead.result).toEqual(first.result);
    expect(ahead).toMatchObject({ ahead: true, queries: 1 });

    // Act: a trade in a minute no candle had yet.
    await ingestBatch(deps, 'normalized', jsonl([trade({ ts: day + 5 * HOUR + 1_000, trade_id: 3_900_000, price: '123' })]));
    const changed = await candles(true);

    // Assess
    expect(changed).toMatchObject({ ahead: true, queries: 2 });
    expect(changed.result).toHaveLength(first.result.length + 1);
    expect(changed.result.find((c) => Number(c.ts) === day + 5 * HOUR)).toMatchObject({ open: 123, trade_count: 1 });
  });
});
