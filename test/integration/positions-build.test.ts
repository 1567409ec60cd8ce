/**
 * The positions job over the real archive (dynalite manifest, s3rver objects, DuckDB): fills in,
 * change log and hourly and live snapshots out, through ingest and compaction. Whatever the fills
 * and however many runs build them, each hourly snapshot equals every leg replayed from an empty
 * book up to its hour, and the change log holds each fill once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { readWindow } from '#core/archive/read-pages.ts';
import { buildPositions, targetInstant } from '#core/positions/build.ts';
import { applyFill, chargeFunding, type Book, type Fill } from '#core/positions/engine.ts';
import { fixed, text } from '#core/positions/fixed.ts';
import { snapshotRowsAt } from '#core/positions/store.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { startScratchEmulators, type ScratchEmulators } from '#local/scratch-emulators.ts';
import { startFaultProxies, type FaultProxies } from '#local/fault-proxy.ts';
import { flakyStores } from '#local/fault-plans.ts';
import { resetConfig } from '#shared/config.ts';
import { RETRY_SETTINGS } from '#shared/deps.ts';
import { NO_FAULTS, parseFaultPlan, type FaultPlan } from '#schemas/fault-plan.ts';

let env: ScratchEmulators;
let proxies: FaultProxies;
let now = 0;
let deps: ArchiveDeps;
beforeAll(async () => {
  env = await startScratchEmulators();
  // The job's calls go through the fault proxy, without faults until a test sets a plan (issue 44).
  proxies = await startFaultProxies(env.emulators.endpoints, NO_FAULTS);
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: proxies.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: proxies.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: proxies.endpoints.sqs,
  });
  resetConfig();
  deps = { ...archiveDeps(), clock: { now: () => now } };
});
afterAll(async () => {
  await proxies?.stop();
  await env?.stop();
});

const HOUR = 3_600_000;
const ACCOUNTS = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2', '0x00000000000000000000000000000000000000c3'];

interface Trade {
  account: number;
  symbol: number;
  units: number;
  minute: number;
  price: number;
  gap: boolean;
}
const trades = fc.array(
  fc.record({
    account: fc.integer({ min: 0, max: 2 }),
    symbol: fc.integer({ min: 0, max: 1 }),
    units: fc.integer({ min: -40, max: 40 }).filter((u) => u !== 0),
    minute: fc.integer({ min: 0, max: 179 }),
    price: fc.integer({ min: 900, max: 1100 }),
    gap: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  }),
  { minLength: 1, maxLength: 60 },
);

let run = 0;

/** Fills with `start_position` chained per account and market as the venue reports it (a `gap` skips a fill the archive never got). */
function fillsOf(list: readonly Trade[], t0: number, symbols: readonly string[]): Fill[] {
  const venue = new Map<string, number>();
  const sorted = [...list].sort((a, b) => a.minute - b.minute);
  const fills: Fill[] = [];
  sorted.forEach((t, i) => {
    const key = `${t.account}/${t.symbol}`;
    const start = venue.get(key) ?? 0;
    venue.set(key, start + t.units);
    if (t.gap) return;
    fills.push({
      ts: t0 + t.minute * 60_000 + i,
      trade_id: t0 / 1000 + i,
      symbol: symbols[t.symbol]!,
      account: ACCOUNTS[t.account]!,
      side: t.units > 0 ? 'B' : 'A',
      price: String(t.price),
      size: text(fixed(String(Math.abs(t.units))) / 10n),
      start_position: text(fixed(String(start)) / 10n),
    });
  });
  return fills;
}

describe('the positions job', () => {
  it('builds hourly snapshots equal to the change log replayed from an empty book, over any number of runs', async () => {
    await fc.assert(
      fc.asyncProperty(trades, fc.integer({ min: 1, max: 4 }), async (list, runs) => {
        // Prepare: four fresh hours per case (the job's book is continuous, so the hours between cases
        // are built too: close cases keep that short), two markets with a mark every minute and an
        // hourly funding rate.
        const t0 = Date.parse('2026-09-01T00:00:00Z') + run++ * 4 * HOUR;
        const symbols = [`P${run}A`, `P${run}B`];
        const fills = fillsOf(list, t0, symbols);
        const records: object[] = fills.map((f) => ({ dataset: 'trades', family: 'perpx', ...f, user_address: f.account, account: undefined }));
        for (const symbol of symbols) {
          for (let m = 0; m <= 190; m++)
            records.push({ dataset: 'open_interest', family: 'perpx', symbol, ts: t0 + m * 60_000, open_interest: '100', mark_price: String(1000 + m) });
          for (let h = 0; h <= 3; h++) records.push({ dataset: 'funding', family: 'perpx', symbol, ts: t0 + h * HOUR - 1_000, funding_rate: '0.0001' });
        }
        await ingestBatch(deps, 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));
        // Act: the job runs `runs` times through the three hours, then compaction folds what it wrote.
        for (let r = 1; r <= runs; r++) {
          now = t0 + Math.round((3 * HOUR * r) / runs) + 2 * 60_000;
          await buildPositions(deps, { families: ['perpx'] });
        }
        await compactArchive(deps, { datasets: ['position_changes', 'position_snapshots'], families: ['perpx'] });
        // Assess
        const legs = (await readWindow(deps, { dataset: 'position_changes', family: 'perpx', from: t0, to: t0 + 4 * HOUR, limit: 10_000 })).rows;
        expect(legs.map((l) => Number(l.trade_id)).sort()).toEqual(fills.map((f) => f.trade_id).sort());
        const book: Book = new Map();
        let next = 0;
        const ordered = [...fills].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id);
        for (let hour = t0 + HOUR; hour <= targetInstant('perpx', now); hour += HOUR) {
          while (next < ordered.length && ordered[next]!.ts < hour) applyFill(book, ordered[next++]!);
          chargeFunding(
            book,
            () => '0.0001',
            () => ({ price: String(1000 + (hour - t0) / 60_000), time: hour }),
          );
          // Earlier cases' positions carry on (the job's book is continuous): this case's markets only.
          const stored = (await snapshotRowsAt(deps, 'perpx', hour)).filter((row) => symbols.includes(row.symbol));
          const expected = [...book.values()]
            .map((h) => ({
              account: h.account,
              symbol: h.symbol,
              size: text(h.size),
              entry: h.entry === null ? null : text(h.entry),
              funding: text(h.fundingSinceChange),
            }))
            .sort((a, b) => `${a.account}${a.symbol}`.localeCompare(`${b.account}${b.symbol}`));
          expect(
            stored.map((s) => ({ account: s.account, symbol: s.symbol, size: s.size, entry: s.entry_price ?? null, funding: s.funding_since_change })),
            `hour ${(hour - t0) / HOUR}`,
          ).toEqual(expected);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('keeps live snapshots only until their hour is folded; the hourly ones stay', async () => {
    // Prepare: a day of one account's fills, built live every few minutes through its second hour.
    const t0 = Date.parse('2026-10-01T00:00:00Z');
    const fills = fillsOf(
      Array.from({ length: 40 }, (_, i) => ({ account: 0, symbol: 0, units: i % 3 === 0 ? -2 : 3, minute: i * 3, price: 1000 + i, gap: false })),
      t0,
      ['LIVE'],
    );
    await ingestBatch(
      deps,
      'normalized',
      fills.map((f) => JSON.stringify({ dataset: 'trades', family: 'hip3', ...f, symbol: 'xyz:LIVE', user_address: f.account, account: undefined })).join('\n'),
    );
    for (let minute = 65; minute <= 110; minute += 5) {
      now = t0 + minute * 60_000;
      await buildPositions(deps, { families: ['hip3'] });
    }
    const liveRows = async () =>
      (
        await readWindow(deps, {
          dataset: 'position_snapshots',
          family: 'hip3',
          from: t0 + HOUR,
          to: t0 + 2 * HOUR - 1,
          limit: 10_000,
          filter: { sql: 'ts % 3600000 <> 0', params: {} },
        })
      ).rows;
    const before = await liveRows();
    // Act: the second hour closes and is folded.
    now = t0 + 2 * HOUR + 3 * 60_000;
    await buildPositions(deps, { families: ['hip3'] });
    await compactArchive(deps, { datasets: ['position_snapshots'], families: ['hip3'] });
    // Assess
    expect(before.length).toBeGreaterThan(0);
    expect(await liveRows()).toEqual([]);
    expect((await snapshotRowsAt(deps, 'hip3', t0 + HOUR)).map((r) => r.symbol)).toEqual(['xyz:LIVE']);
    expect((await snapshotRowsAt(deps, 'hip3', t0 + 2 * HOUR)).map((r) => r.symbol)).toEqual(['xyz:LIVE']);
  });
});

describe("the positions job under AWS's faults", () => {
  /** Three accounts trading two markets for three hours (a fill the archive never got included), on hip3 after the tests above. */
  const T0 = Date.parse('2026-10-01T06:00:00Z');
  const CASE = fc.sample(trades, { numRuns: 1, seed: 44 })[0]!;

  /** Case `n`'s fills (its own markets, hours and trade ids), ingested; the job then builds them as its schedule would under `plan`. */
  async function buildCase(n: number, plan: FaultPlan) {
    const t0 = T0 + n * 4 * HOUR;
    const symbols = [`xyz:F${n}A`, `xyz:F${n}B`];
    const fills = fillsOf(CASE, t0, symbols);
    await ingestBatch(
      deps,
      'normalized',
      fills.map((f) => JSON.stringify({ dataset: 'trades', family: 'hip3', ...f, user_address: f.account, account: undefined })).join('\n'),
    );
    proxies.setPlan(plan);
    const failed: string[] = [];
    let injected = 0;
    try {
      // Each hour closes, and the job runs until a run succeeds (a failed run is run again, as the schedule would).
      for (let hour = 1; hour <= 3; hour += 1) {
        now = t0 + hour * HOUR + 2 * 60_000;
        for (let run = 0; ; run += 1) {
          const report = await buildPositions(deps, { families: ['hip3'] }).catch((error: unknown) => {
            failed.push(String(error));
            return undefined;
          });
          if (report?.builtThrough.hip3 !== undefined && report.builtThrough.hip3 >= targetInstant('hip3', now)) break;
          // A lease whose release was lost holds the family until it runs out.
          if (report?.skippedLeased) now += 5 * 60_000 + 1;
          if (run >= 20) throw new Error(`hour ${hour} not built in 20 runs: ${failed.join('; ')}`);
        }
      }
    } finally {
      injected = Object.values(proxies.report().injected).reduce((a, b) => a + b, 0);
      proxies.setPlan(NO_FAULTS);
    }
    // Relative to the case: its markets, hours and trade ids numbered alike, so two cases compare.
    const relative = (row: Record<string, unknown>) => {
      const shifted: Record<string, unknown> = { ...row, symbol: symbols.indexOf(String(row.symbol)) };
      for (const name of ['ts', 'opened_at', 'last_change_at', 'mark_time'])
        if (row[name] !== undefined && row[name] !== null) shifted[name] = Number(row[name]) - t0;
      if (row.trade_id !== undefined) shifted.trade_id = Number(row.trade_id) - t0 / 1000;
      return shifted as Record<string, unknown> & { ts: number };
    };
    const legs = (await readWindow(deps, { dataset: 'position_changes', family: 'hip3', from: t0, to: t0 + 4 * HOUR - 1, limit: 10_000 })).rows
      .map(relative)
      .sort((a, b) => a.ts - b.ts || Number(a.trade_id) - Number(b.trade_id));
    const snapshots = [];
    for (let hour = 1; hour <= 3; hour += 1)
      snapshots.push((await snapshotRowsAt(deps, 'hip3', t0 + hour * HOUR)).filter((row) => symbols.includes(row.symbol)).map(relative));
    return { legs, snapshots, failed, injected };
  }

  it("writes no snapshot before its legs: a run whose legs' upload fails is redone, and no leg is lost", async () => {
    const clean = await buildCase(0, NO_FAULTS);
    // Every try of the first upload of a change-log file fails (the SDK's retries with it): that run fails.
    const legsLost = parseFaultPlan({
      seed: 44,
      rules: [{ service: 's3', operation: 'PUT', match: 'position_changes', fault: 'server-error', rate: 1, limit: RETRY_SETTINGS.background.s3.maxAttempts }],
    });
    const killed = await buildCase(1, legsLost);
    expect(killed.failed.length).toBeGreaterThan(0);
    expect(clean.legs.length).toBeGreaterThan(0);
    expect(killed.legs.map((l) => l.trade_id)).toEqual(clean.legs.map((l) => l.trade_id));
    expect(killed).toMatchObject({ legs: clean.legs, snapshots: clean.snapshots });
  });

  it('builds the same change log and hourly snapshots under the 5% plan as without faults', async () => {
    const clean = await buildCase(2, NO_FAULTS);
    const faulted = await buildCase(3, flakyStores(47, 0.05));
    expect(clean.legs.length).toBeGreaterThan(0);
    expect(faulted.injected).toBeGreaterThan(0);
    expect(clean.legs.filter((l) => l.continuity === 'quarantined')).toEqual(faulted.legs.filter((l) => l.continuity === 'quarantined'));
    expect(faulted).toMatchObject({ legs: clean.legs, snapshots: clean.snapshots });
  });
});
